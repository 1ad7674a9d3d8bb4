import APNsMock
import Foundation
import HeraldCurl
import HeraldTestSupport
import Testing

/// Live Activity token pushes on the mock (the reference's items 14 and 15): the wire checks, and the
/// payload check a device makes, which the mock keeps apart from the 200 APNs answers.
@Suite struct LiveActivityMockTests {
    static let token = Fixtures.token(7)
    static let laTopic = "apns-topic: \(BroadcastMockHarness.topic).push-type.liveactivity"
    static let update = #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"score":1}}}"#

    static func headers(priority: String = "10", topic: String = laTopic) -> [String] {
        ["apns-push-type: liveactivity", topic, "apns-priority: \(priority)"]
    }

    @Test func tokenPushWireChecks() async throws {
        let harness = try await BroadcastMockHarness.start()
        let plainTopic = try await harness.device(
            Self.token, headers: Self.headers(topic: "apns-topic: \(BroadcastMockHarness.topic)"), body: Self.update)
        #expect(plainTopic.status == 400 && reason(plainTopic) == "BadTopic")
        let priorityOne = try await harness.device(Self.token, headers: Self.headers(priority: "1"), body: Self.update)
        #expect(priorityOne.status == 400 && reason(priorityOne) == "BadPriority")
        for priority in ["5", "10"] {
            #expect(try await harness.device(Self.token, headers: Self.headers(priority: priority), body: Self.update).status == 200)
        }
        let prefix = #"{"aps":{"event":"update"},"pad":""#
        let large = prefix + String(repeating: "a", count: 4097 - prefix.utf8.count - 2) + #""}"#
        let tooLarge = try await harness.device(Self.token, headers: Self.headers(), body: large)
        #expect(tooLarge.status == 413 && reason(tooLarge) == "PayloadTooLarge")
        #expect(harness.mock.notifications().count == 2)
        try await harness.shutdown()
    }

    @Test func payloadShapeIsCheckedAsADeviceWouldApartFromTheStatus() async throws {
        let harness = try await BroadcastMockHarness.start()
        let cases: [(payload: String, problem: String?)] = [
            (Self.update, nil),
            (#"{"aps":{"timestamp":1700000000,"content-state":{}}}"#, "aps.event is missing"),
            (#"{"aps":{"event":"pause","timestamp":1700000000,"content-state":{}}}"#, "is not start, update or end"),
            (#"{"aps":{"event":"update","content-state":{}}}"#, "aps.timestamp is missing"),
            (#"{"aps":{"event":"update","timestamp":"2026-12-05T12:00:00Z","content-state":{}}}"#, "aps.timestamp is not a number"),
            (#"{"aps":{"event":"update","timestamp":1764936000000,"content-state":{}}}"#, "aps.timestamp looks like milliseconds"),
            (#"{"aps":{"event":"update","timestamp":1700000000.5,"content-state":{}}}"#, "aps.timestamp is not an integer"),
            (#"{"aps":{"event":"update","timestamp":1700000000,"stale-date":"tomorrow","content-state":{}}}"#, "aps.stale-date"),
            (
                #"{"aps":{"event":"end","timestamp":1700000000,"dismissal-date":1764936000000,"content-state":{}}}"#,
                "aps.dismissal-date looks like milliseconds"
            ),
            (
                #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"score":null}}}"#,
                "payload.aps.content-state.score is null"
            ),
            (#"{"aps":{"event":"update","timestamp":1700000000}}"#, "aps.content-state is missing"),
            (#"{"aps":{"event":"end","timestamp":1700000000}}"#, "aps.content-state is missing"),
            (
                #"{"aps":{"event":"start","timestamp":1700000000,"content-state":{},"attributes-type":"Match","attributes":{}}}"#,
                "aps.alert is missing on start"
            ),
            (
                #"{"aps":{"event":"start","timestamp":1700000000,"content-state":{},"alert":{},"attributes":{}}}"#,
                "aps.attributes-type is missing on start"
            ),
            (
                #"{"aps":{"event":"start","timestamp":1700000000,"content-state":{},"alert":{},"attributes-type":"Match"}}"#,
                "aps.attributes is missing on start"
            ),
            (
                #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{},"attributes-type":"Match"}}"#,
                "aps.attributes-type is only for start"
            ),
            (
                #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{},"input-push-token":1}}"#,
                "aps.input-push-token is only for start"
            ),
        ]
        for (payload, _) in cases {
            let response = try await harness.device(Self.token, headers: Self.headers(), body: payload)
            #expect(response.status == 200, "APNs itself accepts \(payload)")
        }
        let checks = harness.mock.liveActivityChecks()
        #expect(checks.count == cases.count)
        for (check, (payload, problem)) in zip(checks, cases) {
            #expect(check.route == .token && check.target == Self.token && check.payload == payload)
            if let problem {
                #expect(check.problems.contains { $0.contains(problem) }, "\(payload): \(check.problems)")
            } else {
                #expect(check.problems.isEmpty, "\(check.problems)")
            }
        }
        // An alert push is not a Live Activity: nothing to check.
        _ = try await harness.device(Self.token, headers: ["apns-topic: \(BroadcastMockHarness.topic)"], body: #"{"aps":{"alert":"hi"}}"#)
        #expect(harness.mock.liveActivityChecks().count == cases.count)
        try await harness.shutdown()
    }

    @Test func theControlPortShowsChannelsBroadcastsAndChecksAndSwitchesTheCapability() async throws {
        let harness = try await BroadcastMockHarness.start(controlPort: 0)
        let control = "http://127.0.0.1:\(try #require(harness.mock.controlPort))"
        let channel = try await harness.createChannel(policy: 0)
        _ = try await harness.broadcast(headers: BroadcastMockHarness.broadcastHeaders(channel: channel), body: Self.update)

        let channels = try await HTTP.send("GET", URL(string: control + "/control/channels")!)
        #expect(channels.status == 200 && channels.body.contains(channel) && channels.body.contains(#""storagePolicy":0"#))
        let broadcasts = try await HTTP.send("GET", URL(string: control + "/control/broadcasts")!)
        #expect(broadcasts.status == 200 && broadcasts.body.contains(#""channelID":"\#(channel)""#))
        let checks = try await HTTP.send("GET", URL(string: control + "/control/live-activities")!)
        #expect(checks.status == 200 && checks.body.contains(#""route":"broadcast""#))

        let off = try await HTTP.send(
            "POST", URL(string: control + "/control/broadcast-capability")!,
            json: #"{"bundle":"\#(BroadcastMockHarness.topic)","enabled":false}"#)
        #expect(off.status == 200)
        let refused = try await harness.manage("GET", "/1/apps/\(BroadcastMockHarness.topic)/all-channels")
        #expect(reason(refused) == "FeatureNotEnabled")
        #expect(harness.mock.channels().isEmpty)

        let reset = try await HTTP.send("POST", URL(string: control + "/control/reset")!)
        #expect(reset.status == 200)
        #expect(harness.mock.broadcasts().isEmpty && harness.mock.liveActivityChecks().isEmpty)
        #expect(try await harness.manage("GET", "/1/apps/\(BroadcastMockHarness.topic)/all-channels").status == 200)
        try await harness.shutdown()
    }
}
