import Foundation
import HeraldCore
import Testing

/// The publish body rules and the header → APNs payload mapping of the contract.
@Suite struct PublishRequestTests {
    let now = Timestamp(milliseconds: 1_800_000_000_000)

    func parse(_ json: String) throws(HeraldFault) -> PublishRequest {
        try PublishRequest(json: try JSONValue.parse(Array(json.utf8)), now: now)
    }

    func code(_ json: String) -> Int? {
        do {
            _ = try parse(json)
            return nil
        } catch {
            return error.code
        }
    }

    func payload(_ json: String) throws -> [String: Any] {
        let request = try parse(json)
        let content = try #require(request.contents?.apns)
        return try #require(try JSONSerialization.jsonObject(with: Data(content.payload)) as? [String: Any])
    }

    @Test func aPlainStringMessageIsTheAlertBodyOfABroadcastToEveryone() throws {
        let request = try parse(#"{"message": "Hello"}"#)
        #expect(request.policy == .both)
        #expect(request.broadcast == .all)
        #expect(request.singlecast == nil)
        #expect(request.schedule == PublishSchedule())
        let content = try #require(request.contents?.apns)
        #expect(String(decoding: content.payload, as: UTF8.self) == #"{"aps":{"alert":{"body":"Hello"}}}"#)
        #expect(content.pushType == "alert")
        #expect(content.priority == nil)
    }

    /// A schedule more than ten years ahead is a mistake: 8008 naming the property, however large the
    /// number (no arithmetic on it may trap).
    @Test func schedulesAreBoundedToTenYearsAhead() throws {
        let tenYears = PublishSchedule.maximumHorizonMilliseconds
        for (json, property) in [
            (#"{"message": "m", "publishAt": 9223372036854775807}"#, "publishAt"),
            (#"{"message": "m", "publishAt": \#(now.milliseconds + tenYears + 1)}"#, "publishAt"),
            (#"{"message": "m", "publishAt": \#(now.milliseconds + 200 * 365 * 86_400_000)}"#, "publishAt"),
            (#"{"message": "m", "repeatEvery": 60, "repeatExpiresAt": 9223372036854775807}"#, "repeatExpiresAt"),
            (#"{"message": "m", "repeatEvery": 9223372036854775807}"#, "repeatEvery"),
        ] {
            do {
                _ = try parse(json)
                Issue.record("accepted \(json)")
            } catch {
                #expect(error.code == 8008, "\(json): \(error)")
                #expect(error.message.contains("'\(property)'"), "\(json): \(error)")
            }
        }
        let furthest = try parse(#"{"message": "m", "publishAt": \#(now.milliseconds + tenYears), "repeatEvery": 31622400}"#)
        #expect(furthest.schedule.publishAt == now.adding(milliseconds: tenYears))
    }

    @Test func theContractsExampleMapsEveryHeader() throws {
        let body = #"""
            {"message": "Hello", "publisherId": "svc-1",
             "headers": {"ios-alert-title": "Hi", "ios-alert-subtitle": "Sub", "ios-badge": 3, "ios-sound": "default",
                         "ios-category": "orders", "ios-thread-id": "t1", "ios-mutable-content": true,
                         "orderId": "42", "android-ticker": "x", "wp-title": "y",
                         "apns-collapse-id": "order-42", "apns-expiration": 0, "apns-priority": "10"},
             "publishPolicy": "PUSH", "pushBroadcast": "FOR_IOS|FOR_OSX", "pushSinglecast": ["deviceId-1", "deviceId-1"],
             "publishAt": 1893477600000, "repeatEvery": 3600, "repeatExpiresAt": 1896069600000}
            """#
        let request = try parse(body)
        #expect(request.publisherId == "svc-1")
        #expect(request.policy == .push)
        #expect(request.broadcast == [.ios, .osx])
        #expect(request.singlecast?.map(\.rawValue) == ["deviceId-1"])
        #expect(
            request.schedule
                == PublishSchedule(
                    publishAt: Timestamp(milliseconds: 1_893_477_600_000), repeatEverySeconds: 3600,
                    repeatExpiresAt: Timestamp(milliseconds: 1_896_069_600_000)))
        let root = try payload(body)
        let aps = try #require(root["aps"] as? [String: Any])
        let alert = try #require(aps["alert"] as? [String: Any])
        #expect(alert["title"] as? String == "Hi")
        #expect(alert["subtitle"] as? String == "Sub")
        #expect(alert["body"] as? String == "Hello")
        #expect(aps["badge"] as? Int == 3)
        #expect(aps["sound"] as? String == "default")
        #expect(aps["category"] as? String == "orders")
        #expect(aps["thread-id"] as? String == "t1")
        #expect(aps["mutable-content"] as? Int == 1)
        #expect(root["orderId"] as? String == "42")
        #expect(Set(root.keys) == ["aps", "orderId"], "android-, wp- and the apns-* request headers stay out")
        let content = try #require(request.contents?.apns)
        #expect(content.collapseId == "order-42")
        #expect(content.expiration == 0)
        #expect(content.priority == 10)
    }

    @Test func alertBodyComesFromTheHeaderThenTheLegacyHeaderThenTheMessage() throws {
        let explicit = try payload(#"{"message": "m", "headers": {"ios-alert-body": "b", "ios-alert": "legacy"}}"#)
        #expect(((explicit["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String == "b")
        let legacy = try payload(#"{"message": "m", "headers": {"ios-alert": "legacy"}}"#)
        #expect(((legacy["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String == "legacy")
        // A JSON message is not an alert body.
        let object = try payload(#"{"message": {"k": 1}, "headers": {"ios-alert-title": "T"}}"#)
        #expect(((object["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] == nil)
    }

    @Test func aSilentPushIsBackgroundAtPriorityFive() throws {
        let request = try parse(#"{"message": {"sync": true}, "headers": {"ios-content-available": "1"}}"#)
        let content = try #require(request.contents?.apns)
        #expect(content.pushType == "background")
        #expect(content.priority == 5)
        #expect(String(decoding: content.payload, as: UTF8.self) == #"{"aps":{"content-available":1}}"#)
        #expect(code(#"{"message": {"a": 1}, "headers": {"ios-content-available": true, "apns-priority": 10}}"#) == 8008)
    }

    @Test func pubsubOnlyMessagesAreNotMappedForPush() throws {
        let request = try parse(#"{"message": {"k": 1}, "pushPolicy": "pubsub"}"#)
        #expect(request.policy == .pubsub)
        #expect(request.contents == nil)
    }

    @Test func broadcastMasksAndNames() throws {
        #expect(try parse(#"{"message": "m", "pushBroadcast": 9}"#).broadcast == [.ios, .osx])
        #expect(try parse(#"{"message": "m", "pushBroadcast": "FOR_ALL"}"#).broadcast == .all)
        #expect(try parse(#"{"message": "m", "pushBroadcast": "FOR_ANDROID"}"#).broadcast.includes(.ios) == false)
        #expect(try parse(#"{"message": "m", "pushBroadcast": 16}"#).broadcast == [.web])
        #expect(try parse(#"{"message": "m", "pushBroadcast": 15}"#).broadcast.includes(.web) == false)
        #expect(try parse(#"{"message": "m", "pushBroadcast": "FOR_WEB|FOR_IOS"}"#).broadcast == [.web, .ios])
        #expect(try parse(#"{"message": "m"}"#).broadcast.includes(.web))
        #expect(code(#"{"message": "m", "pushBroadcast": 32}"#) == 8008)
        #expect(code(#"{"message": "m", "pushBroadcast": "FOR_IOS|FOR_MARS"}"#) == 8008)
    }

    @Test(arguments: [
        (#"{}"#, 5041), (#"{"message": null}"#, 5041),
        // Pushed only, to Apple devices only, where it has nothing to show or wake the app: reaches no one.
        (#"{"message": {"only": "data"}, "publishPolicy": "PUSH", "pushBroadcast": "FOR_IOS|FOR_OSX"}"#, 5041),
        (#"[1]"#, 8002),
        (#"{"message": "m", "publishAt": 1700000000000}"#, 5030),
        (#"{"message": "m", "publishAt": 1900000000000, "repeatEvery": 60, "repeatExpiresAt": 1890000000000}"#, 5030),
        (#"{"message": "m", "repeatEvery": 59}"#, 8008),
        (#"{"message": "m", "repeatExpiresAt": 1900000000000}"#, 8008),
        (#"{"message": "m", "publishAt": "tomorrow"}"#, 8008),
        (#"{"message": "m", "publishPolicy": "SOMETIMES"}"#, 8008),
        (#"{"message": "m", "pushSinglecast": []}"#, 8008),
        (#"{"message": "m", "pushSinglecast": [1]}"#, 8008),
        (#"{"message": "m", "headers": "x"}"#, 8008),
        (#"{"message": "m", "headers": {"ios-badge": "many"}}"#, 8008),
        (#"{"message": "m", "headers": {"apns-push-type": "smoke-signal"}}"#, 8008),
        (#"{"message": "m", "headers": {"apns-priority": 7}}"#, 8008),
        (#"{"message": "m", "headers": {"aps": {"alert": "x"}}}"#, 8008),
        (
            #"{"message": "m", "headers": {"apns-collapse-id": "0123456789012345678901234567890123456789012345678901234567890123456789"}}"#,
            8000
        ),
    ])
    func badBodiesGetTheirCode(_ body: String, _ expected: Int) {
        #expect(code(body) == expected, "\(body)")
    }

    @Test func limitsNameTheProperty() throws {
        let longPublisher = #"{"message": "m", "publisherId": "\#(String(repeating: "p", count: 129))"}"#
        #expect(throws: HeraldFault.self) { try parse(longPublisher) }
        do {
            _ = try parse(longPublisher)
        } catch {
            #expect(error.code == 8000)
            #expect(error.message.contains("publisherId"))
        }
        let longValue = #"{"message": "m", "headers": {"note": "\#(String(repeating: "v", count: 2049))"}}"#
        #expect(code(longValue) == 8000)
        // A payload over APNs's 4 KiB is refused at publish, not discovered at send.
        let bigPayload =
            #"{"message": "m", "headers": {"blob": "\#(String(repeating: "b", count: 2000))", "blob2": "\#(String(repeating: "c", count: 2000))", "blob3": "\#(String(repeating: "d", count: 2000))"}}"#
        do {
            _ = try parse(bigPayload)
            Issue.record("an oversized payload must be refused")
        } catch {
            #expect(error.code == 8000)
            #expect(error.message.contains("payload"))
        }
    }

    /// Lists and maps are capped by count, whatever the body limit (issue 11): a body of any size past the
    /// cap is 8000 naming the property; at the cap it is accepted.
    @Test func listsAndMapsAreCappedByCount() throws {
        func singlecast(_ count: Int) -> String {
            #"{"message": "m", "pushSinglecast": [\#((0..<count).map { "\"d\($0)\"" }.joined(separator: ","))]}"#
        }
        func headers(_ count: Int) -> String {
            #"{"message": "m", "headers": {\#((0..<count).map { "\"k\($0)\": 1" }.joined(separator: ","))}}"#
        }
        /// An object with `count - 1` members, each an array holding one number.
        func structure(_ count: Int) -> String { "{" + (1..<count).map { "\"k\($0)\": [1]" }.joined(separator: ",") + "}" }
        // A PUBSUB message and a custom header may carry structure, bounded by its values in all (here
        // pairs: each member is an array holding one value).
        // 2(n - 1) values for structure(n): 1000 pass, 1002 do not; so do an array of 1000 and of 1001.
        #expect(try parse(#"{"message": \#(structure(501)), "publishPolicy": "PUBSUB"}"#).message != .null)
        let thousand = "[" + Array(repeating: "1", count: 1000).joined(separator: ",") + "]"
        #expect(try parse(#"{"message": \#(thousand), "publishPolicy": "PUBSUB"}"#).message != .null)
        #expect(
            try parse(#"{"message": "m", "headers": {"extra": \#(structure(501))}, "publishPolicy": "PUBSUB"}"#).headers["extra"] != nil)
        for (body, property) in [
            (#"{"message": \#(structure(502)), "publishPolicy": "PUBSUB"}"#, "message"),
            (#"{"message": [0,\#(thousand.dropFirst()), "publishPolicy": "PUBSUB"}"#, "message"),
            (#"{"message": "m", "headers": {"extra": \#(structure(502))}, "publishPolicy": "PUBSUB"}"#, "headers.extra"),
        ] {
            do {
                _ = try parse(body)
                Issue.record("\(property) past its cap was accepted")
            } catch {
                #expect(error.code == 8000 && error.message.contains("'\(property)' holds more than 1000"), "\(error.message)")
            }
        }
        #expect(try parse(singlecast(Limits.singlecastDevices)).singlecast?.count == Limits.singlecastDevices)
        #expect(try parse(headers(Limits.headersPerMessage)).headers.count == Limits.headersPerMessage)
        for (body, property) in [
            (singlecast(Limits.singlecastDevices + 1), "pushSinglecast"), (headers(Limits.headersPerMessage + 1), "headers"),
        ] {
            do {
                _ = try parse(body)
                Issue.record("\(property) past its cap was accepted")
            } catch {
                #expect(error.code == 8000 && error.message.contains("'\(property)'"), "\(error.message)")
            }
        }
    }

    @Test func repeatingSchedulesStepAndStop() {
        let schedule = PublishSchedule(
            publishAt: Timestamp(milliseconds: 1_000_000), repeatEverySeconds: 60,
            repeatExpiresAt: Timestamp(milliseconds: 1_000_000 + 120_000))
        let second = schedule.occurrence(after: Timestamp(milliseconds: 1_000_000))
        #expect(second == Timestamp(milliseconds: 1_060_000))
        #expect(schedule.occurrence(after: second!) == Timestamp(milliseconds: 1_120_000))
        #expect(schedule.occurrence(after: Timestamp(milliseconds: 1_120_000)) == nil)
        #expect(PublishSchedule().occurrence(after: Timestamp(milliseconds: 1)) == nil)
    }
}
