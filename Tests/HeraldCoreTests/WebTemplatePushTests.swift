import HeraldCore
import Testing

/// A push template's web block (issue 26) and what a template push sends to browsers: the title (the web
/// block's, else Android's or iOS's) and the message with their placeholders filled, the block's images
/// and page, `template_name` and the filled custom headers under `data`; only to the audience's systems.
@Suite struct WebTemplatePushTests {
    static func template(_ json: String, name: String = "sale") throws -> PushTemplate {
        try PushTemplate(name: name, json: try JSONValue.parse(Array(json.utf8)))
    }

    /// The plaintext a browser receives for `json` pushed with `values`.
    static func plaintext(_ json: String, values: String = "{}") throws -> [String: JSONValue] {
        let push = try TemplatePush(template: try template(json), body: try JSONValue.parse(Array(values.utf8)))
        let content = try #require(try push.contents().webPush)
        guard case .object(let fields) = try JSONValue.parse(content.payload) else {
            Issue.record("not a JSON object: \(String(decoding: content.payload, as: UTF8.self))")
            return [:]
        }
        return fields
    }

    static func refusal(_ json: String) -> HeraldFault? {
        do {
            _ = try PushTemplate(name: "sale", json: try JSONValue.parse(Array(json.utf8)))
            return nil
        } catch {
            return error
        }
    }

    @Test func theWebBlockIsKeptAsGiven() throws {
        let template = try Self.template(
            """
            {"message": "m", "web": {"title": "T", "icon": "https://cdn.example.com/i.png", "badge": "https://cdn.example.com/b.png",
             "image": "https://cdn.example.com/big.jpg", "url": "https://shop.example.com/{page}", "tag": "sale",
             "customHeaders": {"deal": "{deal}"}}}
            """)
        #expect(template.web.count == 7)
        #expect(template.web["title"] == .string("T"))
        #expect(template.web["url"] == .string("https://shop.example.com/{page}"))
        #expect(template.web["customHeaders"] == .object(["deal": .string("{deal}")]))
        guard case .object(let body) = template.body else {
            Issue.record("the body is not an object")
            return
        }
        #expect(body["web"] == .object(template.web))
        #expect(try Self.template(#"{"web": {"title": "T", "icon": null}}"#).web == ["title": .string("T")], "nulls are left out")
        #expect(try Self.template(#"{"message": "m"}"#).web.isEmpty)
    }

    @Test(arguments: [
        (#"{"web": {"x": "1"}}"#, 8008, "'web.x'"),
        (#"{"web": {"titel": "T"}}"#, 8008, "'web.titel'"),
        (#"{"web": {"title": 5}}"#, 8008, "'web.title'"),
        (#"{"web": {"url": true}}"#, 8008, "'web.url'"),
        (#"{"web": {"customHeaders": {"a": 1}}}"#, 8008, "'web.customHeaders.a'"),
        (#"{"web": {"customHeaders": "a"}}"#, 8008, "'web.customHeaders'"),
        (#"{"web": "T"}"#, 8008, "'web'"),
        (#"{"web": []}"#, 8008, "'web'"),
    ])
    func anUnknownOrMistypedWebFieldIsRefusedByName(_ json: String, _ code: Int, _ field: String) {
        let fault = Self.refusal(json)
        #expect(fault?.code == code, "\(json): \(fault?.message ?? "accepted")")
        #expect(fault?.message.contains(field) == true, "\(json): \(fault?.message ?? "accepted")")
    }

    @Test func webTextsHaveTheTemplatesLimit() {
        let long = String(repeating: "x", count: PushTemplate.maxTextLength + 1)
        #expect(Self.refusal(#"{"web": {"icon": "\#(long)"}}"#)?.code == 8000)
        #expect(Self.refusal(#"{"web": {"icon": "\#(long.dropLast())"}}"#) == nil)
    }

    @Test func theTitleIsTheWebOneElseAndroidsElseIOSsFilled() throws {
        let values = #"{"templateValues": {"user": "Ana"}}"#
        let ios = #""ios": {"alertTitle": "iOS {user}"}"#
        let android = #""android": {"contentTitle": "Android {user}"}"#
        let web = #""web": {"title": "Web {user}"}"#
        #expect(try Self.plaintext("{\(web), \(android), \(ios)}", values: values)["title"] == .string("Web Ana"))
        #expect(try Self.plaintext("{\(android), \(ios)}", values: values)["title"] == .string("Android Ana"))
        #expect(try Self.plaintext("{\(ios)}", values: values)["title"] == .string("iOS Ana"))
        #expect(try Self.plaintext(#"{"message": "m"}"#)["title"] == nil)
    }

    @Test func aWebPushCarriesTheFilledTemplate() throws {
        let fields = try Self.plaintext(
            """
            {"message": "Hi {user}, {percent}% off",
             "web": {"title": "Sale for {user}", "icon": "https://cdn.example.com/{user}.png", "badge": "https://cdn.example.com/b.png",
                     "image": "https://cdn.example.com/big.jpg", "url": "https://shop.example.com/deal/{deal}", "tag": "sale",
                     "customHeaders": {"deal": "{deal}", "note": "{unknown}", "template_name": "not this"}}}
            """, values: #"{"templateValues": {"user": "Ana", "percent": 20, "deal": "D-7"}}"#)
        #expect(
            fields == [
                "title": .string("Sale for Ana"), "body": .string("Hi Ana, 20% off"), "icon": .string("https://cdn.example.com/Ana.png"),
                "badge": .string("https://cdn.example.com/b.png"), "image": .string("https://cdn.example.com/big.jpg"),
                "url": .string("https://shop.example.com/deal/D-7"), "tag": .string("sale"),
                "data": .object([
                    "template_name": .string("sale"), "deal": .string("D-7"), "note": .string("{unknown}"),
                ]),
            ], "\(fields)")
    }

    @Test func aMessageAloneIsTheBodyWithTheTemplatesName() throws {
        let fields = try Self.plaintext(#"{"message": "Hello {user}"}"#, values: #"{"user": "Bo"}"#)
        #expect(fields == ["body": .string("Hello Bo"), "data": .object(["template_name": .string("sale")])])
        let content = try #require(try TemplatePush(template: try Self.template(#"{"message": "m"}"#), body: nil).contents().webPush)
        #expect(content.ttl == WebPushContent.ttlRange.upperBound && content.urgency == nil && content.topic == nil)
    }

    @Test func onlyTheAudiencesSystemsGetContent() throws {
        func contents(_ os: String) throws -> MessageContents {
            let template = try Self.template(
                #"{"message": "m", "ios": {"alertTitle": "t"}, "web": {"title": "w"}, "audience": {"os": \#(os)}}"#)
            return try TemplatePush(template: template, body: nil).contents()
        }
        let ios = try contents(#"["IOS"]"#)
        #expect(ios.webPush == nil && ios.fcm == nil && ios.apns != nil)
        let web = try contents(#"["WEB"]"#)
        #expect(web.apns == nil && web.fcm == nil && web.webPush != nil)
        let single = try contents(#""web""#)
        #expect(single.apns == nil && single.fcm == nil && single.webPush != nil)
        let both = try contents(#"["ANDROID", "WEB"]"#)
        #expect(both.apns == nil && both.fcm != nil && both.webPush != nil)
        let everyone = try TemplatePush(template: try Self.template(#"{"message": "m"}"#), body: nil).contents()
        #expect(everyone.apns != nil && everyone.fcm != nil && everyone.webPush != nil, "no audience: every system")
    }

    @Test func nothingToShowInABrowserIs5041ForAWebAudience() throws {
        let silent = try Self.template(#"{"ios": {"contentAvailable": 1}, "web": {"icon": "i.png"}, "audience": {"os": ["WEB"]}}"#)
        do {
            _ = try TemplatePush(template: silent, body: nil).contents()
            Issue.record("a push with nothing to show was accepted")
        } catch {
            #expect(error.code == 5041, "\(error.message)")
            #expect(error.message.contains("sale"), "\(error.message)")
        }
        // The same template for iOS alone is a silent push, which is fine.
        let iosOnly = try Self.template(#"{"ios": {"contentAvailable": 1}, "audience": {"os": ["IOS"]}}"#)
        #expect(try TemplatePush(template: iosOnly, body: nil).contents().apns?.pushType == "background")
    }

    @Test func aPlaintextOverTheLimitIs8000() throws {
        // Each text is within the template's limits; filled, the values make the plaintext too long.
        let template = try Self.template(#"{"message": "{a}{a}{a}{a}", "web": {"title": "{a}"}, "audience": {"os": ["WEB"]}}"#)
        let value = String(repeating: "x", count: TemplatePush.maxValueLength)
        do {
            _ = try TemplatePush(template: template, body: .object(["a": .string(value)])).contents()
            Issue.record("a plaintext of over 5000 bytes was accepted")
        } catch {
            #expect(error.code == 8000 && error.message.contains("'payload'"), "\(error.message)")
            #expect(error.message.contains("\(WebPushContent.maxPayloadBytes)"), "\(error.message)")
        }
    }
}
