import HeraldCore
import HeraldStore
import Hummingbird

/// `GET /{appId}/{apiKey}/admin/stats`: the app's delivery statistics as JSON (role admin), the series the
/// console's Overview charts, for operators' own dashboards.
struct StatsRoutes {
    let messages: any MessageStore
    let apps: AppDirectory
    let clock: any WallClock

    func add(to router: Router<HeraldRequestContext>) {
        router.requiring(.admin, apps: apps).get("/{appId}/{apiKey}/admin/stats") { request, context in
            try await stats(request, context)
        }
    }

    func stats(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let app = try context.appId()
        let query = try StatsQuery(try QueryParameters(request), now: clock.now)
        let points = try await messages.deliveryStats(app: app, from: query.from, to: query.to, step: query.step)
        return JSONBody.response(Self.json(points, query: query))
    }

    /// The answer: the window, the step, each bucket with something in it per push service, and the totals.
    static func json(_ points: [DeliveryStatsPoint], query: StatsQuery) -> JSONValue {
        let total = points.reduce(DeliveryTally()) { $0 + $1.tally }
        return .object([
            "from": .integer(query.from.milliseconds),
            "to": .integer(query.to.milliseconds),
            "step": .string(query.step.rawValue),
            "points": .array(
                points.map { point in
                    var fields = tallyFields(point.tally)
                    fields["at"] = .integer(point.at.milliseconds)
                    fields["provider"] = .string(point.provider.rawValue)
                    return .object(fields)
                }),
            "total": .object(tallyFields(total)),
        ])
    }

    static func tallyFields(_ tally: DeliveryTally) -> [String: JSONValue] {
        var failed: [String: JSONValue] = ["total": .integer(tally.failedTotal)]
        for failure in FailureClass.allCases { failed[failure.jsonKey] = .integer(tally.failed[failure] ?? 0) }
        return ["sent": .integer(tally.sent), "failed": .object(failed), "tokensRemoved": .integer(tally.tokensRemoved)]
    }
}

/// `?from=&to=&step=` of the statistics, checked: epoch milliseconds, `to` (excluded) by default the end of
/// the current bucket, `from` by default
/// an hour (step `minute`, the default) or 7 days (step `hour`) before `to`; at most 10,000 buckets.
struct StatsQuery: Sendable, Equatable {
    var from: Timestamp
    var to: Timestamp
    var step: StatsStep

    static let maxBuckets: Int64 = 10_000

    init(from: Timestamp, to: Timestamp, step: StatsStep) {
        self.from = from
        self.to = to
        self.step = step
    }

    /// The window a step shows by default: the last hour by minute, the last 7 days by hour.
    static func defaultSpan(_ step: StatsStep) -> Int64 {
        switch step {
        case .minute: 3_600_000
        case .hour: 7 * 86_400_000
        }
    }

    init(_ query: QueryParameters, now: Timestamp) throws(HeraldFault) {
        var step = StatsStep.minute
        if let text = query["step"], !text.isEmpty {
            guard let given = StatsStep(rawValue: text) else { throw .invalidParameter("step", "expected minute or hour") }
            step = given
        }
        // By default up to the end of the bucket now is in, so the current minute or hour is included.
        let to = try Self.time(query, "to") ?? step.bucket(now).adding(milliseconds: step.milliseconds)
        let from = try Self.time(query, "from") ?? to.adding(milliseconds: -Self.defaultSpan(step))
        guard from < to else { throw .invalidParameter("from", "must be before to") }
        let (span, overflow) = to.milliseconds.subtractingReportingOverflow(from.milliseconds)
        guard !overflow, span / step.milliseconds <= Self.maxBuckets else {
            throw .invalidParameter("from", "at most \(Self.maxBuckets) \(step.rawValue)s between from and to")
        }
        self.init(from: step.bucket(from), to: to, step: step)
    }

    private static func time(_ query: QueryParameters, _ name: String) throws(HeraldFault) -> Timestamp? {
        guard let text = query[name], !text.isEmpty else { return nil }
        guard let milliseconds = Int64(text), milliseconds >= 0 else {
            throw .invalidParameter(name, "expected a time in milliseconds since 1970 (a whole number)")
        }
        return Timestamp(milliseconds: milliseconds)
    }
}

extension FailureClass {
    /// Its name in JSON (`GET …/admin/stats`).
    var jsonKey: String {
        switch self {
        case .invalidToken: "invalidToken"
        case .throttled: "throttled"
        case .service: "service"
        case .auth: "auth"
        case .other: "other"
        }
    }
}
