import HeraldCore
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
}
