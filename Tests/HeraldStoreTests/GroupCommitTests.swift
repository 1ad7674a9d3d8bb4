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

    /// A write whose task is cancelled (a fan-out's heartbeat stopped mid-checkpoint) either happens or
    /// throws with nothing kept, and the writes after it still work: the transaction it ran in is never
    /// left open on the one writer connection.
    @Test(arguments: StoreBackendKind.allCases)
    func aWriteFromACancelledTaskLeavesTheWriterUsable(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            try await backend.write { db in try await db.raw("CREATE TABLE probe (n INTEGER PRIMARY KEY)").run() }
            // The caller is cancelled once its transaction has begun, as a heartbeat stopped mid-checkpoint.
            let (started, began) = AsyncStream.makeStream(of: Void.self)
            let (proceed, go) = AsyncStream.makeStream(of: Void.self)
            let cancelled = Task {
                try await backend.write { db in
                    began.yield()
                    for await _ in proceed { break }
                    try await db.raw("INSERT INTO probe (n) VALUES (1)").run()
                }
            }
            for await _ in started { break }
            cancelled.cancel()
            go.yield()
            let first = await cancelled.result
            try await backend.write { db in try await db.raw("INSERT INTO probe (n) VALUES (2)").run() }
            let kept = try await backend.read { db in
                try await db.raw("SELECT n FROM probe ORDER BY n").all().map { try $0.decode(column: "n", as: Int.self) }
            }
            switch first {
            case .success: #expect(kept == [1, 2])
            case .failure: #expect(kept == [2], "a write that threw kept nothing")
            }
        }
    }
}
