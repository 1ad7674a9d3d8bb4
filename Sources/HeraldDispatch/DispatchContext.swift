import HeraldCore
import HeraldMetrics
import HeraldStore
import Synchronization

/// Set once when Herald starts shutting down; every running fan-out checks it between sends, and is
/// woken by it when it waits.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    private let observers = Locked<[ObjectIdentifier: WakeSignal]>([:])

    var isSet: Bool { flag.load(ordering: .acquiring) }

    func set() {
        flag.store(true, ordering: .releasing)
        for wake in observers.withLock({ Array($0.values) }) { wake.signal() }
    }

    /// Signals `wake` when the flag is set; `forget` the returned key when the waiter ends.
    func observe(_ wake: WakeSignal) -> ObjectIdentifier {
        let key = ObjectIdentifier(wake)
        observers.withLock { $0[key] = wake }
        if isSet { wake.signal() }
        return key
    }

    func forget(_ key: ObjectIdentifier) { _ = observers.withLock { $0.removeValue(forKey: key) } }
}

/// What every fan-out of one dispatcher shares: the stores, this instance's lease name, the clock, the
/// settings, the stop flag and the metrics.
struct DispatchContext: Sendable {
    let registrations: any RegistrationStore
    let messages: any MessageStore
    let owner: String
    let clock: any WallClock
    let settings: DispatcherConfiguration
    let stop: StopFlag
    let metrics: HeraldMetrics
    /// Where each answer goes for the console's provider health.
    let health: ProviderHealthBook
}
