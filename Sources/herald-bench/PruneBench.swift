import ArgumentParser
import HeraldCore
import HeraldStore
import SQLKit

/// `herald-bench prune`: fills the delivery history of an empty database, then times the sweeper's
/// pruning of it while a probe writes a tiny row every few milliseconds. On SQLite every write waits for
/// the one writer, so the probe's slowest write bounds how long pruning held the write lock at a time;
/// the probe's latency with nothing pruning, measured first, is the reference.
struct PruneBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Time delivery-history pruning and the longest a concurrent write waited for it.")

    @OptionGroup var database: DatabaseOption

    @Option(help: "Devices with history.")
    var devices = 5_000

    @Option(help: "Entries per device older than the retention (pruned by age).")
    var old = 150

    @Option(help: "Recent entries per device; all but --keep of them are pruned by the per-device cap.")
    var recent = 100

    @Option(help: "Entries kept per device (history.maxPerDevice).")
    var keep = 50

    @Option(help: "Rows deleted per transaction (sweeper.batchSize; Herald's default is 1000).")
    var batchSize = 1_000

    func validate() throws {
        guard devices > 0, old >= 0, recent >= keep, keep > 0, batchSize > 0 else {
            throw ValidationError("--devices, --keep and --batch-size must be positive and --recent at least --keep")
        }
    }

    func run() async throws {
        let now = SystemClock().now
        let cutoff = now.adding(milliseconds: -30 * 86_400_000)
        try await withBackend(database) { backend in
            let fillStart = ContinuousClock.now
            try await fill(backend, now: now, cutoff: cutoff)
            let rows = devices * (old + recent)
            print("history: \(rows) rows for \(devices) devices in \(format((ContinuousClock.now - fillStart).seconds, 1)) s")

            let idle = try await probe(backend, for: .seconds(2))
            print("probe write with nothing pruning (reference): \(idle.summary)")

            let registry = SQLDeviceRegistry(backend: backend)
            async let busy = probe(backend, until: { $0 })
            let start = ContinuousClock.now
            let pruned = try await registry.pruneHistory(before: cutoff, keepPerDevice: keep, batchSize: batchSize)
            let seconds = (ContinuousClock.now - start).seconds
            Self.done.withLock { $0 = true }
            let during = try await busy
            print(
                "pruned \(pruned) rows (expected \(devices * (old + recent - keep))) in \(format(seconds, 2)) s (\(Int(Double(pruned) / seconds)) rows/s), batch \(batchSize)"
            )
            print("probe write while pruning: \(during.summary)")
        }
    }

    static let done = Locked(false)

    /// Inserts the history: per device `old` entries before the cutoff and `recent` after it.
    func fill(_ backend: any SQLBackend, now: Timestamp, cutoff: Timestamp) async throws {
        var rows: [SQLQueryString] = []
        func flush() async throws {
            guard !rows.isEmpty else { return }
            let statement: SQLQueryString =
                "INSERT INTO deliveries (app_id, device_key, device_id, message_id, delivered_at, outcome, reason) VALUES \(rows.joined(separator: ", "))"
            try await backend.write { db in try await db.raw(statement).run() }
            rows.removeAll(keepingCapacity: true)
        }
        // Entries arrive over time for all devices at once, as fan-outs write them.
        for index in 0..<(old + recent) {
            let at = index < old ? cutoff.milliseconds - Int64(old - index) * 60_000 : now.milliseconds - Int64(old + recent - index) * 1000
            for device in 0..<devices {
                rows.append(
                    "('bench', \(bind: Int64(device + 1)), \(bind: "dev-\(device)"), \(bind: "message:\(index)"), \(bind: at), 'sent', NULL)"
                )
                if rows.count == 4_000 { try await flush() }
            }
        }
        try await flush()
    }

    struct ProbeResult {
        var latencies: [Double]
        var summary: String {
            let sorted = latencies.sorted()
            guard !sorted.isEmpty else { return "no writes" }
            func at(_ q: Double) -> String { format(sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))], 1) }
            return "\(sorted.count) writes, p50 \(at(0.5)) ms, p99 \(at(0.99)) ms, max \(format(sorted.last!, 1)) ms"
        }
    }

    func probe(_ backend: any SQLBackend, for duration: Duration) async throws -> ProbeResult {
        let end = ContinuousClock.now + duration
        return try await probe(backend) { _ in ContinuousClock.now > end }
    }

    /// Writes one row every 5 ms until `stop` says so, timing each write (commit included).
    func probe(_ backend: any SQLBackend, until stop: @escaping (Bool) -> Bool) async throws -> ProbeResult {
        var latencies: [Double] = []
        var counter: Int64 = 0
        while !stop(Self.done.withLock { $0 }) {
            counter += 1
            let value = counter
            let start = ContinuousClock.now
            try await backend.write { db in
                try await db.raw(
                    """
                    INSERT INTO herald_turns (name, last_run_at) VALUES ('bench-probe', \(bind: value))
                    ON CONFLICT (name) DO UPDATE SET last_run_at = excluded.last_run_at
                    """
                ).run()
            }
            latencies.append((ContinuousClock.now - start).seconds * 1000)
            try await Task.sleep(for: .milliseconds(5))
        }
        return ProbeResult(latencies: latencies)
    }
}
