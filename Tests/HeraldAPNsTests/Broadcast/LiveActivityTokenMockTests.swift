import APNsMock
import Foundation
import HeraldCurl
import HeraldTestSupport
import Testing

/// The mock's token kinds (the reference's item 15): the tokens a test tells it about, APNs's wire answers
/// for them (another app, the other environment, a dead token), the device's own check of which kind of
/// token a Live Activity push went to (apart from the 200), and the update token it issues after a start.
@Suite struct LiveActivityTokenMockTests {
    static let topic = BroadcastMockHarness.topic
    static let startToken = Fixtures.token(0x51)
    static let updateToken = Fixtures.token(0xa1)
    static let deviceToken = Fixtures.token(0xd1)

    static func headers(topic: String = topic) -> [String] {
        ["apns-push-type: liveactivity", "apns-topic: \(topic).push-type.liveactivity", "apns-priority: 10"]
    }

    static func start(type: String = "MatchAttributes", extra: String = #","input-push-token":1"#) -> String {
        #"{"aps":{"event":"start","timestamp":1700000000,"content-state":{"home":0},"alert":{"title":"Kick-off"},"#
            + #""attributes-type":"\#(type)","attributes":{"home":"Lyon"}\#(extra)}}"#
    }

    static let update = #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"home":1}}}"#
    static let end = #"{"aps":{"event":"end","timestamp":1700000000,"content-state":{"home":2},"dismissal-date":1700000600}}"#

    @Test func knownTokensGetApnsAnswersForAnotherAppTheOtherEnvironmentAndDeath() async throws {
        let harness = try await BroadcastMockHarness.start()
        try harness.mock.register(.pushToStart(Self.startToken, attributesType: "MatchAttributes", bundleID: Self.topic))
        try harness.mock.register(.device(Self.deviceToken.uppercased(), bundleID: Self.topic))
        let production = Fixtures.token(0xe1)
        try harness.mock.register(.update(production, activityId: "A", bundleID: Self.topic, environment: .production))
        let dead = Fixtures.token(0xde)
        try harness.mock.register(.update(dead, activityId: "B", bundleID: Self.topic).unregistered(at: 1_700_000_123_456))

        let otherApp = try await harness.device(
            Self.startToken, headers: Self.headers(topic: BroadcastMockHarness.otherTopic), body: Self.start())
        #expect(otherApp.status == 400 && reason(otherApp) == "DeviceTokenNotForTopic")
        // The device token too (the check is the token's app, whatever the push type).
        let alert = try await harness.device(
            Self.deviceToken, headers: ["apns-topic: \(BroadcastMockHarness.otherTopic)"], body: #"{"aps":{"alert":"hi"}}"#)
        #expect(alert.status == 400 && reason(alert) == "DeviceTokenNotForTopic")
        #expect(
            try await harness.device(Self.deviceToken, headers: ["apns-topic: \(Self.topic)"], body: #"{"aps":{"alert":"hi"}}"#).status
                == 200)

        let otherEnvironment = try await harness.device(production, headers: Self.headers(), body: Self.update)
        #expect(otherEnvironment.status == 400 && reason(otherEnvironment) == "BadDeviceToken")
        let gone = try await harness.device(dead, headers: Self.headers(), body: Self.update)
        #expect(gone.status == 410 && reason(gone) == "Unregistered")
        #expect(object(gone)?["timestamp"] as? Int == 1_700_000_123_456)

        // A token it was told nothing of is taken for any app, as before.
        let unknown = try await harness.device(
            Fixtures.token(0x77), headers: Self.headers(topic: BroadcastMockHarness.otherTopic), body: Self.update)
        #expect(unknown.status == 200)
        #expect(harness.mock.liveActivityChecks().map(\.tokenKind) == [nil])
        #expect(harness.mock.stats().byReason == ["DeviceTokenNotForTopic": 2, "BadDeviceToken": 1, "Unregistered": 1])
        #expect(harness.mock.tokens().map(\.token) == [Self.startToken, Self.deviceToken, production, dead])
        #expect(harness.mock.tokens()[0].environment == .sandbox)
        #expect(throws: APNsMockError.self) { try harness.mock.register(.update("xyz", activityId: "A", bundleID: Self.topic)) }
        #expect(throws: APNsMockError.self) { try harness.mock.register(.pushToStart("ab", attributesType: "", bundleID: Self.topic)) }
        try await harness.shutdown()
    }

    @Test func eachEventMustGoToItsKindOfTokenOrTheDeviceDropsIt() async throws {
        let harness = try await BroadcastMockHarness.start()
        try harness.mock.register(.pushToStart(Self.startToken, attributesType: "MatchAttributes", bundleID: Self.topic))
        try harness.mock.register(.update(Self.updateToken, activityId: "A-1", attributesType: "MatchAttributes", bundleID: Self.topic))
        try harness.mock.register(.device(Self.deviceToken, bundleID: Self.topic))
        let cases: [(token: String, payload: String, problem: String?)] = [
            (Self.startToken, Self.start(extra: ""), nil),
            (Self.updateToken, Self.update, nil),
            (Self.startToken, Self.update, "aps.event update goes to an activity's update token, not a push-to-start token"),
            (Self.startToken, Self.end, "aps.event end goes to an activity's update token"),
            (Self.updateToken, Self.start(), "aps.event start goes to a push-to-start token, not an activity's update token"),
            (
                Self.startToken, Self.start(type: "DeliveryAttributes"),
                "aps.attributes-type DeliveryAttributes is not the push-to-start token's type MatchAttributes"
            ),
            (Self.deviceToken, Self.update, "not the app's device token"),
        ]
        for (token, payload, _) in cases {
            #expect(try await harness.device(token, headers: Self.headers(), body: payload).status == 200, "APNs itself accepts it")
        }
        let checks = harness.mock.liveActivityChecks()
        #expect(checks.map(\.tokenKind) == [.pushToStart, .update, .pushToStart, .pushToStart, .update, .pushToStart, .device])
        for (check, (_, payload, problem)) in zip(checks, cases) {
            if let problem {
                #expect(check.problems.contains { $0.contains(problem) }, "\(payload): \(check.problems)")
            } else {
                #expect(check.problems.isEmpty, "\(payload): \(check.problems)")
            }
        }
        // None of them asked for an update token; the refused start would not have given one anyway.
        #expect(harness.mock.issuedTokens().isEmpty)
        try await harness.shutdown()
    }

    @Test func aStartWithInputPushTokenIssuesAnUpdateTokenForTheStartedActivity() async throws {
        let harness = try await BroadcastMockHarness.start()
        try harness.mock.register(.pushToStart(Self.startToken, attributesType: "MatchAttributes", bundleID: Self.topic))
        let ios17 = Fixtures.token(0x17)
        try harness.mock.register(.pushToStart(ios17, attributesType: "MatchAttributes", bundleID: Self.topic, ios: 17))

        // Not issued: a start without the key (iOS 18), one a device drops, `true` for 1.
        for payload in [
            Self.start(extra: ""), Self.start(extra: #","input-push-token":1,"relevance-score":null"#),
            Self.start(extra: #","input-push-token":true"#),
        ] {
            #expect(try await harness.device(Self.startToken, headers: Self.headers(), body: payload).status == 200)
        }
        #expect(harness.mock.issuedTokens().isEmpty)
        #expect(harness.mock.liveActivityChecks()[2].problems == ["aps.input-push-token is not the number 1"])

        let started = try await harness.device(Self.startToken, headers: Self.headers(), body: Self.start())
        #expect(started.status == 200)
        let issued = try #require(harness.mock.issuedTokens().first)
        #expect(issued.startToken == Self.startToken && issued.attributesType == "MatchAttributes" && issued.bundleID == Self.topic)
        #expect(issued.environment == .sandbox && issued.apnsID == started.headers["apns-id"])
        #expect(UUID(uuidString: issued.activityId) != nil && issued.token.count == 64 && issued.token == issued.token.lowercased())
        #expect(
            harness.mock.tokens().last
                == .update(
                    issued.token, activityId: issued.activityId, attributesType: "MatchAttributes", bundleID: Self.topic,
                    environment: .sandbox))

        // The issued token takes the activity's update and end; after the end the device ignores it.
        for payload in [Self.update, Self.end, Self.update] {
            #expect(try await harness.device(issued.token, headers: Self.headers(), body: payload).status == 200)
        }
        let last = harness.mock.liveActivityChecks().suffix(3)
        #expect(last.map(\.tokenKind) == [.update, .update, .update])
        #expect(last.map(\.problems.isEmpty) == [true, true, false])
        #expect(last.last?.problems == ["activity \(issued.activityId) has ended: a device ignores pushes after its end"])
        // Its app is the start token's: another topic is refused on the wire.
        let otherApp = try await harness.device(
            issued.token, headers: Self.headers(topic: BroadcastMockHarness.otherTopic), body: Self.update)
        #expect(reason(otherApp) == "DeviceTokenNotForTopic")

        // Before iOS 18 every start gives a token; input-push-channel stops the start.
        #expect(try await harness.device(ios17, headers: Self.headers(), body: Self.start(extra: "")).status == 200)
        #expect(
            try await harness.device(ios17, headers: Self.headers(), body: Self.start(extra: #","input-push-channel":"AAAA""#)).status
                == 200)
        #expect(harness.mock.issuedTokens().map(\.startToken) == [Self.startToken, ios17])
        #expect(
            harness.mock.liveActivityChecks().last?.problems == [
                "aps.input-push-channel needs iOS 18: on iOS 17 the activity does not start"
            ])
        try await harness.shutdown()
    }

    @Test func theControlPortRegistersTokensAndListsTheIssuedOnes() async throws {
        let harness = try await BroadcastMockHarness.start(controlPort: 0)
        let control = "http://127.0.0.1:\(try #require(harness.mock.controlPort))/control"
        let registered = try await HTTP.send(
            "POST", URL(string: control + "/tokens")!,
            json:
                #"{"token":"\#(Self.startToken.uppercased())","kind":"pushToStart","bundleID":"\#(Self.topic)","attributesType":"MatchAttributes"}"#
        )
        #expect(registered.status == 200)
        let dead = try await HTTP.send(
            "POST", URL(string: control + "/tokens")!,
            json:
                #"{"token":"\#(Self.updateToken)","kind":"update","bundleID":"\#(Self.topic)","activityId":"A","unregisteredAt":1700000000000}"#
        )
        #expect(dead.status == 200)
        for bad in [
            #"{"token":"zz","kind":"device","bundleID":"b"}"#, #"{"token":"ab","kind":"update","bundleID":"b"}"#,
            #"{"token":"ab","kind":"later","bundleID":"b"}"#, #"{"token":"ab","kind":"device"}"#,
        ] {
            #expect(try await HTTP.send("POST", URL(string: control + "/tokens")!, json: bad).status == 400, "\(bad)")
        }
        let listed = try await HTTP.send("GET", URL(string: control + "/tokens")!)
        #expect(listed.body.contains(#""token":"\#(Self.startToken)""#) && listed.body.contains(#""environment":"sandbox""#))

        #expect(try await harness.device(Self.startToken, headers: Self.headers(), body: Self.start()).status == 200)
        let gone = try await harness.device(Self.updateToken, headers: Self.headers(), body: Self.update)
        #expect(gone.status == 410 && object(gone)?["timestamp"] as? Int == 1_700_000_000_000)
        let issued = try await HTTP.send("GET", URL(string: control + "/issued-tokens?startToken=\(Self.startToken.uppercased())")!)
        let items = try #require(try JSONSerialization.jsonObject(with: Data(issued.body.utf8)) as? [[String: Any]])
        #expect(items.count == 1 && items.first?["activityId"] as? String == harness.mock.issuedTokens().first?.activityId)
        let none = try await HTTP.send("GET", URL(string: control + "/issued-tokens?startToken=ab")!)
        #expect(none.body == "[]")

        #expect(try await HTTP.send("POST", URL(string: control + "/reset")!).status == 200)
        #expect(harness.mock.tokens().isEmpty && harness.mock.issuedTokens().isEmpty)
        #expect(try await harness.device(Self.updateToken, headers: Self.headers(), body: Self.update).status == 200)
        try await harness.shutdown()
    }
}
