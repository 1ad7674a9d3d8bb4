import HeraldCore
import HeraldMetrics
import Hummingbird
import Prometheus

/// One server's metrics: a Prometheus registry of its own, `HeraldMetrics` reporting into it through
/// swift-metrics, and the text exposition `GET /metrics` answers with.
///
/// A registry per server, not the process-wide swift-metrics bootstrap: tests run several servers in
/// one process, and each must count only its own work.
public final class MetricsExporter: Sendable {
    let registry: PrometheusCollectorRegistry
    public let metrics: HeraldMetrics

    /// `enabled` false (`metrics.enabled`): `metrics` counts nothing.
    public init(enabled: Bool = true) {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = HeraldMetrics.durationBuckets
        factory.defaultValueHistogramBuckets = HeraldMetrics.batchBuckets
        metrics = enabled ? HeraldMetrics(factory: factory) : .disabled
    }

    /// What runs before each exposition: reports of figures counted elsewhere (a push client counts its
    /// replaced connections itself).
    private let beforeEach = Locked<[@Sendable () -> Void]>([])

    /// Runs `report` before each exposition.
    public func beforeExposition(_ report: @escaping @Sendable () -> Void) {
        beforeEach.withLock { $0.append(report) }
    }

    /// The Prometheus text format (version 0.0.4) of everything reported so far.
    public func exposition() -> String {
        for report in beforeEach.withLock({ $0 }) { report() }
        return registry.emitToString()
    }
}

/// Counts and times every request by method, route template and status. It is the outermost
/// middleware, so the status is the one the client got (after `FaultMiddleware` made errors answers).
/// Labels are bounded: the route is the matched template (`NotFound` when none matched), never the
/// path, which holds API keys and device ids; a method outside HTTP's usual ones is `other`.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: HeraldMetrics

    static var methods: Set<String> { ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let method = Self.methods.contains(request.method.rawValue) ? request.method.rawValue : "other"
        do {
            let response = try await next(request, context)
            // RT's one-segment path answers 404 to whatever is not Engine.IO (`/metrics` on the main port
            // when metrics have their own, a mistyped `/helth`): counted as nothing matched, as before RT.
            let noRoute = response.status == .notFound && context.endpointPath == RTRoutes.path.description
            metrics.request(
                method: method, route: noRoute ? "NotFound" : context.endpointPath ?? "NotFound", status: Int(response.status.code),
                duration: ContinuousClock.now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.request(
                method: method, route: context.endpointPath ?? "NotFound", status: Int(status), duration: ContinuousClock.now - start)
            throw error
        }
    }
}

/// `GET /metrics`, optionally behind a bearer token.
struct MetricsRoutes {
    let exporter: MetricsExporter
    let bearerToken: String?

    func add<Context: RequestContext>(to router: Router<Context>) {
        router.get("/metrics") { request, _ in
            if let bearerToken {
                let given = request.headers[.authorization] ?? ""
                guard Self.equalInConstantTime(given, "Bearer " + bearerToken) else {
                    var response = FaultMiddleware<Context>.response(
                        HeraldFault(code: 401, kind: .unauthenticated, message: "Metrics need Authorization: Bearer <metrics.bearerToken>"))
                    response.headers[.wwwAuthenticate] = "Bearer"
                    return response
                }
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: exporter.exposition())))
        }
    }

    /// Compares without stopping at the first difference, so the time taken tells nothing of the token.
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}
