import Foundation
import HeraldCore
import Testing

/// A Live Activity publish body → Apple's `aps` keys, checked as a device would check them.
@Suite struct LiveActivityEventTests {
    func event(_ json: String) throws(HeraldFault) -> LiveActivityEvent {
        guard case .object(let body) = try JSONValue.parse(Array(json.utf8)) else { throw .unparsable("not an object") }
        return try LiveActivityEvent(json: body)
    }

    func refusal(_ json: String) -> (code: Int, message: String)? {
        do {
            _ = try event(json)
            return nil
        } catch {
            return (error.code, error.message)
        }
    }

    func aps(_ event: LiveActivityEvent, channel: String? = nil) throws -> [String: Any] {
        let bytes = event.payload(timestamp: Timestamp(milliseconds: 1_800_000_000_123), inputPushChannel: channel)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        return try #require(root["aps"] as? [String: Any])
    }

    let start = #"""
        {"event":"start","attributesType":"MatchAttributes","attributes":{"home":"Lyon","away":"Nantes"},
         "contentState":{"score":[0,0]},"alert":{"title":"Kick-off","body":"Lyon v Nantes"},"inputPushToken":true}
        """#

    @Test func aStartCarriesApplesKeysWithTimestampInSeconds() throws {
        let parsed = try event(start)
        #expect(parsed.kind == .start)
        #expect(parsed.attributesType == "MatchAttributes")
        #expect(parsed.priority == 5)
        let aps = try aps(parsed)
        #expect(aps["event"] as? String == "start")
        #expect(aps["attributes-type"] as? String == "MatchAttributes")
        #expect(aps["timestamp"] as? Int == 1_800_000_000)
        #expect(aps["input-push-token"] as? Int == 1)
        #expect((aps["attributes"] as? [String: Any])?["home"] as? String == "Lyon")
        #expect((aps["content-state"] as? [String: Any])?["score"] as? [Int] == [0, 0])
        #expect(aps["input-push-channel"] == nil)
    }

    @Test func aStartToABoundChannelCarriesInputPushChannel() throws {
        let aps = try aps(try event(start), channel: "dHlwZQ==")
        #expect(aps["input-push-channel"] as? String == "dHlwZQ==")
    }

    @Test func anUpdateNeverCarriesInputPushChannel() throws {
        let update = try event(#"{"event":"update","attributesType":"T","contentState":{"s":1}}"#)
        #expect(try aps(update, channel: "abc")["input-push-channel"] == nil)
        #expect(try aps(update)["attributes-type"] == nil)
    }

    @Test func datesAreEpochSecondsWhateverForm() throws {
        // 2027-01-15T08:00:00Z is 1,800,000,000 s; milliseconds are told apart by size.
        let end = try event(
            #"{"event":"end","attributesType":"T","contentState":{"s":1},"staleDate":1800000600000,"dismissalDate":"2027-01-15T08:00:00Z","priority":10}"#
        )
        let aps = try aps(end)
        #expect(aps["stale-date"] as? Int == 1_800_000_600)
        #expect(aps["dismissal-date"] as? Int == 1_800_000_000)
        #expect(end.priority == 10)
        #expect(
            try self.aps(try event(#"{"event":"update","attributesType":"T","contentState":{},"staleDate":1800000060}"#))["stale-date"]
                as? Int == 1_800_000_060)
    }

    @Test func anUpdateOrEndMayNameOneActivity() throws {
        let update = try event(#"{"event":"update","attributesType":"T","activityId":"A-1","contentState":{"s":2},"relevanceScore":50}"#)
        #expect(update.activityId == "A-1")
        #expect(try aps(update)["relevance-score"] as? Int == 50)
    }

    @Test(arguments: [
        (#"{"attributesType":"T","contentState":{}}"#, 8007, "event"),
        (#"{"event":"pause","attributesType":"T","contentState":{}}"#, 8008, "event"),
        (#"{"event":"update","contentState":{}}"#, 8007, "attributesType"),
        (#"{"event":"update","attributesType":"T"}"#, 8007, "contentState"),
        (#"{"event":"start","attributesType":"T","attributes":{},"contentState":{}}"#, 8007, "alert"),
        (#"{"event":"start","attributesType":"T","alert":{"title":"x"},"contentState":{}}"#, 8007, "attributes"),
        (
            #"{"event":"start","attributesType":"T","activityId":"a","alert":{"title":"x"},"attributes":{},"contentState":{}}"#, 8008,
            "activityId"
        ),
        (#"{"event":"update","attributesType":"T","contentState":{},"attributes":{}}"#, 8008, "attributes"),
        (#"{"event":"update","attributesType":"T","contentState":{},"inputPushToken":true}"#, 8008, "inputPushToken"),
        (#"{"event":"update","attributesType":"T","contentState":{},"dismissalDate":1800000000}"#, 8008, "dismissalDate"),
        (#"{"event":"update","attributesType":"T","contentState":{"score":null}}"#, 8008, "contentState.score"),
        (#"{"event":"update","attributesType":"T","contentState":{"list":[1,null]}}"#, 8008, "contentState.list[1]"),
        (#"{"event":"update","attributesType":"T","contentState":"3-1"}"#, 8008, "contentState"),
        (#"{"event":"update","attributesType":"T","contentState":{},"staleDate":"tomorrow"}"#, 8008, "staleDate"),
        (#"{"event":"update","attributesType":"T","contentState":{},"staleDate":-5}"#, 8008, "staleDate"),
        (#"{"event":"update","attributesType":"T","contentState":{},"priority":1}"#, 8008, "priority"),
        (#"{"event":"update","attributesType":"T","contentState":{},"relevanceScore":"high"}"#, 8008, "relevanceScore"),
        (#"{"event":"update","attributesType":"T","contentState":{},"alert":"hi"}"#, 8008, "alert"),
    ])
    func aPayloadADeviceWouldDropIsRefusedNamingTheKey(body: String, code: Int, key: String) {
        let refused = refusal(body)
        #expect(refused?.code == code)
        #expect(refused?.message.contains(key) == true, "\(refused?.message ?? "accepted")")
    }

    @Test func aPayloadOverFourKilobytesIsRefused() {
        let big = String(repeating: "x", count: 4_100)
        let refused = refusal(#"{"event":"update","attributesType":"T","contentState":{"text":"\#(big)"}}"#)
        #expect(refused?.code == 8000)
        #expect(refused?.message.contains("payload") == true)
    }

    @Test func theEventSurvivesItsStoredForm() throws {
        let parsed = try event(start)
        let decoded = try JSONDecoder().decode(LiveActivityEvent.self, from: try JSONEncoder().encode(parsed))
        #expect(decoded == parsed)
    }
}
