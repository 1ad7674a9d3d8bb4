import DequeModule
import HeraldCore
import HeraldMetrics
import SQLKit

/// Turns concurrent single calls into batches, without a background task.
///
/// Whoever submits while fewer than `maxLeaders` batches are running becomes a leader: it processes
/// its own input plus the inputs queued before it (up to `maxBatch` in all) in one call of `process`,
/// delivers the others' results, and, when more inputs wait, passes leadership to the oldest waiter,
/// so no caller serves the others for ever. The others wait on a promise. Under no load a batch is one
/// input and costs nothing extra; under load, batches grow by themselves to what `process` can absorb.
/// One leader suits a backend with one writer (SQLite); a pool of connections (PostgreSQL) takes
/// several batches at once, each its own transaction.
final class Batcher<Input: Sendable, Output: Sendable>: Sendable {
    /// Processes a batch; returns exactly one result per input, in order.
    typealias Process = @Sendable ([Input]) async -> [Result<Output, any Error>]

    private enum Outcome: Sendable {
        case finished(Result<Output, any Error>)
        /// The previous leader is done: the receiver now runs the next batch.
        case lead
    }

    private struct Job: Sendable {
        let input: Input
        let promise: Promise<Outcome>
    }

    private struct State {
        /// Inputs waiting for a leader to take them (leaders themselves are never in it).
        var queue: Deque<Job> = []
        var leaders = 0
    }

    private let maxBatch: Int
    private let maxLeaders: Int
    private let maxWaiting: Int
    private let process: Process
    private let observer: QueueObserver
    private let state = Locked(State())

    /// `maxWaiting`: inputs that may wait for a leader; one more is refused at once with `WriteQueueFull`
    /// rather than held (and its caller's memory with it) until the database catches up.
    init(maxBatch: Int, maxLeaders: Int = 1, maxWaiting: Int = .max, observer: QueueObserver = .none, process: @escaping Process) {
        precondition(maxBatch > 0 && maxLeaders > 0 && maxWaiting >= 0)
        self.maxBatch = maxBatch
        self.maxLeaders = maxLeaders
        self.maxWaiting = maxWaiting
        self.observer = observer
        self.process = process
    }

    func submit(_ input: Input) async throws -> Output {
        let job = Job(input: input, promise: Promise())
        let admitted: Bool? = state.withLock { state in
            if state.leaders < maxLeaders {
                state.leaders += 1
                return true
            }
            guard state.queue.count < maxWaiting else { return nil }
            state.queue.append(job)
            observer.waiting(state.queue.count)
            return false
        }
        guard let leads = admitted else {
            observer.refused()
            throw WriteQueueFull(waiting: maxWaiting)
        }
        switch leads ? .lead : await job.promise.value {
        case .finished(let result): return try result.get()
        case .lead: return try await lead(own: job).get()
        }
    }

    /// Processes one batch that starts with `own`, delivers the others' results, then hands leadership
    /// on (or gives it up when nothing waits). Returns `own`'s result.
    private func lead(own: Job) async -> Result<Output, any Error> {
        let batch =
            [own]
            + state.withLock { state in
                let count = min(state.queue.count, maxBatch - 1)
                defer {
                    state.queue.removeFirst(count)
                    observer.waiting(state.queue.count)
                }
                return Array(state.queue.prefix(count))
            }
        // The batch runs in a task of its own, not the leader's: a leader whose task is cancelled (a
        // fan-out stopping, a request torn down) would otherwise throw CancellationError out of the
        // database calls half-way, and even its ROLLBACK would be refused, leaving the one write
        // connection inside a transaction for every later write. Other callers' writes are in it too.
        let inputs = batch.map(\.input)
        let process = self.process
        let results = await Task { await process(inputs) }.value
        precondition(results.count == batch.count, "one result per input")
        for (job, result) in zip(batch, results).dropFirst() { job.promise.fulfill(.finished(result)) }
        // The next leader leaves the queue here, under the lock, so no other leader takes it into a batch.
        let next: Job? = state.withLock { state in
            if state.queue.isEmpty {
                state.leaders -= 1
                return nil
            }
            defer { observer.waiting(state.queue.count) }
            return state.queue.removeFirst()
        }
        next?.promise.fulfill(.lead)
        return results[0]
    }
}

extension Batcher {
    /// Batches of one kind written at once on PostgreSQL. Fewer, larger batches cost less per write (each
    /// batch is a pooled lease, a transaction and a commit), and one at a time leaves the server idle during
    /// each commit: registrations over HTTP with 64 clients ran at 3,630/s with 6, 4,117–4,512/s with 3 and
    /// 4,160/s with 2 (BENCHMARKS.md section 20; section 19 has 8, 4 and 1 on the older path).
    static var postgresLeaders: Int { 3 }

    /// A batcher whose every batch is one write transaction on `backend`: one batch at a time on SQLite
    /// (one writer), up to `postgresLeaders` at once on PostgreSQL (its pool commits them side by side). A
    /// batch that fails is written again one input per transaction, so one bad input fails alone. Each
    /// batch's size and time go to `metrics` as the `kind` of write.
    static func writing(
        on backend: any SQLBackend, maxBatch: Int = 256, maxWaiting: Int, metrics: HeraldMetrics, as kind: HeraldMetrics.Write,
        _ write: @escaping @Sendable ([Input], any SQLDatabase) async throws -> [Output]
    ) -> Batcher {
        let queue = metrics.writeQueue(kind)
        let observer = QueueObserver(waiting: { queue.waiting($0) }, refused: { queue.refused() })
        return Batcher(
            maxBatch: maxBatch, maxLeaders: backend.dialect.kind == .postgres ? Self.postgresLeaders : 1, maxWaiting: maxWaiting,
            observer: observer
        ) { inputs in
            let start = ContinuousClock.now
            let results = await writeOrEachAlone(inputs, on: backend, write)
            metrics.wrote(kind, count: inputs.count, duration: ContinuousClock.now - start)
            return results
        }
    }

    private static func writeOrEachAlone(
        _ inputs: [Input], on backend: any SQLBackend, _ write: @escaping @Sendable ([Input], any SQLDatabase) async throws -> [Output]
    ) async -> [Result<Output, any Error>] {
        do {
            return try await backend.write { db in try await write(inputs, db) }.map { .success($0) }
        } catch {
            if inputs.count == 1 { return [.failure(error)] }
            var results: [Result<Output, any Error>] = []
            for input in inputs { results.append(contentsOf: await writeOrEachAlone([input], on: backend, write)) }
            return results
        }
    }
}

/// What a batcher reports about its queue: how many inputs wait after each change, and each refusal.
struct QueueObserver: Sendable {
    let waiting: @Sendable (Int) -> Void
    let refused: @Sendable () -> Void

    static let none = QueueObserver(waiting: { _ in }, refused: {})
}

/// A write refused because `waiting` writes already wait for the database: the caller should retry
/// shortly (HTTP 503 with Retry-After). Nothing of it was written.
public struct WriteQueueFull: Error, CustomStringConvertible {
    public let waiting: Int
    public var description: String { "\(waiting) writes are waiting for the database" }
}
