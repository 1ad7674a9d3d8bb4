import Foundation
import Herald
import HeraldCore
import HeraldStore
import Logging

/// The demo's script: register a mixed fleet (iOS, Android and web browsers) through Herald's API, have
/// each mock call ~1% of its platform's tokens gone, publish one message per channel (each reaches its
/// iOS devices through APNs, its Android devices through FCM and its browsers through Web Push in one
/// fan-out), follow the fan-outs, check what Herald reports against what the mocks saw, then run a Live
/// Activity through an APNs broadcast channel (DemoTour+LiveActivities.swift). Every step
/// says what it did; any mismatch is an error, so exit 0 means the numbers printed agree.
struct DemoTour {
    let fixtures: DemoFixtures
    let deviceCount: Int
    let logger: Logger

    static let inFlight = 32

    func run() async throws {
        let started = ContinuousClock.now
        DemoFormat.say(
            "Herald demo: a real Herald, the mock APNs, the mock FCM and the mock Web Push service in this process, "
                + "\(DemoFormat.count(deviceCount)) fake devices (iOS, Android and web browsers) in \(DemoFleet.channels.count) channels.")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-demo-\(RandomHex.make(bytes: 6))")
        try await DemoStack.with(directory: directory, fixtures: fixtures, logger: logger) { stack in
            try await tour(stack)
        }
        guard !FileManager.default.fileExists(atPath: directory.path) else { throw DemoError("could not remove \(directory.path)") }
        DemoFormat.say(
            "Stopped Herald gracefully and the mocks; removed \(directory.path). "
                + "Whole demo: \(DemoFormat.seconds(ContinuousClock.now - started, digits: 1)).")
        DemoFormat.say("All checks passed: Herald's counts agree with the devices registered and with every mock.")
    }

    private func tour(_ stack: DemoStack) async throws {
        let width = PushProvider.allCases.map { "mock \($0.displayName)".count }.max() ?? 0
        for provider in PushProvider.allCases {
            DemoFormat.say(
                "  \(DemoFormat.left("mock \(provider.displayName)", width))  \(stack.providers.url(provider)) (\(Self.about(provider)))")
        }
        DemoFormat.say(
            "  \(DemoFormat.left("Herald", width))  \(stack.herald.absoluteString) (database \(stack.database)); app '\(DemoStack.appId)' "
                + "sends to every mock")
        let http = DemoHTTP(
            base: stack.herald, connections: Self.inFlight,
            placeholders: [stack.clientKey: "$CLIENT_KEY", stack.serverKey: "$SERVER_KEY", stack.adminKey: "$ADMIN_KEY"])
        defer { http.close() }
        let fleet = try await register(stack, http)
        let invalidSince = Int64(Date().timeIntervalSince1970 * 1000) + 1
        for device in fleet.unregistered {
            stack.providers.scriptGone(token: device.token, os: device.os, since: invalidSince)
        }
        let scripted = PushProvider.allCases.map { provider in
            "\(DemoFormat.count(fleet.unregistered(through: provider).count)) at the mock \(provider.displayName) (\(Self.gone(provider)))"
        }
        DemoFormat.say("Scripted 1% of each platform's tokens to be gone: \(Self.list(scripted)).")
        var publications = try await publish(stack, http, fleet)
        try await DemoWatch(http: http, messaging: "\(DemoStack.appId)/\(stack.serverKey)/messaging").follow(&publications)
        DemoFormat.say("")
        let report = DemoReport(publications: publications)
        for line in report.lines { DemoFormat.say(line) }
        DemoFormat.say("")
        try check(report, fleet: fleet, stack: stack)
        for os in DemoFleet.platforms {
            if let device = fleet.unregistered.first(where: { $0.os == os }) { try await confirmRemoved(device, stack, http) }
        }
        try await liveActivities(stack, http)
    }

    /// A sample of the fleet registers over HTTP; the rest through Herald's store. In a debug build
    /// (`swift run`) Herald's HTTP stack handles only about 700 registrations/s, which alone would
    /// take most of the tour's 30 seconds; the store path is the same `register` call the route makes.
    private func register(_ stack: DemoStack, _ http: DemoHTTP) async throws -> DemoFleet {
        let fleet = DemoFleet(count: deviceCount, webSubscription: stack.providers.webSubscription)
        let start = ContinuousClock.now
        let sample = fleet.overHTTP
        try await fleet.register(sample, through: http, app: DemoStack.appId, clientKey: stack.clientKey, inFlight: Self.inFlight)
        let overHTTP = ContinuousClock.now - start
        let rest = fleet.throughStore
        try await HeraldRuntime.withMigrated(stack.database, logger: logger) { backend in
            try await fleet.register(rest, into: SQLRegistrationStore(backend: backend), app: DemoStack.appId, inFlight: 64)
        }
        let took = ContinuousClock.now - start
        let sizes = DemoFleet.channels.map { "\($0.name) \(DemoFormat.count(fleet.count(in: $0.name)))" }.joined(separator: ", ")
        let platforms = DemoFleet.platforms.map { "\(DemoFormat.count(fleet.count(on: $0))) \($0.rawValue)" }.joined(separator: ", ")
        DemoFormat.say(
            "Registered \(DemoFormat.count(fleet.devices.count)) devices (\(sizes); \(platforms)) in \(DemoFormat.seconds(took, digits: 1)): "
                + "\(DemoFormat.count(sample.count)) with POST /demo/$CLIENT_KEY/messaging/registrations (\(Self.inFlight) in flight, "
                + "\(DemoFormat.seconds(overHTTP, digits: 1))), \(DemoFormat.count(rest.count)) written straight into Herald's "
                + "database by the same code that route runs (faster than HTTP for so many).")
        return fleet
    }

    private func publish(_ stack: DemoStack, _ http: DemoHTTP, _ fleet: DemoFleet) async throws -> [DemoPublication] {
        var publications: [DemoPublication] = []
        for channel in DemoFleet.channels.map(\.name) {
            let at = ContinuousClock.now
            let answer = try await http.call(
                "POST", "\(DemoStack.appId)/\(stack.serverKey)/messaging/\(channel)",
                json: [
                    "message": "Today's \(channel), from the Herald demo",
                    "headers": ["ios-alert-title": "Herald demo: \(channel)", "android-content-title": "Herald demo: \(channel)"],
                ], as: DemoPublication.Published.self)
            publications.append(
                DemoPublication(
                    channel: channel, messageId: answer.messageId, registered: fleet.count(in: channel),
                    publishedAt: at))
            DemoFormat.say(
                "Published \(answer.messageId) to '\(channel)' with POST /demo/$SERVER_KEY/messaging/\(channel): \(answer.status).")
        }
        DemoFormat.say("Fan-out (GET /demo/$SERVER_KEY/messaging/{messageId} every 250 ms; sent + failed of the devices registered):")
        return publications
    }

    /// Herald's counts must add up, match the fleet, and match what the mock answered.
    private func check(_ report: DemoReport, fleet: DemoFleet, stack: DemoStack) throws {
        for (row, publication) in zip(report.rows, report.publications) {
            guard row.targeted == publication.registered, row.sent + row.failed == row.targeted,
                publication.last?.deliveries.pending == 0
            else {
                throw DemoError(
                    "'\(row.name)': \(row.targeted) targeted, \(row.sent) sent, \(row.failed) failed, but \(publication.registered) registered"
                )
            }
        }
        let total = report.total
        let scripted = fleet.unregistered.count
        guard total.failed == scripted, total.removed == scripted,
            PushProvider.allCases.allSatisfy({ total.removed(through: $0) == fleet.unregistered(through: $0).count })
        else {
            let removed = PushProvider.allCases.map { "\(total.removed(through: $0)) \(DemoReport.platformName($0))" }
            let gone = PushProvider.allCases.map { "\(fleet.unregistered(through: $0).count) \(DemoReport.platformName($0))" }
            throw DemoError(
                "\(total.failed) failed and \(total.removed) tokens removed (\(removed.joined(separator: ", "))), but \(scripted) "
                    + "tokens were scripted to be gone (\(gone.joined(separator: ", ")))")
        }
        for provider in PushProvider.allCases {
            let seen = stack.providers.seen(provider)
            let registered = fleet.count(through: provider)
            let gone = fleet.unregistered(through: provider).count
            guard seen.accepted == total.sent(through: provider), seen.gone == gone, seen.requests == registered else {
                throw DemoError(
                    "the mock \(provider.displayName) saw \(seen.requests) requests, accepted \(seen.accepted) and answered "
                        + "\(Self.gone(provider)) to \(seen.gone) (\(gone) scripted); Herald reports \(total.sent(through: provider)) "
                        + "sent to \(DemoReport.platformName(provider)) of \(registered)")
            }
            DemoFormat.say(Self.agrees(provider, seen))
        }
    }

    /// A device whose token was reported gone must be gone from Herald: its registration GET answers 404.
    private func confirmRemoved(_ device: DemoFleet.Device, _ stack: DemoStack, _ http: DemoHTTP) async throws {
        let (status, body) = try await http.send("GET", "\(DemoStack.appId)/\(stack.clientKey)/messaging/registrations/\(device.id)")
        guard status == 404 else {
            throw DemoError(
                "\(device.id)'s token was reported gone but GET of its registration answered \(status): \(String(decoding: body.prefix(200), as: UTF8.self))"
            )
        }
        DemoFormat.say(
            "GET /demo/$CLIENT_KEY/messaging/registrations/\(device.id) (\(device.os.rawValue); its token was reported gone) → 404 \(String(decoding: body, as: UTF8.self)): removed."
        )
    }
}
