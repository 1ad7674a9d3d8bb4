import HeraldCore
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

/// The group-commit queue is bounded: while the database is held, registrations past the limit are
/// refused at once with `WriteQueueFull` (HTTP 503) instead of piling up, and those admitted are all
/// written once it lets go (issue 22).
@Suite struct WriteQueueLimitTests {
    @Test(arguments: StoreBackendKind.allCases)
    func registrationsPastTheLimitAreRefusedAndTheRestWritten(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let limit = 4
            let store = SQLRegistrationStore(backend: backend, writeQueueLimit: limit)
            // Batches running at once (their leaders never queue): one writer on SQLite, a few on PostgreSQL.
            let leaders = backend.dialect.kind == .postgres ? 3 : 1  // Batcher.postgresLeaders
            let refusedWanted = 5
            let total = leaders + limit + refusedWanted
            let held = AsyncStream.makeStream(of: Void.self)
            let release = AsyncStream.makeStream(of: Void.self)
            let holder = Task {
                try await backend.write { db in
                    if backend.dialect.kind == .postgres {
                        try await db.raw("LOCK TABLE registrations IN ACCESS EXCLUSIVE MODE").run()
                    }
                    held.continuation.yield()
                    var iterator = release.stream.makeAsyncIterator()
                    await iterator.next()
                }
            }
            var heldIterator = held.stream.makeAsyncIterator()
            await heldIterator.next()
            let refused = Locked(0)
            let outcomes = Task {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for n in 0..<total {
                        group.addTask {
                            do {
                                let token = "aabb" + String(String(n + 0x1000, radix: 16).suffix(4))
                                _ = try await store.register(app: "a", try Fixture.request("dev-\(n)", token: token), now: Fixture.t0)
                                return true
                            } catch let error as WriteQueueFull {
                                #expect(error.waiting == limit)
                                refused.withLock { $0 += 1 }
                                return false
                            }
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
            }
            // Submissions past the leaders and the queue are refused while the database is held (a leader
            // that starts after others queued takes them into its batch, so a few more may be admitted).
            let deadline = ContinuousClock.now + .seconds(10)
            while refused.withLock({ $0 }) < 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            try await Task.sleep(for: .milliseconds(200))
            let refusedWhileHeld = refused.withLock { $0 }
            #expect(refusedWhileHeld >= 1 && refusedWhileHeld <= refusedWanted)
            release.continuation.yield()
            try await holder.value
            let results = try await outcomes.value
            let written = results.filter { $0 }.count
            #expect(written >= leaders + limit, "every admitted registration is written")
            #expect(written + refused.withLock { $0 } == total)
            let stored = try await backend.read { db in
                try await db.raw("SELECT COUNT(*) AS n FROM registrations").first()?.decode(column: "n", as: Int.self)
            }
            #expect(stored == written)
        }
    }
}
