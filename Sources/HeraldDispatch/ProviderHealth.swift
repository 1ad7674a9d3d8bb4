import HeraldCore

/// One provider's health for one app on this instance, as the console's Overview shows it: its
/// connections now, and what its answers have been since this instance started.
public struct ProviderHealth: Sendable, Equatable {
    public var provider: PushProvider
    /// Whether this instance has made the app's client yet (it is made at the first send).
    public var started: Bool
    /// The client's connections: open now, sends in flight on them, replaced since it started.
    public var connections: ClientConnections
    /// Answers since start: accepted, refused for the device or the message, and retried.
    public var sent: Int64
    public var refused: Int64
    public var retries: Int64
    public var lastSuccessAt: Timestamp?
    /// The last answer that was not a success (a refusal or a retry), with the service's reason.
    public var lastError: String?
    public var lastErrorAt: Timestamp?

    public init(provider: PushProvider) {
        self.provider = provider
        started = false
        connections = ClientConnections(open: 0, inFlight: 0, replaced: 0)
        sent = 0
        refused = 0
        retries = 0
    }
}

/// The answers half of `ProviderHealth`, kept per app and provider by every fan-out of this instance.
final class ProviderHealthBook: Sendable {
    private struct Key: Hashable {
        let app: String
        let provider: PushProvider
    }

    // HeraldCore's lock, as everywhere else: the thread sanitizer does not see Synchronization's Mutex
    // (a futex) order its sections, and reported each fan-out's records as racing.
    private let entries = Locked<[Key: Entry]>([:])

    /// One app's and provider's answers. A fan-out finds its entries once and records every answer into
    /// them, so an answer costs one lock and no lookup.
    final class Entry: Sendable {
        private let health: Locked<ProviderHealth>

        fileprivate init(provider: PushProvider) { health = Locked(ProviderHealth(provider: provider)) }

        func record(_ answer: ProviderAnswer, now: Timestamp) {
            health.withLock { health in
                switch answer.decision {
                case .done:
                    health.sent += 1
                    health.lastSuccessAt = now
                case .retry:
                    health.retries += 1
                    health.lastError = answer.reason ?? answer.reasonLabel ?? "retried"
                    health.lastErrorAt = now
                case .removeToken, .deactivateToken, .fail, .abort:
                    health.refused += 1
                    health.lastError = answer.reason ?? answer.reasonLabel ?? "refused"
                    health.lastErrorAt = now
                }
            }
        }

        var current: ProviderHealth { health.withLock { $0 } }
    }

    /// The entry the answers of `app`'s sends through `provider` go into, made on first use.
    func entry(app: String, provider: PushProvider) -> Entry {
        entries.withLock { entries in
            let key = Key(app: app, provider: provider)
            if let entry = entries[key] { return entry }
            let entry = Entry(provider: provider)
            entries[key] = entry
            return entry
        }
    }

    func health(app: String, provider: PushProvider) -> ProviderHealth {
        entries.withLock { $0[Key(app: app, provider: provider)] }?.current ?? ProviderHealth(provider: provider)
    }
}
