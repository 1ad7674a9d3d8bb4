import HeraldCore
import Testing

/// Push templates (issue 24): the admin body checked against the fields the SDKs read, the blocks the
/// SDKs download, and the placeholders a publish fills.
@Suite struct PushTemplateTests {
    static func parse(_ json: String, name: String = "sale") throws(HeraldFault) -> PushTemplate {
        let body: JSONValue
        do {
            body = try JSONValue.parse(Array(json.utf8))
        } catch {
            Issue.record("not JSON: \(json)")
            throw error
        }
        return try PushTemplate(name: name, json: body)
    }

    @Test func aFullTemplateIsKeptAsGiven() throws {
        let template = try Self.parse(
            """
            {"message": "Hi {user}, {percent}% off",
             "ios": {"alertTitle": "Sale", "alertSubtitle": "today", "badge": 1, "sound": "default", "mutableContent": 1,
                     "attachmentUrl": "https://cdn.example.com/a.png", "customHeaders": {"deal": "{deal}"},
                     "actions": [{"id": "open", "title": "Open", "options": 4, "inlineReply": false}]},
             "android": {"contentTitle": "Sale", "summarySubText": "today", "priority": 4, "vibrate": [0, 200, 100],
                         "colorCode": 16711680, "cancelAfter": 3600, "cancelOnTap": true,
                         "actions": [{"id": "com.example.Open", "title": "Open", "options": 1}]},
             "audience": {"channels": ["news", "deals"], "os": ["IOS", "android"],
                          "segment": {"locales": ["de"]}}}
            """)
        #expect(template.message == "Hi {user}, {percent}% off")
        #expect(template.ios["alertTitle"] == .string("Sale"))
        #expect(template.android["priority"] == .integer(4))
        #expect(template.audience.channels.map(\.rawValue) == ["news", "deals"])
        #expect(template.audience.systems == [.ios, .android])
        #expect(template.audience.segment?.locales == ["de"])
    }

    @Test func theSDKsDownloadEachPlatformsBlockAndAndroidsName() throws {
        let template = try Self.parse(#"{"ios": {"alertTitle": "Sale", "sound": null}, "android": {"contentTitle": "Sale"}}"#)
        #expect(template.sdkBlock(for: .ios) == .object(["alertTitle": .string("Sale")]), "nulls are left out")
        #expect(template.sdkBlock(for: .android) == .object(["contentTitle": .string("Sale"), "name": .string("sale")]))
        let nulls = try Self.parse(
            #"{"message": null, "audience": {"os": null, "channels": ["a"]}, "ios": {"actions": [{"id": "a", "title": "b", "options": null}]}}"#
        )
        #expect(
            nulls.body
                == .object([
                    "audience": .object(["channels": .array([.string("a")])]),
                    "ios": .object(["actions": .array([.object(["id": .string("a"), "title": .string("b")])])]),
                ]), "a null field is an absent one, at any depth")
        let empty = try Self.parse("{}")
        #expect(empty.sdkBlock(for: .ios) == .object([:]))
        #expect(empty.audience == PushTemplate.Audience(), "no audience: every device of the app")
    }

    @Test(arguments: [
        (#"{"ios": {"alertTitel": "x"}}"#, 8008, "ios.alertTitel"),
        (#"{"ios": {"badge": "1"}}"#, 8008, "ios.badge"),
        (#"{"ios": {"badge": -1}}"#, 8008, "ios.badge"),
        (#"{"android": {"priority": 9}}"#, 8008, "android.priority"),
        (#"{"android": {"vibrate": [1, "x"]}}"#, 8008, "android.vibrate"),
        (#"{"ios": {"customHeaders": {"a": 1}}}"#, 8008, "ios.customHeaders.a"),
        (#"{"ios": {"actions": [{"title": "Open"}]}}"#, 8007, "ios.actions[0].id"),
        (#"{"ios": {"actions": [{"id": "a", "title": "b", "colour": 1}]}}"#, 8008, "ios.actions[0].colour"),
        (#"{"ios": []}"#, 8008, "ios"),
        (#"{"message": 5}"#, 8008, "message"),
        (#"{"massage": "x"}"#, 8008, "massage"),
        (#"{"audience": {"channels": ["bad name!"]}}"#, 5044, ""),
        (#"{"audience": {"os": "PALM"}}"#, 8008, "os"),
        (#"{"audience": {"segment": {"locales": "de"}}}"#, 8008, "segment"),
        (#"[]"#, 8008, "body"),
    ])
    func refusesNamingTheField(_ json: String, _ code: Int, _ field: String) {
        do {
            _ = try Self.parse(json)
            Issue.record("accepted: \(json)")
        } catch {
            #expect(error.code == code, "\(json): \(error.message)")
            #expect(error.message.contains(field), "\(json): \(error.message)")
        }
    }

    @Test func limits() {
        let long = String(repeating: "x", count: PushTemplate.maxTextLength + 1)
        #expect(throws: HeraldFault.self) { try Self.parse(#"{"ios": {"alertTitle": "\#(long)"}}"#) }
        let actions = (0...PushTemplate.maxActions).map { #"{"id": "a\#($0)", "title": "t"}"# }.joined(separator: ",")
        #expect(throws: HeraldFault.self) { try Self.parse(#"{"ios": {"actions": [\#(actions)]}}"#) }
        #expect(throws: HeraldFault.self) { try Self.parse("{}", name: "") }
        #expect(throws: HeraldFault.self) { try Self.parse("{}", name: "a/b") }
        #expect(throws: HeraldFault.self) { try Self.parse("{}", name: String(repeating: "a", count: 65)) }
        #expect(throws: Never.self) { try Self.parse("{}", name: "Spring sale 2026") }
    }

    @Test func placeholdersAreFilledAndAnUnknownOneStays() {
        let values = ["user": "Ana", "percent": "20"]
        #expect(PushTemplate.fill("Hi {user}, {percent}% off", with: values) == "Hi Ana, 20% off")
        #expect(PushTemplate.fill("Hi {user}, {unknown}", with: values) == "Hi Ana, {unknown}")
        #expect(PushTemplate.fill("{user}{user}", with: values) == "AnaAna")
        #expect(PushTemplate.fill("no placeholders", with: values) == "no placeholders")
        #expect(PushTemplate.fill("open { and {user}", with: values) == "open { and Ana", "a brace never closed is text")
        #expect(PushTemplate.fill("{user", with: values) == "{user")
        #expect(PushTemplate.fill("{user}", with: [:]) == "{user}")
    }
}
