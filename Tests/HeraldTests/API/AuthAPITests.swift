import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

/// Every app route checks the app id and the key's role before it reads anything else.
@Suite struct AuthAPITests {
    static let routes: [(HTTPRequest.Method, String, APIKeyRole)] = [
        (.post, "messaging/registrations", .client),
        (.get, "messaging/registrations/d1", .client),
        (.delete, "messaging/registrations/d1", .client),
        (.get, "messaging/pushtemplates", .client),
        (.get, "messaging/pushtemplates/ios", .client),
        (.delete, "messaging/channels/news", .server),
        (.get, "messaging/channels", .admin),
        (.post, "admin/sweep", .admin),
        (.get, "admin/pushtemplates", .admin),
        (.put, "admin/pushtemplates/t", .admin),
        (.get, "admin/pushtemplates/t", .admin),
        (.delete, "admin/pushtemplates/t", .admin),
        (.get, "messaging/pushtemplates/android", .client),
        (.post, "messaging/push/t", .server),
        (.post, "messaging/news", .server),
        (.get, "messaging/message:0ae1b200-5016-40f7-bdc5-92813aec5daf", .server),
        (.delete, "messaging/message:0ae1b200-5016-40f7-bdc5-92813aec5daf", .server),
    ]

    /// The publishing routes answer 5007 in Backendless's own words.
    static func isPublishing(_ path: String) -> Bool {
        path == "messaging/news" || path.hasPrefix("messaging/message:") || path.hasPrefix("messaging/push/")
    }

    @Test func unknownAppOrKeyIs401With2002OnEveryRoute() async throws {
        try await TestHerald.with(file: false) { h in
            for (method, path, _) in Self.routes {
                for prefix in ["/nope/k-admin", "/shop/wrong-key", "/SHOP/k-admin"] {
                    let answer = try await h.client.call(method, "\(prefix)/\(path)", json: "{}")
                    #expect(answer.status == .unauthorized, "\(method) \(prefix)/\(path)")
                    #expect(
                        answer.body
                            == .object([
                                "code": .integer(2002),
                                "message": .string("Unable to find application. Check application id and/or API key."),
                            ]))
                }
            }
        }
    }

    @Test func aKeyWithTooSmallARoleIs403With5007() async throws {
        try await TestHerald.with(file: false) { h in
            let keys: [(String, APIKeyRole)] = [("k-client", .client), ("k-server", .server), ("k-admin", .admin)]
            for (method, path, required) in Self.routes {
                for (key, role) in keys where role < required {
                    let answer = try await h.client.call(method, "/shop/\(key)/\(path)", json: "{}")
                    #expect(answer.status == .forbidden, "\(key) on \(method) \(path)")
                    #expect(answer.body.code == 5007)
                    guard case .string(let message)? = answer.body["message"] else { continue }
                    if Self.isPublishing(path) {
                        #expect(message == "User has no permission to publish message")
                    } else {
                        #expect(message.contains(required.rawValue), "the message names the role required")
                    }
                }
            }
        }
    }

    @Test func largerRolesCanDoWhatSmallerOnesCan() async throws {
        try await TestHerald.with(file: false) { h in
            for key in ["k-client", "k-server", "k-admin"] {
                let answer = try await h.client.call(
                    .post, "/shop/\(key)/messaging/registrations", json: #"{"deviceToken": "ab", "deviceId": "\#(key)"}"#)
                #expect(answer.status == .ok)
            }
            #expect(try await h.client.call(.delete, "/shop/k-admin/messaging/channels/default").status == .ok)
        }
    }
}
