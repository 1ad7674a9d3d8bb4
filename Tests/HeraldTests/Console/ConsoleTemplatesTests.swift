import Foundation
import HTTPTypes
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// The console's Templates pages (issue 25): what they save is what the admin template API reads back,
/// fields the form does not show survive an edit, refusals are the API's messages, and a send with values
/// is a template push like the push route's.
@Suite struct ConsoleTemplatesTests {
    static func post(_ h: TestHerald.Harness, _ cookie: String, _ path: String, _ fields: [String: String]) async throws
        -> ConsoleTests.Answer
    {
        let csrf = try await ConsoleTests.csrf(h.client, cookie)
        let form = (fields.merging(["csrf": csrf]) { $1 }).map {
            "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        }.joined(separator: "&")
        return try await ConsoleTests.send(h.client, .post, path, cookie: cookie, form: form)
    }

    @Test func aTemplateMadeInTheConsoleIsTheOneTheAPIReads() async throws {
        try await TestHerald.with(file: false) { h in
            let cookie = try await ConsoleTests.login(h.client)
            let empty = try await ConsoleTests.send(h.client, .get, "/console/templates", cookie: cookie)
            #expect(empty.status == .ok && empty.body.contains("No templates yet"))
            let created = try await Self.post(
                h, cookie, "/console/templates",
                [
                    "name": "sale", "message": "Hello {user}, {discount} off", "ios-alertTitle": "Sale", "ios-badge": "1",
                    "android-contentTitle": "Sale now", "android-priority": "5", "channels": "news, deals", "for-ios": "on",
                    "for-android": "on",
                ])
            #expect(created.status == .seeOther && created.headers[.location] == "/console/templates/sale?saved=1", "\(created.body)")
            let stored = try await h.client.call(.get, "/shop/k-admin/admin/pushtemplates/sale")
            #expect(stored.body["message"] == .string("Hello {user}, {discount} off"))
            #expect(stored.body["ios"]?["alertTitle"] == .string("Sale") && stored.body["ios"]?["badge"] == .integer(1))
            #expect(stored.body["android"]?["priority"] == .integer(5))
            #expect(stored.body["audience"]?["channels"] == .array([.string("news"), .string("deals")]))
            #expect(stored.body["audience"]?["os"] == .array([.string("IOS"), .string("ANDROID")]))

            let page = try await ConsoleTests.send(h.client, .get, "/console/templates/sale?saved=1", cookie: cookie)
            #expect(page.body.contains("Saved.") && page.body.contains("{user}, {discount}"), "the placeholders are listed")
            #expect(
                page.body.contains(#"data-preview="ios-title">Sale<"#) && page.body.contains(#"data-preview="android-title">Sale now<"#))
            let list = try await ConsoleTests.send(h.client, .get, "/console/templates", cookie: cookie)
            #expect(list.body.contains(#"href="/console/templates/sale""#) && list.body.contains("channels news, deals (iOS, Android)"))

            let again = try await Self.post(h, cookie, "/console/templates", ["name": "sale", "message": "other"])
            #expect(again.status == .badRequest && again.body.contains("exists already"))
            let badName = try await Self.post(h, cookie, "/console/templates", ["name": "no/slash", "message": "x"])
            #expect(badName.status == .badRequest && badName.body.contains("templateName"))
            let badBadge = try await Self.post(h, cookie, "/console/templates/sale", ["message": "x", "ios-badge": "-3"])
            #expect(badBadge.status == .badRequest && badBadge.body.contains("ios.badge"), "\(badBadge.body)")
            #expect(
                try await h.client.call(.get, "/shop/k-admin/admin/pushtemplates/sale").body["message"] == stored.body["message"],
                "unchanged")
        }
    }

    @Test func anEditKeepsWhatTheFormDoesNotShow() async throws {
        try await TestHerald.with(file: false) { h in
            let put = try await h.client.call(
                .put, "/shop/k-admin/admin/pushtemplates/rich",
                json: """
                    {"message": "m", "ios": {"alertTitle": "T", "actions": [{"id": "ok", "title": "OK"}], "customHeaders": {"k": "v"}},
                     "android": {"lightsOnMs": 100}, "audience": {"segment": {"appVersionAtLeast": "2.0"}}}
                    """)
            #expect(put.status == .created)
            let cookie = try await ConsoleTests.login(h.client)
            let page = try await ConsoleTests.send(h.client, .get, "/console/templates/rich", cookie: cookie)
            #expect(page.body.contains("android.lightsOnMs, audience.segment, ios.actions, ios.customHeaders"), "\(page.body)")
            let saved = try await Self.post(h, cookie, "/console/templates/rich", ["message": "new", "ios-alertTitle": ""])
            #expect(saved.status == .seeOther)
            let stored = try await h.client.call(.get, "/shop/k-admin/admin/pushtemplates/rich")
            #expect(stored.body["message"] == .string("new"))
            #expect(stored.body["ios"]?["alertTitle"] == nil, "emptied in the form: removed")
            #expect(
                stored.body["ios"]?["actions"]?[0]?["id"] == .string("ok") && stored.body["ios"]?["customHeaders"]?["k"] == .string("v"))
            #expect(stored.body["android"]?["lightsOnMs"] == .integer(100))
            #expect(stored.body["audience"]?["segment"]?["appVersionAtLeast"] == .string("2.0"))
        }
    }

    /// Template names may hold spaces: the pages' paths encode them, and every route decodes them.
    @Test func aTemplateWithASpaceInItsNameIsEditedSentAndDeleted() async throws {
        try await TestHerald.with(file: false) { h in
            let cookie = try await ConsoleTests.login(h.client)
            let created = try await Self.post(
                h, cookie, "/console/templates", ["name": "Spring sale", "message": "Hi", "channels": "news"])
            #expect(created.headers[.location] == "/console/templates/Spring%20sale?saved=1", "\(created.body)")
            #expect(try await ConsoleTests.send(h.client, .get, "/console/templates/Spring%20sale", cookie: cookie).status == .ok)
            let saved = try await Self.post(h, cookie, "/console/templates/Spring%20sale", ["message": "Hi again", "channels": "news"])
            #expect(saved.status == .seeOther, "\(saved.body)")
            #expect(try await h.client.call(.get, "/shop/k-admin/admin/pushtemplates/Spring%20sale").body["message"] == .string("Hi again"))
            #expect(try await Self.post(h, cookie, "/console/templates/Spring%20sale/send", [:]).status == .seeOther)
            #expect(try await Self.post(h, cookie, "/console/templates/Spring%20sale/delete", [:]).status == .seeOther)
        }
    }

    @Test func sendingWithValuesIsATemplatePushAndDeletingRemovesIt() async throws {
        try await TestHerald.with(file: false) { h in
            _ = try await h.client.call(
                .put, "/shop/k-admin/admin/pushtemplates/hello", json: #"{"message": "Hi {name}", "audience": {"channels": ["news"]}}"#)
            let cookie = try await ConsoleTests.login(h.client)
            let sent = try await Self.post(h, cookie, "/console/templates/hello/send", ["values": "name: Ada\nunused:"])
            #expect(sent.status == .seeOther, "\(sent.body)")
            let location = try #require(sent.headers[.location])
            let id = String(location.dropFirst("/console/messages/".count)).removingPercentEncoding ?? ""
            let message = try #require(try await h.messages.message(app: "shop", id: id))
            #expect(message.templateName == "hello" && message.channel.rawValue == "news")
            let payload = String(decoding: try #require(message.contents?.apns).payload, as: UTF8.self)
            #expect(payload.contains("Hi Ada"), "\(payload)")
            let bad = try await Self.post(h, cookie, "/console/templates/hello/send", ["values": "no colon"])
            #expect(bad.status == .badRequest && bad.body.contains("name: value"))

            let deleted = try await Self.post(h, cookie, "/console/templates/hello/delete", [:])
            #expect(deleted.status == .seeOther && deleted.headers[.location] == "/console/templates")
            #expect(try await h.client.call(.get, "/shop/k-admin/admin/pushtemplates/hello").status == .notFound)
            let gone = try await ConsoleTests.send(h.client, .get, "/console/templates/hello", cookie: cookie)
            #expect(gone.status == .notFound)
        }
    }
}
