import SQLKit
import Synchronization

/// Serialises writes onto one connection and commits them in groups.
///
/// A durable commit costs an fsync (milliseconds on a virtual disk), so one transaction per request
/// caps throughput at a few hundred writes a second. Here, whoever arrives while no batch is running
/// becomes the leader and commits its own job plus every job that queued behind it in one transaction;
/// the others wait on a promise. When a batch ends and more jobs wait, leadership passes to the oldest
/// waiter, so no caller serves others forever. If any job in a batch fails, the batch is rolled back and
/// its jobs are replayed one transaction each, so one bad write never fails its neighbours.
/// No background task is needed: the work runs in the callers' own tasks.
final class GroupCommitter: Sendable {
    typealias Body = @Sendable (any SQLDatabase) async throws -> any Sendable

    private enum Outcome: Sendable {
        case finished(Result<any Sendable, any Error>)
        /// The previous leader is done: the receiver now runs the next batch.
        case lead
    }

    private struct Job: Sendable {
        let body: Body
        let promise: Promise<Outcome>
    }

    private struct State {
        var queue: [Job] = []
        var leaderActive = false
    }

    private let database: any SQLDatabase
    private let beginStatement: String
    private let maxBatch: Int
    private let state = Mutex(State())

    init(database: any SQLDatabase, beginStatement: String = "BEGIN", maxBatch: Int = 512) {
        self.database = database
        self.beginStatement = beginStatement
        self.maxBatch = maxBatch
    }

    func run<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let job = Job(body: { try await body($0) }, promise: Promise())
        let leads = state.withLock { state in
            state.queue.append(job)
            if state.leaderActive { return false }
            state.leaderActive = true
            return true
        }
        let result: Result<any Sendable, any Error>
        switch leads ? .lead : await job.promise.value {
        case .finished(let finished): result = finished
        case .lead: result = await lead(own: job)
        }
        return try result.get() as! T
    }

    /// Commits one batch that starts with `own`, delivers the others' results, then hands leadership
    /// on to the oldest waiter (or gives it up when nothing waits). Returns `own`'s result.
    private func lead(own: Job) async -> Result<any Sendable, any Error> {
        let batch = state.withLock { state in
            let count = min(state.queue.count, maxBatch)
            defer { state.queue.removeFirst(count) }
            return Array(state.queue.prefix(count))
        }
        precondition(batch.first?.promise === own.promise, "the leader's job heads its batch")
        let results = await commit(batch)
        for (job, result) in zip(batch, results).dropFirst() { job.promise.fulfill(.finished(result)) }
        let next: Job? = state.withLock { state in
            if state.queue.isEmpty { state.leaderActive = false }
            return state.queue.first
        }
        next?.promise.fulfill(.lead)
        return results[0]
    }

    /// One transaction for the whole batch; on any failure, each job again in a transaction of its own.
    private func commit(_ batch: [Job]) async -> [Result<any Sendable, any Error>] {
        var values: [any Sendable] = []
        values.reserveCapacity(batch.count)
        do {
            try await database.raw(SQLQueryString(beginStatement)).run()
            do {
                for job in batch { values.append(try await job.body(database)) }
                try await database.raw("COMMIT").run()
            } catch {
                try? await database.raw("ROLLBACK").run()
                throw error
            }
        } catch {
            if batch.count == 1 { return [.failure(error)] }
            var results: [Result<any Sendable, any Error>] = []
            for job in batch { results.append(contentsOf: await commit([job])) }
            return results
        }
        return values.map { .success($0) }
    }
}
