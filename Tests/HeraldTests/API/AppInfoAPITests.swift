import Foundation
import HTTPTypes
import Herald
import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /{appId}/{apiKey}/info` and `GET /{appId}/{apiKey}/rt/lookup`, which the Backendless SDKs ask at
/// `initApp` for the real-time server's address (`rtURL`): any key of the app, the usual 2002 otherwise,
/// and an address from `http.publicURL`, else from the request's forwarded or `Host` headers, where a
/// value that is not a plain `host[:port]` is passed over.
@Suite struct AppInfoAPITests {
    static func get(
        _ client: some TestClientProtocol, _ uri: String, _ headers: [(String, String)] = []
    ) async throws -> (status: HTTPResponse.Status, body: JSONValue) {
        var fields: HTTPFields = [:]
        for (name, value) in headers { fields.append(HTTPField(name: try #require(HTTPField.Name(name)), value: value)) }
        return try await client.execute(uri: uri, method: .get, headers: fields) { response in
            (response.status, try JSONValue.parse(Array(response.body.readableBytesView)))
        }
    }

    @Test func everyRoleGetsTheAppsInfo() async throws {
        try await TestHerald.with(file: false) { h in
            for key in ["k-client", "k-server", "k-admin"] {
                let info = try await Self.get(h.client, "/shop/\(key)/info")
                #expect(info.status == .ok, "\(key)")
                // The router's test requests come with authority `localhost`, as a Host header would give it.
                #expect(
                    info.body
                        == .object([
                            "rtURL": .string("http://localhost"), "appId": .string("shop"), "apiKey": .string(key), "loggers": .array([]),
                        ]), "\(key)")
                let lookup = try await Self.get(h.client, "/shop/\(key)/rt/lookup")
                #expect(lookup.status == .ok && lookup.body == .string("http://localhost"), "\(key)")
            }
            let blog = try await Self.get(h.client, "/blog/b-admin/info")
            #expect(blog.body["appId"] == .string("blog") && blog.body["apiKey"] == .string("b-admin"))
        }
    }

    @Test func aWrongKeyOrAppIsRefusedAsOnEveryAppRoute() async throws {
        try await TestHerald.with(file: false) { h in
            for uri in [
                "/shop/k-wrong/info", "/shop/b-admin/info", "/nope/k-client/info", "/shop/k-wrong/rt/lookup", "/blog/k-admin/rt/lookup",
            ] {
                let answer = try await Self.get(h.client, uri)
                #expect(answer.status == .unauthorized, "\(uri)")
                #expect(
                    answer.body
                        == .object([
                            "code": .integer(2002), "message": .string("Unable to find application. Check application id and/or API key."),
                        ]), "\(uri): \(answer.body)")
            }
            let badEncoding = try await Self.get(h.client, "/shop/k-client%zz/info")
            #expect(badEncoding.status == .badRequest && badEncoding.body.code == 8008)
        }
    }

    @Test func forwardedHeadersAreHonoured() async throws {
        try await TestHerald.with(file: false) { h in
            for (headers, expected) in [
                ([("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "push.example.com")], "https://push.example.com"),
                (
                    [("X-Forwarded-Proto", "HTTPS, http"), ("X-Forwarded-Host", "push.example.com:8443, proxy.internal")],
                    "https://push.example.com:8443"
                ),
                ([("X-Forwarded-Host", "[2001:db8::1]:8080")], "http://[2001:db8::1]:8080"),
                ([("X-Forwarded-Proto", "https")], "https://localhost"),
                ([("X-Forwarded-Host", "10.0.0.7")], "http://10.0.0.7"),
            ] {
                let info = try await Self.get(h.client, "/shop/k-client/info", headers)
                #expect(info.body["rtURL"] == .string(expected), "\(headers)")
                let lookup = try await Self.get(h.client, "/shop/k-client/rt/lookup", headers)
                #expect(lookup.body == .string(expected), "\(headers)")
            }
        }
    }

    /// A forwarded value that is not a plain scheme or `host[:port]` is passed over: the answer never
    /// carries a path, a query, a user or another scheme a client slipped in.
    @Test func hostileForwardedValuesAreIgnored() async throws {
        try await TestHerald.with(file: false) { h in
            for headers in [
                [("X-Forwarded-Host", "evil.example.com/steal?x=1")],
                [("X-Forwarded-Host", "user@evil.example.com")],
                [("X-Forwarded-Host", "evil.example.com:99999")],
                [("X-Forwarded-Host", "evil.example.com:80#x")],
                [("X-Forwarded-Host", "evil .example.com")],
                [("X-Forwarded-Host", "[::1]/x")],
                [("X-Forwarded-Host", "[::1]x")],
                [("X-Forwarded-Host", "évil.example.com")],
                [("X-Forwarded-Host", "a..b")],
                [("X-Forwarded-Host", "")],
                [("X-Forwarded-Proto", "javascript")],
                [("X-Forwarded-Proto", "ftp"), ("X-Forwarded-Host", "\"><script>")],
            ] {
                let info = try await Self.get(h.client, "/shop/k-client/info", headers)
                #expect(info.status == .ok)
                #expect(info.body["rtURL"] == .string("http://localhost"), "\(headers): \(info.body)")
            }
        }
    }

    @Test func theConfiguredPublicURLWins() async throws {
        let publicURL = try PublicURL(parsing: "https://rt.example.com/")
        try await TestHerald.with(file: false, http: .init(host: "127.0.0.1", port: 0, publicURL: publicURL)) { h in
            let headers = [("X-Forwarded-Proto", "http"), ("X-Forwarded-Host", "proxy.internal:8080")]
            let info = try await Self.get(h.client, "/shop/k-server/info", headers)
            #expect(info.body["rtURL"] == .string("https://rt.example.com"))
            let lookup = try await Self.get(h.client, "/shop/k-client/rt/lookup", headers)
            #expect(lookup.body == .string("https://rt.example.com"))
        }
    }

    /// Over a real socket: the `Host` header as sent, and where Herald listens when a request has none.
    @Test func theHostHeaderThenTheListeningAddress() async throws {
        try await TestHerald.with(file: false, setup: .live, http: .init(host: "127.0.0.1", port: 0)) { h in
            let port = try #require(h.client.port)
            for (head, expected) in [
                ("GET /shop/k-client/rt/lookup HTTP/1.1\r\nHost: herald.lan:9090\r\n", "\"http://herald.lan:9090\""),
                ("GET /shop/k-client/rt/lookup HTTP/1.1\r\nHost: herald.lan/x\r\n", "\"http://127.0.0.1\""),
                ("GET /shop/k-client/rt/lookup HTTP/1.0\r\n", "\"http://127.0.0.1\""),
            ] {
                let connection = try RawConnection(port: port)
                _ = connection.send(Array("\(head)Connection: close\r\n\r\n".utf8))
                let answer = try #require(connection.readResponses().responses.first, "\(head)")
                #expect(answer.status == 200, "\(head): \(answer)")
                #expect(answer.text == expected, "\(head): \(answer)")
            }
        }
    }

    /// A browser's JS SDK asks for the info from the page: on an origin the app allows, it may read it.
    @Test func aPageOnAnAllowedOriginMayReadIt() async throws {
        try await TestHerald.with(file: false, apps: CORSAPITests.apps) { h in
            for uri in ["/shop/k-client/info", "/shop/k-client/rt/lookup"] {
                let preflight = try await CORSAPITests.send(h.client, .options, uri, origin: CORSAPITests.origin, asking: "GET")
                #expect(preflight.status == .noContent, "\(uri)")
                #expect(preflight.headers[.accessControlAllowMethods] == "GET", "\(uri)")
                let answer = try await CORSAPITests.send(h.client, .get, uri, origin: CORSAPITests.origin)
                #expect(answer.status == .ok && answer.headers[.accessControlAllowOrigin] == CORSAPITests.origin, "\(uri)")
            }
        }
    }
}
