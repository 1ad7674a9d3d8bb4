import HeraldCore
import Hummingbird

/// Liveness and readiness for load balancers and orchestrators. No key: they reveal nothing but
/// whether the instance can serve, and why not.
struct HealthRoutes {
    let readiness: Readiness

    func add(to router: Router<HeraldRequestContext>) {
        // Liveness: the process answers HTTP.
        router.get("/health") { _, _ in JSONBody.response(.object(["status": .string("ok")])) }
        // Readiness: the database answers a read, its schema is current, and the instance is not draining.
        router.get("/ready") { _, _ in
            guard let problem = await readiness.problem() else { return JSONBody.response(.object(["status": .string("ready")])) }
            return FaultMiddleware<HeraldRequestContext>.response(
                HeraldFault(code: 503, kind: .unavailable, message: "Not ready: \(problem)"), status: .serviceUnavailable)
        }
    }
}
