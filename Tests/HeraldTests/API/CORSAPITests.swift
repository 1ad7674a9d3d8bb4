import Foundation
import Herald
import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

/// apps[].cors.allowedOrigins: a page on an allowed origin may register its browser (preflight and
/// request), nothing else answers cross-origin, and no answer allows credentials (issue 22).
@Suite struct CORSAPITests {
    static let origin = "https://shop.example.com"
    static var apps: [AppConfiguration] {
        var apps = TestHerald.apps
        apps[0].allowedOrigins = [origin]
        return apps
    }

    struct Answer {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: JSONValue
    }

    static func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, origin: String?, asking: String? = nil,
        json: String? = nil
    ) async throws -> Answer {
        var headers: HTTPFields = [:]
        if let origin { headers[.origin] = origin }
        if let asking { headers[.accessControlRequestMethod] = asking }
        if json != nil { headers[.contentType] = "application/json" }
        return try await client.execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) { response in
            let bytes = Array(response.body.readableBytesView)
            return Answer(status: response.status, headers: response.headers, body: bytes.isEmpty ? .null : try JSONValue.parse(bytes))
        }
    }

    @Test func aPageOnAnAllowedOriginRegistersItsBrowser() async throws {
        try await TestHerald.with(file: false, apps: Self.apps) { h in
            let register = "/shop/k-client/messaging/registrations"
            let preflight = try await Self.send(h.client, .options, register, origin: Self.origin, asking: "POST")
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowOrigin] == Self.origin)
            #expect(preflight.headers[.accessControlAllowMethods] == "POST")
            #expect(preflight.headers[.accessControlAllowHeaders] == "Content-Type")
            #expect(preflight.headers[.vary] == "Origin")
            #expect(preflight.headers[.accessControlAllowCredentials] == nil)

            let registered = try await Self.send(
                h.client, .post, register, origin: Self.origin, json: #"{"deviceToken": "aabb", "deviceId": "browser-1"}"#)
            #expect(registered.status == .ok)
            #expect(registered.headers[.accessControlAllowOrigin] == Self.origin)
            #expect(registered.headers[.accessControlAllowCredentials] == nil)
            // An error answer is readable by the page too.
            let refused = try await Self.send(h.client, .post, register, origin: Self.origin, json: #"{"deviceId": "browser-2"}"#)
            #expect(refused.status == .badRequest && refused.body["code"] == .integer(8007))
            #expect(refused.headers[.accessControlAllowOrigin] == Self.origin)

            let read = try await Self.send(h.client, .options, register + "/browser-1", origin: Self.origin, asking: "DELETE")
            #expect(read.status == .noContent && read.headers[.accessControlAllowMethods] == "GET, DELETE")
        }
    }

    @Test func otherOriginsRoutesAndAppsGetNoCORSHeaders() async throws {
        try await TestHerald.with(file: false, apps: Self.apps) { h in
            let register = "/shop/k-client/messaging/registrations"
            for (method, uri, origin, asking) in [
                (HTTPRequest.Method.options, register, "https://evil.example.com", "POST"),
                (.options, register, Self.origin, "PUT"),
                (.options, "/shop/k-admin/devices", Self.origin, "GET"),
                (.options, "/shop/k-server/messaging/news", Self.origin, "POST"),
                (.options, "/shop/k-admin/admin/sweep", Self.origin, "POST"),
                (.options, "/blog/b-admin/messaging/registrations", Self.origin, "POST"),
            ] {
                let answer = try await Self.send(h.client, method, uri, origin: origin, asking: asking)
                #expect(answer.status == .forbidden, "\(uri) from \(origin)")
                #expect(answer.body["code"] == .integer(403), "\(uri)")
                #expect(answer.headers[.accessControlAllowOrigin] == nil, "\(uri) from \(origin)")
            }
            // Plain requests from a page on an allowed origin to a server or admin route: answered (the key
            // decides), but without the header, so the browser keeps the answer from the page.
            let listed = try await Self.send(h.client, .get, "/shop/k-admin/devices", origin: Self.origin)
            #expect(listed.status == .ok && listed.headers[.accessControlAllowOrigin] == nil)
            let noOrigin = try await Self.send(h.client, .post, register, origin: nil, json: #"{"deviceToken": "aabb", "deviceId": "d"}"#)
            #expect(noOrigin.status == .ok && noOrigin.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test func originsAreCheckedAtStartUp() throws {
        for (origin, accepted) in [
            ("https://Shop.Example.com", "https://shop.example.com"), ("http://localhost:3000", "http://localhost:3000"), ("*", "*"),
        ] {
            let configuration = try ConfigurationLoader.load(
                file: nil,
                environment: [
                    "HERALD_APPS_0_ID": "shop", "HERALD_APPS_0_KEYS_0_KEY": "k", "HERALD_APPS_0_KEYS_0_ROLE": "client",
                    "HERALD_APPS_0_CORS_ALLOWED_ORIGINS_0": origin,
                ])
            #expect(configuration.apps[0].allowedOrigins == [accepted])
        }
        for origin in ["https://shop.example.com/", "https://shop.example.com/app", "ftp://x.example.com", "shop.example.com", ""] {
            #expect(throws: ConfigurationError.self, "\(origin)") {
                try ConfigurationLoader.load(
                    file: nil,
                    environment: [
                        "HERALD_APPS_0_ID": "shop", "HERALD_APPS_0_KEYS_0_KEY": "k", "HERALD_APPS_0_KEYS_0_ROLE": "client",
                        "HERALD_APPS_0_CORS_ALLOWED_ORIGINS_0": origin,
                    ])
            }
        }
    }
}
