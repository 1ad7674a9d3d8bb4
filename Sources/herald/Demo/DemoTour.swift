import Foundation
import Herald
import HeraldCore
import HeraldStore
import Logging

/// The demo's script: register a mixed fleet (iOS and Android) through Herald's API, have each mock call
/// ~1% of its platform's tokens unregistered, publish one message per channel (each reaches its iOS
/// devices through APNs and its Android devices through FCM in one fan-out), follow the fan-outs, and
/// check what Herald reports against what the mocks saw. Every step says what it did; any mismatch is an error, so exit 0 means
/// the numbers printed agree.
struct DemoTour {
    let fixtures: DemoFixtures
    let deviceCount: Int
    let logger: Logger

    static let inFlight = 32

    func run() async throws {
        let started = ContinuousClock.now
        DemoFormat.say(
            "Herald demo: a real Herald, the mock APNs and the mock FCM in this process, \(DemoFormat.count(deviceCount)) fake "
                + "devices (iOS and Android) in \(DemoFleet.channels.count) channels.")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-demo-\(RandomHex.make(bytes: 6))")
        try await DemoStack.with(directory: directory, fixtures: fixtures, logger: logger) { stack in
            try await tour(stack)
        }
        guard !FileManager.default.fileExists(atPath: directory.path) else { throw DemoError("could not remove \(directory.path)") }
        DemoFormat.say(
            "Stopped Herald gracefully and the mocks; removed \(directory.path). "
                + "Whole demo: \(DemoFormat.seconds(ContinuousClock.now - started, digits: 1)).")
        DemoFormat.say("All checks passed: Herald's counts agree with the devices registered and with both mocks.")
    }

    private func tour(_ stack: DemoStack) async throws {
        DemoFormat.say("  mock APNs  \(stack.providers.apnsURL) (TLS; token auth TESTKEY001/TESTTEAM01; topic \(DemoProviders.topic))")
        DemoFormat.say("  mock FCM   \(stack.providers.fcmURL) (TLS; OAuth2 access tokens for the test service account herald-test)")
        DemoFormat.say(
            "  Herald     \(stack.herald.absoluteString) (database \(stack.database)); app '\(DemoStack.appId)' sends to both mocks")
        let http = DemoHTTP(
            base: stack.herald, connections: Self.inFlight,
            placeholders: [stack.clientKey: "$CLIENT_KEY", stack.serverKey: "$SERVER_KEY"])
        defer { http.close() }
        let fleet = try await register(stack, http)
        let invalidSince = Int64(Date().timeIntervalSince1970 * 1000) + 1
        for device in fleet.unregistered {
            stack.providers.scriptGone(token: device.token, os: device.os, since: invalidSince)
        }
        let goneAndroid = fleet.unregistered.filter { $0.os == .android }.count
        DemoFormat.say(
            "Scripted 1% of each platform's tokens to be gone: \(DemoFormat.count(fleet.unregistered.count - goneAndroid)) at the "
                + "mock APNs (410 Unregistered, dated after their registration), \(DemoFormat.count(goneAndroid)) at the mock FCM "
                + "(404 UNREGISTERED).")
        var publications = try await publish(stack, http, fleet)
        try await DemoWatch(http: http, messaging: "\(DemoStack.appId)/\(stack.serverKey)/messaging").follow(&publications)
        DemoFormat.say("")
        let report = DemoReport(publications: publications)
        for line in report.lines { DemoFormat.say(line) }
        DemoFormat.say("")
        try check(report, fleet: fleet, stack: stack)
        try await confirmRemoved(fleet.unregistered[0], stack, http)
        try await confirmRemoved(fleet.unregistered[fleet.unregistered.count - 1], stack, http)
    }

    /// A sample of the fleet registers over HTTP; the rest through Herald's store. In a debug build
    /// (`swift run`) Herald's HTTP stack handles only about 700 registrations/s, which alone would
    /// take most of the tour's 30 seconds; the store path is the same `register` call the route makes.
    private func register(_ stack: DemoStack, _ http: DemoHTTP) async throws -> DemoFleet {
        let fleet = DemoFleet(count: deviceCount)
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
        DemoFormat.say(
            "Registered \(DemoFormat.count(fleet.devices.count)) devices (\(sizes); \(DemoFormat.count(fleet.count(on: .ios))) IOS, "
                + "\(DemoFormat.count(fleet.count(on: .android))) ANDROID) in \(DemoFormat.seconds(took, digits: 1)): "
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
        let scriptedAndroid = fleet.unregistered.filter { $0.os == .android }.count
        guard total.failed == scripted, total.removed == scripted, total.androidRemoved == scriptedAndroid else {
            throw DemoError(
                "\(total.failed) failed and \(total.removed) tokens removed (\(total.androidRemoved) Android), but \(scripted) tokens "
                    + "were scripted to be gone (\(scriptedAndroid) Android)")
        }
        let apns = stack.providers.seen(.apns)
        let gone = apns.gone
        let iosRegistered = fleet.count(on: .ios)
        guard apns.accepted == total.iosSent, gone == scripted - scriptedAndroid, apns.requests == iosRegistered else {
            throw DemoError(
                "the mock APNs saw \(apns.requests) requests, accepted \(apns.accepted) and answered 410 to \(gone); Herald reports "
                    + "\(total.iosSent) sent to iOS of \(iosRegistered)")
        }
        let fcm = stack.providers.seen(.fcm)
        let unregistered = fcm.gone
        let androidRegistered = fleet.count(on: .android)
        guard fcm.accepted == total.androidSent, unregistered == scriptedAndroid, fcm.requests == androidRegistered else {
            throw DemoError(
                "the mock FCM saw \(fcm.requests) sends, accepted \(fcm.accepted) and answered UNREGISTERED to \(unregistered); "
                    + "Herald reports \(total.androidSent) sent to Android of \(androidRegistered)")
        }
        DemoFormat.say(
            "The mock APNs agrees: \(DemoFormat.count(apns.requests)) requests, \(DemoFormat.count(apns.accepted)) accepted, "
                + "\(DemoFormat.count(gone)) answered 410 Unregistered, over \(apns.connectionsOpened) TLS connections.")
        DemoFormat.say(
            "The mock FCM agrees: \(DemoFormat.count(fcm.requests)) sends, \(DemoFormat.count(fcm.accepted)) accepted, "
                + "\(DemoFormat.count(unregistered)) answered UNREGISTERED, \(fcm.tokenRequests) access token fetched for all of them.")
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
