import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Push templates over HTTP (issue 24): the admin's routes, the SDKs' downloads in the shape the SDKs
/// read (`fixtures/backendless-sdk/push-template.json`), and the refusals.
@Suite struct PushTemplateAPITests {
    static let admin = "/shop/k-admin/admin/pushtemplates"

    /// The fixture: the admin body with every SDK field, and each platform's expected download.
    static func fixture() throws -> JSONValue {
        try JSONValue.parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: FixtureFiles.path("fixtures/backendless-sdk/push-template.json")))))
    }

    static func text(_ value: JSONValue?) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(try #require(value)), as: UTF8.self)
    }

    @Test(arguments: PublishHarness.Database.available)
    func theSDKsDownloadEachPlatformsFieldsByName(_ database: PublishHarness.Database) async throws {
        let fixture = try Self.fixture()
        try await TestHerald.with(database: database) { h in
            let put = try await h.client.call(.put, Self.admin + "/spring-sale", json: try Self.text(fixture["admin"]))
            #expect(put.status == .created, "\(put.body)")
            _ = try await h.client.call(.put, Self.admin + "/plain", json: #"{"message": "Hello"}"#)

            // The Swift SDK's call (no device type) and the Flutter/JS ones, with the client key.
            for path in ["pushtemplates", "pushtemplates/ios", "pushtemplates/IOS", "pushtemplates/osx"] {
                let answer = try await h.client.call(.get, "/shop/k-client/messaging/" + path)
                #expect(answer.status == .ok, "\(path): \(answer.body)")
                #expect(answer.body["spring-sale"] == fixture["ios"], "\(path)")
                #expect(answer.body["plain"] == .object([:]), "\(path): a template without an iOS block is an empty one")
                #expect(answer.body.keys == ["spring-sale", "plain"])
            }
            let android = try await h.client.call(.get, "/shop/k-client/messaging/pushtemplates/android")
            #expect(android.body["spring-sale"] == fixture["android"], "the Android block carries its name")
            #expect(android.body["plain"] == .object(["name": .string("plain")]))

            let unknown = try await h.client.call(.get, "/shop/k-client/messaging/pushtemplates/windows")
            #expect(unknown.status == .badRequest && unknown.body.code == 8008)
            // Another app has none of them.
            let other = try await h.client.call(.put, "/blog/b-admin/admin/pushtemplates/x", json: #"{"message": "m"}"#)
            #expect(other.status == .created)
            let shops = try await h.client.call(.get, "/shop/k-client/messaging/pushtemplates")
            #expect(shops.body["x"] == nil)
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func anAdminCreatesReadsListsReplacesAndDeletes(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            let body = #"{"message": "Hi {user}", "ios": {"alertTitle": "Hi"}, "audience": {"channels": ["news"], "os": "IOS"}}"#
            let created = try await h.client.call(.put, Self.admin + "/welcome", json: body)
            #expect(created.status == .created)
            #expect(created.body["name"] == .string("welcome") && created.body["message"] == .string("Hi {user}"))
            let read = try await h.client.call(.get, Self.admin + "/welcome")
            #expect(read.status == .ok && read.body == created.body)
            #expect(read.body["audience"] == .object(["channels": .array([.string("news")]), "os": .string("IOS")]))

            let replaced = try await h.client.call(.put, Self.admin + "/welcome", json: #"{"message": "Hello"}"#)
            #expect(replaced.status == .ok, "a second PUT replaces")
            #expect(
                try await h.client.call(.get, Self.admin + "/welcome").body
                    == .object(["name": .string("welcome"), "message": .string("Hello")]))
            _ = try await h.client.call(.put, Self.admin + "/Spring%20sale", json: "{}")
            let list = try await h.client.call(.get, Self.admin)
            #expect(list.body["templates"]?[0]?["name"] == .string("Spring sale"))
            #expect(list.body["templates"]?[1]?["name"] == .string("welcome"))

            let deleted = try await h.client.call(.delete, Self.admin + "/welcome")
            #expect(deleted.status == .ok && deleted.body == .object(["result": .bool(true)]))
            for (method, path) in [(HTTPRequest.Method.get, "/welcome"), (.delete, "/welcome")] {
                let gone = try await h.client.call(method, Self.admin + path)
                #expect(gone.status == .notFound && gone.body.code == 5050, "\(method) \(path)")
            }
            // One app's admin key never reaches another's templates.
            _ = try await h.client.call(.put, Self.admin + "/mine", json: "{}")
            #expect(try await h.client.call(.get, "/blog/b-admin/admin/pushtemplates/mine").body.code == 5050)
            #expect(try await h.client.call(.delete, "/blog/b-admin/admin/pushtemplates/mine").body.code == 5050)
            #expect(try await h.client.call(.get, "/blog/b-admin/admin/pushtemplates").body == .object(["templates": .array([])]))
            // Admin only.
            for key in ["k-client", "k-server"] {
                for method in [HTTPRequest.Method.get, .put, .delete] {
                    let refused = try await h.client.call(method, "/shop/\(key)/admin/pushtemplates/mine", json: "{}")
                    #expect(refused.status == .forbidden && refused.body.code == 5007, "\(key) \(method)")
                }
            }
        }
    }

    @Test(arguments: [
        (#"{"ios": {"alertTitel": "x"}}"#, 8008, "ios.alertTitel"),
        (#"{"android": {"priority": 9}}"#, 8008, "android.priority"),
        (#"{"audience": {"os": "PALM"}}"#, 8008, "os"),
        (#"{"message": 5}"#, 8008, "message"),
        (#"[1]"#, 8008, "body"),
        (#"{"message": "#, 8002, ""),
    ])
    func aBadTemplateIsRefusedNamingTheFieldAndNothingIsStored(_ body: String, _ code: Int, _ field: String) async throws {
        try await TestHerald.with(file: false) { h in
            let answer = try await h.client.call(.put, Self.admin + "/bad", json: body)
            #expect(answer.status == .badRequest && answer.body.code == Int64(code), "\(body): \(answer.body)")
            if case .string(let message)? = answer.body["message"], !field.isEmpty { #expect(message.contains(field), "\(message)") }
            #expect(try await h.client.call(.get, Self.admin + "/bad").body.code == 5050)
        }
    }

    @Test func badNamesAndTheCountLimitAreRefused() async throws {
        try await TestHerald.with(file: false) { h in
            for name in ["a%2Fb", String(repeating: "n", count: 65), "%C3%A9t%C3%A9"] {
                let answer = try await h.client.call(.put, Self.admin + "/" + name, json: "{}")
                #expect(answer.status == .badRequest && answer.body.code == 8008, "\(name): \(answer.body)")
            }
            for index in 0..<SQLPushTemplateStore.defaultLimit {
                let answer = try await h.client.call(.put, Self.admin + "/t\(index)", json: "{}")
                #expect(answer.status == .created)
            }
            let over = try await h.client.call(.put, Self.admin + "/one-more", json: "{}")
            #expect(over.status == .badRequest && over.body.code == 8000, "\(over.body)")
            #expect(try await h.client.call(.put, Self.admin + "/t0", json: #"{"message": "x"}"#).status == .ok, "replacing stays possible")
        }
    }

    @Test func pushingWithAnUnknownTemplateOrBadValuesIsRefused() async throws {
        try await TestHerald.with(file: false) { h in
            let unknown = try await h.client.call(.post, "/shop/k-server/messaging/push/nope", json: "{}")
            #expect(unknown.status == .notFound && unknown.body.code == 5050)
            _ = try await h.client.call(.put, Self.admin + "/t", json: #"{"message": "Hi {user}"}"#)
            let badValue = try await h.client.call(
                .post, "/shop/k-server/messaging/push/t", json: #"{"templateValues": {"user": [1]}}"#)
            #expect(badValue.status == .badRequest && badValue.body.code == 8008)
            let notObject = try await h.client.call(.post, "/shop/k-server/messaging/push/t", json: #"{"templateValues": 5}"#)
            #expect(notObject.status == .badRequest && notObject.body.code == 8008)
            let client = try await h.client.call(.post, "/shop/k-client/messaging/push/t", json: "{}")
            #expect(client.status == .forbidden && client.body.code == 5007)
            #expect(try await h.client.call(.post, "/shop/k-server/messaging/pus/t", json: "{}").status == .notFound)
            // Accepted, with the values wrapped (Swift, JS) or bare (Flutter) or none at all.
            for body in [#"{"templateValues": {"user": "Ana"}}"#, #"{"user": "Ana"}"#, "{}", nil] {
                let accepted = try await h.client.call(.post, "/shop/k-server/messaging/push/t", json: body)
                #expect(accepted.status == .ok && accepted.body["status"] == .string("scheduled"), "\(body ?? "no body")")
            }
        }
    }
}
