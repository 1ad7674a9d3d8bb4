import SQLKit

/// Serialises writes onto one connection and commits them in groups.
///
/// A durable commit costs an fsync (milliseconds on a virtual disk), so one transaction per request
/// caps throughput at a few hundred writes a second. Writes that arrive while a commit is running
/// queue up and go into the next transaction together (see `Batcher`). If any write in a group fails,
/// the group is rolled back and its writes are replayed one transaction each, so one bad write never
/// fails its neighbours.
final class GroupCommitter: Sendable {
    typealias Body = @Sendable (any SQLDatabase) async throws -> any Sendable

    private let batcher: Batcher<Body, any Sendable>

    init(database: any SQLDatabase, beginStatement: String = "BEGIN", maxBatch: Int = 512) {
        batcher = Batcher(maxBatch: maxBatch) { bodies in
            await Self.commit(bodies, database: database, beginStatement: beginStatement)
        }
    }

    func run<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await batcher.submit({ try await body($0) }) as! T
    }

    /// One transaction for the whole group; on any failure, each write again in a transaction of its own.
    private static func commit(_ bodies: [Body], database: any SQLDatabase, beginStatement: String) async -> [Result<
        any Sendable, any Error
    >] {
        var values: [any Sendable] = []
        values.reserveCapacity(bodies.count)
        do {
            try await database.raw(SQLQueryString(beginStatement)).run()
        } catch {
            // No transaction could start (another process held the lock past busy_timeout): replaying
            // each write would only wait that long again, once per write.
            return bodies.map { _ in .failure(error) }
        }
        do {
            for body in bodies { values.append(try await body(database)) }
            try await database.raw("COMMIT").run()
        } catch {
            try? await database.raw("ROLLBACK").run()
            if bodies.count == 1 { return [.failure(error)] }
            var results: [Result<any Sendable, any Error>] = []
            for body in bodies {
                results.append(contentsOf: await commit([body], database: database, beginStatement: beginStatement))
            }
            return results
        }
        return values.map { .success($0) }
    }
}
