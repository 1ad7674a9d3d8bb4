import HeraldCore
import Hummingbird

/// Operator routes (role admin).
struct AdminRoutes {
    let apps: AppDirectory
    let sweeper: Sweeper

    func add(to router: Router<some RequestContext>) {
        router.post("/{appId}/{apiKey}/admin/sweep") { _, context in try await sweep(context) }
    }

    /// Sweeps expired registrations of every app now; answers what it removed and how long it took.
    func sweep(_ context: some RequestContext) async throws -> Response {
        _ = try AppScope(context, apps: apps, requires: .admin)
        let report = try await sweeper.sweep(trigger: "admin")
        return JSONBody.response(
            .object([
                "removed": .integer(Int64(report.removed)),
                "historyPruned": .integer(Int64(report.historyPruned)),
                "durationMs": .number((report.durationMilliseconds * 1000).rounded() / 1000),
            ]))
    }
}
