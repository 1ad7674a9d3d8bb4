import CoreMetrics
import HeraldCore

/// Metric handles by name and label values, made on first use.
final class MetricCache: Sendable {
    private struct Key: Hashable {
        let name: String
        let values: [String]
    }

    private struct Handles {
        var counters: [Key: Counter] = [:]
        var timers: [Key: Timer] = [:]
        var meters: [Key: Meter] = [:]
    }

    private let handles = Locked(Handles())

    func counter(_ name: String, _ labels: [(String, String)], _ factory: any MetricsFactory) -> Counter {
        handle(name, labels, in: \.counters) { Counter(label: name, dimensions: labels, factory: factory) }
    }

    func timer(_ name: String, _ labels: [(String, String)], _ factory: any MetricsFactory) -> Timer {
        handle(name, labels, in: \.timers) { Timer(label: name, dimensions: labels, factory: factory) }
    }

    func meter(_ name: String, _ labels: [(String, String)], _ factory: any MetricsFactory) -> Meter {
        handle(name, labels, in: \.meters) { Meter(label: name, dimensions: labels, factory: factory) }
    }

    /// The handle of `name` with these label values from `table`, made by `make` the first time.
    private func handle<Handle: Sendable>(
        _ name: String, _ labels: [(String, String)], in table: WritableKeyPath<Handles, [Key: Handle]>, make: () -> Handle
    ) -> Handle {
        let key = Key(name: name, values: labels.map(\.1))
        return handles.withLock { handles in
            if let handle = handles[keyPath: table][key] { return handle }
            let handle = make()
            handles[keyPath: table][key] = handle
            return handle
        }
    }
}

extension Duration {
    /// Whole nanoseconds, as swift-metrics' timers take them.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
