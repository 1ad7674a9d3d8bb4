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
        let key = Key(name: name, values: labels.map(\.1))
        return handles.withLock { handles in
            if let counter = handles.counters[key] { return counter }
            let counter = Counter(label: name, dimensions: labels, factory: factory)
            handles.counters[key] = counter
            return counter
        }
    }

    func timer(_ name: String, _ labels: [(String, String)], _ factory: any MetricsFactory) -> Timer {
        let key = Key(name: name, values: labels.map(\.1))
        return handles.withLock { handles in
            if let timer = handles.timers[key] { return timer }
            let timer = Timer(label: name, dimensions: labels, factory: factory)
            handles.timers[key] = timer
            return timer
        }
    }

    func meter(_ name: String, _ labels: [(String, String)], _ factory: any MetricsFactory) -> Meter {
        let key = Key(name: name, values: labels.map(\.1))
        return handles.withLock { handles in
            if let meter = handles.meters[key] { return meter }
            let meter = Meter(label: name, dimensions: labels, factory: factory)
            handles.meters[key] = meter
            return meter
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
