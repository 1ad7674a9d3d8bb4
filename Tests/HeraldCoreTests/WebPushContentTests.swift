import Foundation
import HeraldCore
import Testing

/// The web-* header mapping (issue 26): the plaintext a browser's service worker receives, the TTL,
/// Urgency and Topic a push service reads, the size limit, storage, and that web-* headers stay out of
/// APNs's payload and FCM's data.
@Suite struct WebPushContentTests {
    /// What Web Push receives for a publish, through the same mapping every provider's content comes from.
    func content(_ message: JSONValue = "Hello", _ headers: [String: JSONValue] = [:]) throws(HeraldFault) -> WebPushContent {
        let contents = try MessageContents(message: message, headers: headers)
        guard let webPush = contents.webPush else {
            Issue.record("no Web Push content for \(message) \(headers)")
            throw HeraldFault.internalError
        }
        return webPush
    }

    /// The plaintext parsed back, as the service worker's `event.data.json()` reads it.
    func plaintext(_ message: JSONValue = "Hello", _ headers: [String: JSONValue] = [:]) throws -> [String: JSONValue] {
        try Self.object(try content(message, headers).payload)
    }

    static func object(_ bytes: some Collection<UInt8>) throws -> [String: JSONValue] {
        guard case .object(let fields) = try JSONValue.parse(bytes) else {
            Issue.record("not a JSON object: \(String(decoding: Array(bytes), as: UTF8.self))")
            return [:]
        }
        return fields
    }

    /// The fault a publish with these headers gets, or nil when it is accepted.
    func refusal(_ message: JSONValue = "Hello", headers: [String: JSONValue]) -> HeraldFault? {
        do {
            _ = try MessageContents(message: message, headers: headers)
            return nil
        } catch {
            return error
        }
    }

    @Test func aStringMessageIsTheBodyWithTheDefaultHeaders() throws {
        let content = try content("Hello")
        #expect(String(decoding: content.payload, as: UTF8.self) == #"{"body":"Hello"}"#)
        #expect(content.ttl == 2_419_200)
        #expect(content.urgency == nil)
        #expect(content.topic == nil)
    }

    @Test func theTitleIsTheWebOneElseAndroidsElseIOSs() throws {
        let all: [String: JSONValue] = ["web-title": "Web", "android-content-title": "Android", "ios-alert-title": "iOS"]
        #expect(try plaintext("m", all)["title"] == "Web")
        #expect(try plaintext("m", all.filter { $0.key != "web-title" })["title"] == "Android")
        #expect(try plaintext("m", ["ios-alert-title": "iOS"])["title"] == "iOS")
        #expect(try plaintext("m", ["web-title": .null, "ios-alert-title": "iOS"])["title"] == "iOS", "a null title is no title")
        #expect(try plaintext("m")["title"] == nil)
    }

    @Test func webBodyOverridesTheMessage() throws {
        let fields = try plaintext("for every platform", ["web-body": "for browsers"])
        #expect(fields == ["body": "for browsers"])
        // A structured message with web-* headers alone: WebPushContent takes it (MessageContents also
        // needs something APNs can show; see aStructuredMessageGoesToDataMessage).
        let structured = try Self.object(try WebPushContent(message: .object(["k": .integer(1)]), headers: ["web-body": "shown"]).payload)
        #expect(structured == ["body": "shown", "data": .object(["message": .object(["k": .integer(1)])])])
    }

    @Test func iconBadgeImageTagAndURLAreMembersAsGiven() throws {
        let content = try content(
            "Hi",
            [
                "web-icon": "https://cdn.example.com/i.png", "web-badge": "https://cdn.example.com/b.png",
                "web-image": "https://cdn.example.com/big.jpg", "web-tag": "order-42", "web-url": "https://shop.example.com/o/42",
                "web-title": "Order",
            ])
        #expect(
            String(decoding: content.payload, as: UTF8.self)
                == #"{"badge":"https://cdn.example.com/b.png","body":"Hi","icon":"https://cdn.example.com/i.png","#
                + #""image":"https://cdn.example.com/big.jpg","tag":"order-42","title":"Order","url":"https://shop.example.com/o/42"}"#)
    }

    @Test func customHeadersAreDataWithTheirJSONValuesKept() throws {
        let fields = try plaintext(
            "Hi",
            [
                "deeplink": "app://x", "count": .integer(3), "ratio": .number(0.5), "flag": .bool(true),
                "nested": .object(["b": .integer(1), "a": .array([.string("x"), .null])]), "gone": .null,
            ])
        #expect(
            fields["data"]
                == .object([
                    "deeplink": "app://x", "count": .integer(3), "ratio": .number(0.5), "flag": .bool(true),
                    "nested": .object(["b": .integer(1), "a": .array([.string("x"), .null])]),
                ]), "numbers stay numbers, objects stay objects, a null header is left out")
        #expect(fields["body"] == "Hi")
    }

    @Test func aStructuredMessageGoesToDataMessage() throws {
        let order: JSONValue = .object(["order": .integer(42), "status": "shipped"])
        // ios-badge: a publish's contents are built for APNs too, which needs something to show (5041).
        let fields = try plaintext(order, ["web-title": "Order", "ios-badge": .integer(1)])
        #expect(fields == ["title": "Order", "data": .object(["message": order])], "no body: the message is not text")
        let direct = { (message: JSONValue) throws -> JSONValue? in
            try Self.object(try WebPushContent(message: message, headers: ["web-title": "T"]).payload)["data"]
        }
        #expect(try direct(order) == .object(["message": order]))
        #expect(try direct(.integer(7)) == .object(["message": .integer(7)]))
        #expect(try direct(.array([.integer(1)])) == .object(["message": .array([.integer(1)])]))
        #expect(try direct(.null) == nil, "a null message is no data")
    }

    @Test func otherPlatformsHeadersDoNotLeakIntoData() throws {
        let fields = try plaintext(
            "Hi",
            [
                "ios-alert-subtitle": "sub", "ios-badge": .integer(3), "ios-sound": "chime", "ios-category": "c",
                "android-content-text": "text", "android-ticker-text": "t", "android-ttl": .integer(60),
                "android-collapse-key": "k", "apns-priority": .integer(10), "apns-push-type": "alert",
                "apns-collapse-id": "c", "apns-expiration": .integer(0), "wp-title": "Windows", "web-unknown": "x",
            ])
        #expect(fields == ["body": "Hi"], "\(fields)")
        let mixed = try plaintext("Hi", ["ios-sound": "chime", "custom": "kept"])
        #expect(mixed["data"] == .object(["custom": "kept"]))
    }

    @Test func theTTLIsSecondsUpToFourWeeks() throws {
        #expect(try content("m", ["web-ttl": "60"]).ttl == 60)
        #expect(try content("m", ["web-ttl": .integer(60)]).ttl == 60)
        #expect(try content("m", ["web-ttl": " 60 "]).ttl == 60)
        #expect(try content("m", ["web-ttl": .integer(0)]).ttl == 0)
        #expect(try content("m", ["web-ttl": .integer(2_419_200)]).ttl == 2_419_200)
        #expect(try content("m", ["web-ttl": .null]).ttl == 2_419_200)
        #expect(WebPushContent.ttlRange == 0...2_419_200)
        for value: JSONValue in [.integer(-1), .integer(2_419_201), "-1", "2419201", "1h", .number(1.5), .bool(true)] {
            let fault = refusal(headers: ["web-ttl": value])
            #expect(fault?.code == 8008, "\(value): \(fault?.message ?? "accepted")")
            #expect(fault?.message.contains("'web-ttl'") == true, "\(value): \(fault?.message ?? "accepted")")
        }
    }

    @Test(arguments: [
        ("very-low", "very-low"), ("low", "low"), ("normal", "normal"), ("high", "high"), ("HIGH", "high"),
        ("Very-Low", "very-low"), (" Normal ", "normal"),
    ])
    func urgencyIsOneOfFourWordsInAnyCase(_ given: String, _ sent: String) throws {
        #expect(try content("m", ["web-urgency": .string(given)]).urgency == sent)
    }

    @Test func anyOtherUrgencyIs8008() throws {
        #expect(try content("m", ["web-urgency": .null]).urgency == nil)
        for value: JSONValue in ["urgent", "", "very low", "verylow", .integer(1), .bool(true)] {
            let fault = refusal(headers: ["web-urgency": value])
            #expect(fault?.code == 8008, "\(value): \(fault?.message ?? "accepted")")
            #expect(fault?.message.contains("'web-urgency'") == true, "\(value): \(fault?.message ?? "accepted")")
        }
    }

    @Test func aTopicIsUpTo32URLSafeBase64Characters() throws {
        let longest = "AZaz09-_" + String(repeating: "x", count: 24)
        #expect(longest.count == 32)
        #expect(try content("m", ["web-topic": .string(longest)]).topic == longest)
        #expect(try content("m", ["web-topic": "scores"]).topic == "scores")
        #expect(try content("m", ["web-topic": .null]).topic == nil)
        for value: JSONValue in [
            .string(longest + "x"), "", "a b", "a+b", "a/b", "a=", "scöres", "a.b", .integer(5), .object([:]),
        ] {
            let fault = refusal(headers: ["web-topic": value])
            #expect(fault?.code == 8008, "\(value): \(fault?.message ?? "accepted")")
            #expect(fault?.message.contains("'web-topic'") == true, "\(value): \(fault?.message ?? "accepted")")
        }
    }

    @Test func aTextHeaderGivenAsAnObjectIs8008NamingIt() {
        for name in ["web-title", "web-body", "web-icon", "web-url"] {
            let fault = refusal(headers: [name: .object([:])])
            #expect(fault?.code == 8008 && fault?.message.contains("'\(name)'") == true, "\(name): \(fault?.message ?? "accepted")")
        }
    }

    @Test func thePlaintextIsAtMost3993Bytes() throws {
        #expect(WebPushContent.maxPayloadBytes == 3993)
        let overhead = #"{"body":""}"#.utf8.count
        let atLimit = try content(.string(String(repeating: "a", count: 3993 - overhead)))
        #expect(atLimit.payload.count == 3993)
        // One byte more: APNs (4096) and FCM (4096) still take it; Web Push's record does not.
        let fault = refusal(.string(String(repeating: "a", count: 3994 - overhead)), headers: [:])
        #expect(fault?.code == 8000, "\(fault?.message ?? "accepted")")
        #expect(fault?.message.contains("'payload'") == true && fault?.message.contains("3993") == true, "\(fault?.message ?? "")")
        // The same through the web-* headers alone, whatever the message.
        let headers: [String: JSONValue] = [
            "web-body": .string(String(repeating: "b", count: 2000)), "web-title": .string(String(repeating: "t", count: 2000)),
        ]
        #expect(refusal("short", headers: headers)?.code == 8000)
    }

    @Test func itSurvivesStorageAndOldMessagesHaveNone() throws {
        let contents = try MessageContents(
            message: "Hi",
            headers: [
                "web-title": "T", "web-ttl": .integer(60), "web-urgency": "high", "web-topic": "scores", "k": .object(["n": .integer(1)]),
            ])
        let text = contents.encoded()
        let decoded = try MessageContents(decoding: text)
        #expect(decoded == contents)
        let webPush = try #require(decoded.webPush)
        #expect(webPush.ttl == 60 && webPush.urgency == "high" && webPush.topic == "scores")
        #expect(try Self.object(webPush.payload) == ["title": "T", "body": "Hi", "data": .object(["k": .object(["n": .integer(1)])])])
        // The plaintext is kept as its JSON text, not as a list of byte values.
        let stored = try Self.object(Array(text.utf8))
        guard case .object(let web)? = stored["webPush"] else {
            Issue.record("no webPush in \(text)")
            return
        }
        #expect(web["payload"] == .string(String(decoding: contents.webPush?.payload ?? [], as: UTF8.self)))
        #expect(text == decoded.encoded(), "equal contents give equal text")

        let defaults = try MessageContents(decoding: try MessageContents(message: "Hi", headers: [:]).encoded())
        #expect(defaults.webPush == WebPushContent(payload: Array(#"{"body":"Hi"}"#.utf8)))

        // What the store holds for a message accepted before Herald spoke Web Push.
        let old = try MessageContents(
            decoding: #"{"apns":{"payload":"{\"aps\":{\"alert\":{\"body\":\"Hi\"}}}","pushType":"alert"},"#
                + #""fcm":{"message":"{\"notification\":{\"body\":\"Hi\"}}"}}"#)
        #expect(old.webPush == nil)
        #expect(old.apns?.payload == Array(#"{"aps":{"alert":{"body":"Hi"}}}"#.utf8))
        #expect(old.fcm?.message == Array(#"{"notification":{"body":"Hi"}}"#.utf8))
        let apnsOnly = try MessageContents(decoding: #"{"apns":{"payload":"{}","pushType":"background","priority":5}}"#)
        #expect(apnsOnly.webPush == nil && apnsOnly.fcm == nil)
    }

    @Test func webHeadersReachNeitherAPNsNorFCM() throws {
        let web: [String: JSONValue] = [
            "web-title": "T", "web-body": "B", "web-icon": "https://cdn.example.com/i.png", "web-badge": "b", "web-image": "i",
            "web-tag": "t", "web-url": "https://example.com", "web-ttl": .integer(60), "web-urgency": "high", "web-topic": "x",
        ]
        let contents = try MessageContents(message: "Hello", headers: web.merging(["custom": "c"]) { $1 })
        let apns = try Self.object(try #require(contents.apns).payload)
        #expect(Set(apns.keys) == ["aps", "custom"], "\(apns.keys)")
        #expect(apns["aps"] == .object(["alert": .object(["body": "Hello"])]), "web-title and web-body are not APNs's alert")
        let fcmContent = try #require(contents.fcm)
        let fcm = try Self.object(fcmContent.message)
        #expect(fcm["data"] == .object(["custom": "c"]), "\(String(decoding: fcmContent.message, as: UTF8.self))")
        #expect(fcm["notification"] == .object(["body": "Hello"]))
        #expect(fcm["android"] == nil, "web-ttl is not android.ttl")
    }

    @Test func equalInputsGiveEqualBytes() throws {
        let headers: [String: JSONValue] = ["b": "2", "a": "1", "web-title": "T", "c": .object(["z": .integer(1), "y": .integer(2)])]
        let first = try content("m", headers)
        #expect(first == (try content("m", headers)))
        #expect(String(decoding: first.payload, as: UTF8.self) == #"{"body":"m","data":{"a":"1","b":"2","c":{"y":2,"z":1}},"title":"T"}"#)
    }
}
