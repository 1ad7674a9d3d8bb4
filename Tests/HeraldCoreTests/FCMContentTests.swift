import Foundation
import HeraldCore
import Testing

/// The header → FCM message mapping, and the per-device request body around it.
@Suite struct FCMContentTests {
    func content(_ message: JSONValue = .string("Hello"), _ headers: [String: JSONValue] = [:]) throws(HeraldFault) -> FCMContent {
        try FCMContent(message: message, headers: headers)
    }

    /// The `message` object FCM receives for `token`, parsed back.
    func sent(_ content: FCMContent, token: String = "dev-token") throws -> [String: Any] {
        let body = try #require(try JSONSerialization.jsonObject(with: Data(content.requestBody(token: token))) as? [String: Any])
        #expect(body.count == 1)
        return try #require(body["message"] as? [String: Any])
    }

    func code(_ message: JSONValue = .string("Hello"), headers: [String: JSONValue]) -> Int? {
        do {
            _ = try FCMContent(message: message, headers: headers)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func aStringMessageIsTheNotificationBody() throws {
        let content = try content()
        #expect(String(decoding: content.message, as: UTF8.self) == #"{"notification":{"body":"Hello"}}"#)
        #expect(
            String(decoding: content.requestBody(token: "abc:DEF_1-2"), as: UTF8.self)
                == #"{"message":{"token":"abc:DEF_1-2","notification":{"body":"Hello"}}}"#)
    }

    @Test func everyAndroidHeaderHasItsPlace() throws {
        let content = try content(
            .string("ignored"),
            [
                "android-content-title": "Title", "android-content-text": "Text", "android-ticker-text": "Ticker",
                "android-sound": "chime", "android-icon": "ic_stat", "android-channel-id": "news",
                "android-priority": "high", "android-ttl": .integer(3600), "android-collapse-key": "scores",
                "android-summary-subtext": "not mapped", "ios-alert": "for iOS", "wp-title": "for Windows",
                "apns-priority": .integer(10),
            ])
        let message = try sent(content)
        #expect(message["token"] as? String == "dev-token")
        #expect(message["notification"] as? [String: String] == ["title": "Title", "body": "Text"])
        let android = try #require(message["android"] as? [String: Any])
        #expect(android["priority"] as? String == "HIGH")
        #expect(android["ttl"] as? String == "3600s")
        #expect(android["collapse_key"] as? String == "scores")
        #expect(
            android["notification"] as? [String: String] == ["ticker": "Ticker", "sound": "chime", "icon": "ic_stat", "channel_id": "news"])
        #expect(android.count == 4)
        #expect(message["data"] == nil)
        #expect(message.count == 3)
    }

    @Test func otherHeadersAreDataAsText() throws {
        let message = try sent(
            try content(
                .string("Hi"),
                [
                    "deeplink": "app://x", "count": .integer(3), "ratio": .number(0.5), "flag": .bool(true),
                    "nested": .object(["b": .integer(1), "a": .array([.string("x"), .null])]), "gone": .null,
                ]))
        #expect(
            message["data"] as? [String: String] == [
                "deeplink": "app://x", "count": "3", "ratio": "0.5", "flag": "true", "nested": #"{"a":["x",null],"b":1}"#,
            ])
    }

    @Test func aStructuredMessageGoesIntoData() throws {
        let message = try sent(
            try content(.object(["order": .integer(42), "status": .string("shipped")]), ["android-content-title": "Order"]))
        #expect(message["notification"] as? [String: String] == ["title": "Order"])
        #expect(message["data"] as? [String: String] == ["message": #"{"order":42,"status":"shipped"}"#])
        let numeric = try sent(try content(.integer(7)))
        #expect(numeric["data"] as? [String: String] == ["message": "7"])
        #expect(numeric["notification"] == nil)
    }

    @Test(arguments: [
        (JSONValue.string("high"), "HIGH"), (.string("HIGH"), "HIGH"), (.string("max"), "HIGH"), (.integer(1), "HIGH"),
        (.integer(2), "HIGH"), (.string("1"), "HIGH"), (.string("normal"), "NORMAL"), (.string("Low"), "NORMAL"),
        (.string("min"), "NORMAL"), (.integer(0), "NORMAL"), (.integer(-2), "NORMAL"), (.string("-1"), "NORMAL"),
    ])
    func priorityAcceptsBackendlessWords(_ value: JSONValue, _ expected: String) throws {
        let android = try #require(try sent(try content(.string("x"), ["android-priority": value]))["android"] as? [String: Any])
        #expect(android["priority"] as? String == expected)
    }

    @Test func aPriorityFCMWouldNotUnderstandIs8008() throws {
        for value: JSONValue in [.string("urgent"), .bool(true), .string("")] {
            do {
                _ = try content(.string("x"), ["android-priority": value])
                Issue.record("\(value) was accepted")
            } catch {
                #expect(error.code == 8008)
                #expect(error.message.contains("android-priority"))
            }
        }
    }

    @Test func theTTLIsSecondsUpTo28Days() throws {
        let android = { (value: JSONValue) throws -> String? in
            (try self.sent(try self.content(.string("x"), ["android-ttl": value]))["android"] as? [String: Any])?["ttl"] as? String
        }
        #expect(try android(.integer(0)) == "0s")
        #expect(try android(.string("2419200")) == "2419200s")
        for value: JSONValue in [.integer(2_419_201), .integer(-1), .string("1h"), .number(1.5)] {
            do {
                _ = try content(.string("x"), ["android-ttl": value])
                Issue.record("\(value) was accepted")
            } catch {
                #expect(error.code == 8008)
                #expect(error.message.contains("android-ttl"))
            }
        }
    }

    @Test func aTextHeaderGivenAsAnObjectIs8008() {
        #expect(code(headers: ["android-content-title": .object([:])]) == 8008)
    }

    @Test func keysFCMReservesAreRefused() {
        for name in ["from", "message_type", "google.c.a", "gcm.notification.body", "GOOGLE_x"] {
            #expect(code(headers: [name: "x"]) == 8008, "\(name)")
        }
        #expect(code(headers: ["fromage": "brie"]) == nil)
    }

    @Test func over4096BytesIs8000() throws {
        let atLimit = try content(.string(String(repeating: "a", count: 4096 - #"{"notification":{"body":""}}"#.utf8.count)))
        #expect(atLimit.message.count == 4096)
        do {
            _ = try content(.string(String(repeating: "a", count: 4097 - #"{"notification":{"body":""}}"#.utf8.count)))
            Issue.record("4097 bytes were accepted")
        } catch {
            #expect(error.code == 8000)
            #expect(error.message.contains("4096"))
        }
    }

    @Test func theTokenIsEscapedInTheRequestBody() throws {
        let content = try content()
        let odd = "a\"b\\c\nd\u{01}é"
        #expect(try sent(content, token: odd)["token"] as? String == odd)
        let empty = FCMContent(encodedMessage: Array("{}".utf8))
        #expect(String(decoding: empty.requestBody(token: "t"), as: UTF8.self) == #"{"message":{"token":"t"}}"#)
    }

    @Test func itSurvivesEncodingAsItIsStored() throws {
        let content = try content(.string("Hi"), ["android-content-title": "T", "k": "v"])
        let decoded = try JSONDecoder().decode(FCMContent.self, from: JSONEncoder().encode(content))
        #expect(decoded == content)
        #expect(decoded.requestBody(token: "x") == content.requestBody(token: "x"))
    }
}

/// Header values written as string literals in these tests.
extension JSONValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}
