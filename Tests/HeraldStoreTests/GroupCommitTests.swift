import HeraldStore
import SQLKit
import Testing

/// Writes that share a group commit stay independent: a failing one takes nothing else down with it.
@Suite struct GroupCommitTests {
    struct Boom: Error {}

    @Test(arguments: StoreBackendKind.allCases)
    func aFailingWriteRollsBackOnlyItself(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            try await backend.write { db in try await db.raw("CREATE TABLE probe (n INTEGER PRIMARY KEY)").run() }
            let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for n in 0..<200 {
                    group.addTask {
                        do {
                            try await backend.write { db in
                                try await db.raw("INSERT INTO probe (n) VALUES (\(bind: n))").run()
                                if n % 7 == 0 { throw Boom() }
                            }
                            return (n, true)
                        } catch is Boom {
                            return (n, false)
                        }
                    }
                }
                return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            let kept = try await backend.read { db in
                try await db.raw("SELECT n FROM probe ORDER BY n").all().map { try $0.decode(column: "n", as: Int.self) }
            }
            #expect(outcomes.count == 200)
            #expect(outcomes.filter { !$0.value }.keys.sorted() == Array(stride(from: 0, to: 200, by: 7)))
            #expect(kept == (0..<200).filter { $0 % 7 != 0 }, "exactly the writes that succeeded are stored")
        }
    }

    /// A writer whose task is cancelled mid-transaction (a fan-out stopping) must not leave the write
    /// connection inside a transaction: before the fix, its ROLLBACK was refused too and every later
    /// write failed with "cannot start a transaction within a transaction".
    @Test(arguments: StoreBackendKind.allCases)
    func aCancelledWriterLeavesNoTransactionBehind(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            try await backend.write { db in try await db.raw("CREATE TABLE probe (n INTEGER PRIMARY KEY)").run() }
            let started = AsyncStream.makeStream(of: Void.self)
            let writer = Task {
                try await backend.write { db in
                    try await db.raw("INSERT INTO probe (n) VALUES (1)").run()
                    started.continuation.yield()
                    try? await Task.sleep(for: .milliseconds(100))
                    try await db.raw("INSERT INTO probe (n) VALUES (2)").run()
                }
            }
            var iterator = started.stream.makeAsyncIterator()
            await iterator.next()
            writer.cancel()
            _ = try? await writer.value
            try await backend.write { db in try await db.raw("INSERT INTO probe (n) VALUES (3)").run() }
            let kept = try await backend.read { db in
                try await db.raw("SELECT n FROM probe ORDER BY n").all().map { try $0.decode(column: "n", as: Int.self) }
            }
            #expect(kept.contains(3), "the write after the cancelled one went through")
            #expect(kept == [1, 2, 3] || kept == [3], "the cancelled write is all or nothing: \(kept)")
        }
    }
}
