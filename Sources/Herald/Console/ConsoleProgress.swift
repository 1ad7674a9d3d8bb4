import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird
import NIOCore
import ServiceLifecycle

/// Each fan-out's progress as the console shows it (a message's page, the Overview's "Running now"): a
/// progress bar of sent and failed over the devices targeted, the rate now and the time left, updated by
/// Server-Sent Events. No count of the recipients is stored, so each message's is counted once on this
/// instance, with the fan-out's own page query (`RegistrationStore.recipientCount`), and kept in memory.
extension ConsoleRoutes {
    /// Whether the message pushes at all (a pub/sub-only message has no fan-out to follow).
    static func pushes(_ message: StoredMessage) -> Bool { message.contents != nil && message.policy.pushes }

    /// The devices `message` targets: counted the first time it is asked for here (when `count`; else only
    /// what was counted before), nil when there is nothing to count (not started yet; published, whose
    /// counts are final).
    func target(_ message: StoredMessage, count: Bool) async throws -> FanOutPace.Target? {
        if message.liveActivity?.broadcast != nil { return FanOutPace.Target(count: 1, exact: true) }
        switch message.status {
        case .published: return nil
        case .scheduled where message.occurrences == 0: return nil
        default: break
        }
        let key = "\(message.app)\u{0}\(message.id)"
        var counted = targets.cached(key)?.value
        if counted == nil, count {
            counted = try await targets.value(key, now: clock.now) {
                let recipients = try await store.recipientCount(
                    app: message.app,
                    filter: RecipientFilter(
                        channel: message.channel, devices: message.singlecast, systems: countedSystems(message.broadcast, app: message.app),
                        segment: message.segment, audience: message.audience, liveActivity: message.liveActivity),
                    now: clock.now)
                return FanOutPace.Target(count: recipients.total, exact: recipients.exact)
            }.value
        }
        guard let counted else { return nil }
        // A repeating message's counts add up over its occurrences: as many recipients again for each.
        guard message.schedule.repeatEverySeconds != nil else { return counted }
        let occurrences = max(1, message.occurrences + (message.status == .running ? 1 : 0))
        return FanOutPace.Target(count: counted.count * occurrences, exact: false)
    }

    func pace(_ message: StoredMessage, rate: Double?, count: Bool) async throws -> FanOutPace {
        FanOutPace(
            counts: message.deliveries, status: message.status, target: try await target(message, count: count),
            rate: message.status == .running ? rate : nil)
    }

    /// The rate of a running message from its sends per second (nil: not running, or nothing sent yet).
    func recentRate(_ message: StoredMessage) async throws -> Double? {
        guard message.status == .running else { return nil }
        return RateWindow.rate(try await messages.sendsPerSecond(app: message.app, messageId: message.id), now: clock.now)
    }

    /// The bar and its line; `data-bar` and `data-field` are what the progress events update.
    static func progressBlock(_ pace: FanOutPace, label: String) -> HTML {
        let bar = pace.bar
        return """
            <div class="progress"><progress data-bar value="\(bar.value)" max="\(bar.max)" aria-label="\(label)">\(pace.percent)</progress>
            <span class="progress-text" data-field="progress-text">\(pace.text)</span></div>
            """
    }

    /// The fields of the bar and its line in a progress event.
    static func paceFields(_ pace: FanOutPace) -> [String: String] {
        let bar = pace.bar
        return ["bar-value": "\(bar.value)", "bar-max": "\(bar.max)", "progress-text": pace.text, "percent": pace.percent]
    }

    /// Whether the stream's session is still open (checked now and then while a stream runs, without
    /// counting as use), so a stream ends soon after its session does.
    func sessionOpen(_ console: ConsoleRequest) async -> Bool {
        (try? await sessions.session(tokenHash: console.tokenHash, now: clock.now, policy: configuration.policy, touch: false)) != nil
    }

    // MARK: Running now

    /// The fan-outs running now, each with its progress (targets only as counted before, unless `count`).
    func running(_ app: String, rates: [String: Double] = [:], count: Bool = false) async throws -> HTML {
        let page = try await messages.messages(app: app, filter: MessageFilter(statuses: [.running]), after: nil, limit: 20)
        return try await runningTable(page.messages, rates: rates, count: count)
    }

    func runningTable(_ running: [StoredMessage], rates: [String: Double], count: Bool) async throws -> HTML {
        var rows: [HTML] = []
        for message in running {
            let counts = message.deliveries
            let pace = try await pace(message, rate: rates[message.id], count: count)
            let progress: HTML =
                Self.pushes(message)
                ? Self.progressBlock(pace, label: "Progress of the message to \(message.channel.rawValue)")
                : "<span class=\"muted\">no push</span>"
            rows.append(
                """
                <tr data-message="\(message.id)"><td data-label="Message to"><a href="/console/messages/\(Self.pathSegment(message.id))">\(message.channel.rawValue)</a></td>
                <td data-label="Accepted">\(ConsolePage.time(message.createdAt))</td><td data-label="Progress" class="progress-cell">\(progress)</td>
                <td class="number" data-label="Sent" data-field="sent">\(counts.sent.grouped)</td>
                <td class="number" data-label="Failed" data-field="failed">\(counts.failed.grouped)</td>
                <td class="number" data-label="Pending" data-field="pending">\(counts.pending.grouped)</td></tr>
                """)
        }
        return ConsolePage.table(
            caption: "Fan-outs sending now: sent and failed of the devices targeted (≈: an estimate), the rate and the time left",
            headers: """
                <th scope="col">Message to</th><th scope="col">Accepted</th><th scope="col">Progress</th><th scope="col" class="number">Sent</th>
                <th scope="col" class="number">Failed</th><th scope="col" class="number">Pending</th>
                """, rows: rows, empty: "Nothing is being sent right now.", stacked: true)
    }

    /// What the Overview's running list receives: each running message's fields by id, and the list anew
    /// (`html`) when a fan-out started or ended.
    struct RunningEvent: Encodable, Equatable {
        var messages: [String: [String: String]]
        var html: String?
    }

    /// `GET /console/running/progress`: the app's running fan-outs as Server-Sent Events, every half second
    /// while any runs (every second otherwise).
    func runningProgress(_ console: ConsoleRequest) async throws -> Response {
        let app = console.session.app
        return Self.eventStream { writer in
            var windows: [String: RateWindow] = [:]
            var shown: [String]?
            var last: RunningEvent?
            let started = ContinuousClock.now
            try await pump(&writer, console) {
                let running = try await messages.messages(app: app, filter: MessageFilter(statuses: [.running]), after: nil, limit: 20)
                    .messages
                let since = (ContinuousClock.now - started).components
                let elapsed = Double(since.seconds) + Double(since.attoseconds) / 1e18
                var event = RunningEvent(messages: [:])
                var rates: [String: Double] = [:]
                for message in running {
                    if windows[message.id] == nil { windows[message.id] = RateWindow(seed: try await recentRate(message)) }
                    windows[message.id]?.add(at: elapsed, done: message.deliveries.sent + message.deliveries.failed)
                    rates[message.id] = windows[message.id]?.rate
                    var fields = Self.paceFields(try await pace(message, rate: rates[message.id], count: true))
                    fields["sent"] = message.deliveries.sent.grouped
                    fields["failed"] = message.deliveries.failed.grouped
                    fields["pending"] = message.deliveries.pending.grouped
                    event.messages[message.id] = fields
                }
                let ids = running.map(\.id)
                windows = windows.filter { ids.contains($0.key) }
                if ids != shown {
                    event.html = try await runningTable(running, rates: rates, count: true).text
                    shown = ids
                }
                defer { last = event }
                return StreamStep(
                    events: event == last ? [] : [SortedJSON.text(event)], done: false,
                    interval: running.isEmpty ? .seconds(1) : .milliseconds(500))
            }
        }
    }

    // MARK: Streams

    /// What one tick of a progress stream wrote and whether it goes on.
    struct StreamStep {
        /// Each event's data (one line of JSON).
        var events: [String]
        var done: Bool
        /// Until the next tick.
        var interval: Duration
    }

    /// An answer of Server-Sent Events written by `body`.
    static func eventStream(_ body: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void) -> Response {
        var headers: HTTPFields = [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"]
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        ConsoleCookie.secureHeaders(&headers)
        return Response(status: .ok, headers: headers, body: ResponseBody(body))
    }

    /// Runs a progress stream's ticks until one says it is done, ten minutes have passed (the browser opens it
    /// again), the session ended (looked up every 30 seconds) or the server shuts down; a comment line goes out
    /// after 15 seconds without an event, so a stream whose reader left ends at that write.
    func pump(_ writer: inout any ResponseBodyWriter, _ console: ConsoleRequest, tick: () async throws -> StreamStep) async throws {
        let started = ContinuousClock.now
        var checked = started
        var written = started
        while ContinuousClock.now - started < .seconds(600), !Task.isShuttingDownGracefully {
            if ContinuousClock.now - checked > .seconds(30) {
                guard await sessionOpen(console) else { break }
                checked = ContinuousClock.now
            }
            let step = try await tick()
            for event in step.events {
                try await writer.write(ByteBuffer(string: "data: \(event)\n\n"))
                written = ContinuousClock.now
            }
            if step.done { break }
            if ContinuousClock.now - written > .seconds(15) {
                try await writer.write(ByteBuffer(string: ": waiting\n\n"))
                written = ContinuousClock.now
            }
            try await Task.sleep(for: step.interval)
        }
        try await writer.finish(nil)
    }
}
