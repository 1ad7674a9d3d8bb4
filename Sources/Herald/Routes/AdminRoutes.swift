import HeraldCore
import Hummingbird

/// Operator routes (role admin).
struct AdminRoutes {
    let apps: AppDirectory
    let sweeper: Sweeper

    func add(to router: Router<HeraldRequestContext>) {
        router.requiring(.admin, apps: apps).post("/{appId}/{apiKey}/admin/sweep") { _, context in try await sweep(context) }
    }

    /// Sweeps expired registrations of every app now; answers what it removed and how long it took.
    func sweep(_ context: HeraldRequestContext) async throws -> Response {
        // The caller's app only: one app's admin key must not touch another app's data.
        let report = try await sweeper.sweep(trigger: "admin", app: try context.appId())
        return JSONBody.response(
            .object([
                "removed": .integer(Int64(report.removed)),
                "historyPruned": .integer(Int64(report.historyPruned)),
                "messagesPruned": .integer(Int64(report.messagesPruned)),
                "channelsRemoved": .integer(Int64(report.channelsRemoved)),
                "liveActivitiesRemoved": .integer(Int64(report.liveActivitiesRemoved)),
                "idempotencyKeysRemoved": .integer(Int64(report.idempotencyKeysRemoved)),
                "durationMs": .number((report.durationMilliseconds * 1000).rounded() / 1000),
            ]))
    }
}
