import Foundation
import HeraldCore
import HeraldCurl

/// What one run of a provider client bench (`apns`, `fcm`) saw: each send's latency from submit to
/// outcome, and the outcomes by kind with the first error text of each failing kind.
struct ClientBenchRun: Sendable {
    /// Nanoseconds, in the order the outcomes arrived.
    var latencies: [UInt64] = []
    /// "200", "404 UNREGISTERED", "failed tls" … → count.
    var outcomes: [String: Int] = [:]
    var firstErrors: [String: String] = [:]

    /// Sends `count` requests through `stream`, made by `request` from their index, and reads every
    /// outcome in a task of its own (so a full window frees up); `classify` names an outcome's kind,
    /// and gives an error text for the kinds worth showing one of.
    static func run<Request: Sendable, Outcome: Sendable>(
        _ stream: SendStream<Request, Outcome, UInt64>, count: Int, request: (Int) -> Request,
        classify: @escaping @Sendable (Outcome) -> (key: String, error: String?)
    ) async -> ClientBenchRun {
        await withTaskGroup(of: ClientBenchRun.self) { group in
            group.addTask {
                var result = ClientBenchRun()
                result.latencies.reserveCapacity(count)
                for await delivery in stream.results {
                    result.latencies.append(DispatchTime.now().uptimeNanoseconds - delivery.tag)
                    let (key, error) = classify(delivery.outcome)
                    if let error, result.outcomes[key] == nil { result.firstErrors[key] = error }
                    result.outcomes[key, default: 0] += 1
                }
                return result
            }
            for index in 0..<count {
                await stream.submit(request(index), tag: DispatchTime.now().uptimeNanoseconds)
            }
            stream.finish()
            return await group.next()!
        }
    }
}

/// A timed client run: wall clock and this process's CPU around it, after an untimed warm-up that opens
/// the connections (and, for FCM, fetches the access token).
struct ClientBenchFigures {
    let count: Int
    let seconds: Double
    let cpuSeconds: Double
    /// Cores' worth of CPU the whole machine used during the timed run (the server too, when it runs here).
    let machineCores: Double
    let run: ClientBenchRun
    /// Latencies in milliseconds, sorted.
    private let sorted: [Double]

    /// Runs `body(warmup)` untimed, then times `body(count)`.
    static func measure(count: Int, warmup: Int, _ body: (Int) async throws -> ClientBenchRun) async rethrows -> ClientBenchFigures {
        if warmup > 0 { _ = try await body(warmup) }
        let cpuBefore = processCPUSeconds()
        let machineBefore = MachineCPU()
        let started = ContinuousClock.now
        let run = try await body(count)
        let seconds = (ContinuousClock.now - started).seconds
        return ClientBenchFigures(
            count: count, seconds: seconds, cpuSeconds: processCPUSeconds() - cpuBefore,
            machineCores: MachineCPU().busyCores(since: machineBefore), run: run)
    }

    private init(count: Int, seconds: Double, cpuSeconds: Double, machineCores: Double, run: ClientBenchRun) {
        self.count = count
        self.seconds = seconds
        self.cpuSeconds = cpuSeconds
        self.machineCores = machineCores
        self.run = run
        sorted = run.latencies.sorted().map { Double($0) / 1e6 }
    }

    /// The latency at quantile `q` (0…1), in milliseconds.
    func latency(_ q: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
    }

    /// Whether every timed send ended in `success` (the provider's "200").
    func allSucceeded(_ success: String = "200") -> Bool { run.outcomes[success] == count }

    /// Rate, latency and CPU lines; `unit` names what was sent ("notifications"), `each` one of them.
    func printRate(unit: String, each: String) {
        print("elapsed: \(format(seconds, 3)) s   rate: \(format(Double(count) / seconds, 0)) \(unit)/s")
        print("latency: p50 \(format(latency(0.5), 2)) ms   p99 \(format(latency(0.99), 2)) ms   max \(format(latency(1.0), 2)) ms")
        print(
            "client CPU: \(format(cpuSeconds, 2)) s (\(format(cpuSeconds / Double(count) * 1e6, 1)) µs per \(each)); "
                + "machine busy (cores) \(format(machineCores, 2))")
    }

    /// The outcomes line, and the first error of each failing kind.
    func printOutcomes() {
        print("outcomes: " + run.outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        for (key, message) in run.firstErrors.sorted(by: { $0.key < $1.key }) { print("first \(key): \(message)") }
    }

    /// User + system CPU time this process has used so far, in seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
