import HeraldCore
import HeraldTestSupport
import SQLKit
import Testing

@testable import HeraldStore

/// A registration batch is written inside the transaction it is given, on every backend: on PostgreSQL it
/// binds through PostgresNIO directly (`RegistrationBatch+Postgres`), on the transaction's own connection,
/// so a rollback takes it back like any other statement of the transaction.
@Suite struct RegistrationBatchTransactionTests {
    private struct RolledBack: Error {}

    @Test(arguments: StoreBackendKind.allCases)
    func aBatchIsPartOfItsTransaction(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let calls = [
                RegistrationBatch.Call(app: "shop", request: try Fixture.request("d1", channels: ["news"]), now: Fixture.t0),
                RegistrationBatch.Call(app: "shop", request: try Fixture.request("d2", channels: ["news", "sports"]), now: Fixture.t0),
            ]
            await #expect(throws: RolledBack.self) {
                try await backend.write { db in
                    // PostgreSQL hands out the session that carries its connection: the one-statement path.
                    #expect((db is PostgresSession) == (kind == .postgres))
                    let receipts = try await RegistrationBatch(calls: calls).write(db)
                    #expect(receipts.count == 2 && receipts[1].channelRegistrationIds.count == 2)
                    throw RolledBack()
                }
            }
            #expect(try await store.device(app: "shop", deviceId: "d1", now: Fixture.t0) == nil, "rolled back with its transaction")
            let receipts = try await backend.write { db in try await RegistrationBatch(calls: calls).write(db) }
            let device = try #require(try await store.device(app: "shop", deviceId: "d2", now: Fixture.t0))
            #expect(device.registrationId == receipts[1].registrationId)
            #expect(device.channels.map(\.rawValue) == ["news", "sports"])
        }
    }

    /// On PostgreSQL the batch's statement is prepared once per connection and run by name after that:
    /// three batches on one connection leave one prepared statement, run three times.
    @Test(.enabled(if: PostgresTestDatabase.serverURL != nil, "\(PostgresTestDatabase.skipMessage)"))
    func postgresPreparesTheBatchOncePerConnection() async throws {
        try await StoreBackendKind.postgres.withStore { _, backend in
            let prepared = try await backend.write { db in
                for index in 0..<3 {
                    let call = RegistrationBatch.Call(
                        app: "shop", request: try Fixture.request("d\(index)", channels: ["news"]), now: Fixture.t0)
                    _ = try await RegistrationBatch(calls: [call]).write(db)
                }
                return try await db.raw(
                    "SELECT name, generic_plans + custom_plans AS runs FROM pg_prepared_statements WHERE name LIKE 'herald%'"
                ).all().map { (try $0.decode(column: "name", as: String.self), try $0.decode(column: "runs", as: Int.self)) }
            }
            #expect(prepared.map(\.0) == [RegistrationBatch.Statement.name])
            #expect(prepared.first?.1 == 3)
        }
    }
}
