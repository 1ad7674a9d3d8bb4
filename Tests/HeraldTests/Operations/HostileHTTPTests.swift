import Foundation
import HeraldTestSupport
import Testing

/// Requests no honest client sends, over real sockets to the real binary: each is answered with a 4xx
/// (501 for a transfer coding Herald does not implement, 431 for a head too large) in Herald's `{"code","message"}` shape, never a
/// 5xx or an empty body, and the server answers a good request afterwards (issue 22).
@Suite(.serialized, .timeLimit(.minutes(2))) struct HostileHTTPTests {
    static let configuration = """
        {"apps": [{"id": "shop", "keys": [{"key": "k-client", "role": "client"}, {"key": "k-server", "role": "server"},
                                         {"key": "k-admin", "role": "admin"}]}]}
        """
    static let register = "/shop/k-client/messaging/registrations"

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var bytes: [UInt8]
        /// The statuses accepted for the (last) answer.
        var statuses: Set<Int>
        /// Answers expected before the one checked (pipelining).
        var before: Int = 0
        /// The error code, when it is not the status (413 is Backendless's 8000 naming "body").
        var code: Int?
        var description: String { name }

        init(_ name: String, _ text: String, _ statuses: Set<Int>, before: Int = 0, code: Int? = nil) {
            self.init(name, Array(text.utf8), statuses, before: before, code: code)
        }

        init(_ name: String, _ bytes: [UInt8], _ statuses: Set<Int>, before: Int = 0, code: Int? = nil) {
            self.name = name
            self.bytes = bytes
            self.statuses = statuses
            self.before = before
            self.code = code
        }
    }

    static func post(_ headers: String, body: String) -> String {
        "POST \(register) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\(headers)\r\n\(body)"
    }

    static let cases: [Case] = [
        Case("chunk size not hex", post("Transfer-Encoding: chunked\r\n", body: "ZZZ\r\n{}\r\n0\r\n\r\n"), [400]),
        Case("chunk without its CRLF", post("Transfer-Encoding: chunked\r\n", body: "2\r\n{}XX0\r\n\r\n"), [400]),
        Case("transfer coding gzip", post("Transfer-Encoding: gzip\r\n", body: "{}"), [501]),
        Case("bad request line", "GARBAGE\r\n\r\n", [400]),
        Case("unknown HTTP version", "GET /health HTTP/9.9\r\nHost: x\r\n\r\n", [400]),
        Case("unknown method", "FROB /health HTTP/1.1\r\nHost: x\r\n\r\n", [400]),
        Case("CONNECT", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", [400]),
        Case("non-UTF-8 path", Array("GET /shop/".utf8) + [0xFF, 0xFE] + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8), [400]),
        Case(
            "Content-Length and Transfer-Encoding",
            post("Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", body: "2\r\n{}\r\n0\r\n\r\n"), [400]),
        Case("two different Content-Lengths", post("Content-Length: 2\r\nContent-Length: 3\r\n", body: "{} "), [400]),
        Case("header name with a space", "GET /health HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n", [400]),
        Case("header name with a control byte", "GET /health HTTP/1.1\r\nHost: x\r\nBad\u{01}Name: 1\r\n\r\n", [400]),
        Case("header value with a NUL", "GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\u{00}b\r\n\r\n", [400]),
        Case(
            "a header line of 100 KiB", "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 100 * 1024))\r\n\r\n",
            [431]),
        Case(
            "10,000 headers", "GET /health HTTP/1.1\r\nHost: x\r\n" + (0..<10_000).map { "X-H\($0): v\r\n" }.joined() + "\r\n", [431]),
        Case("a request line of 1 MiB", "GET /\(String(repeating: "a", count: 1024 * 1024)) HTTP/1.1\r\nHost: x\r\n\r\n", [431]),
        Case("Content-Length -1", post("Content-Length: -1\r\n", body: "{}"), [400]),
        Case("Content-Length past 64 bits", post("Content-Length: 99999999999999999999\r\n", body: "{}"), [400]),
        Case(
            "a good request, then a malformed one", "GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nBad Name: 1\r\n\r\n",
            [400], before: 1),
        Case(
            "a TLS ClientHello", [0x16, 0x03, 0x01, 0x00, 0xA5, 0x01, 0x00, 0x00, 0xA1, 0x03, 0x03] + Array(repeating: 0x2A, count: 64),
            [400]),
        Case(
            "Expect: 100-continue with an oversize body", post("Content-Length: 10000000\r\nExpect: 100-continue\r\n", body: ""), [413],
            code: 8000),
        Case("a body shorter than its Content-Length, then silence", post("Content-Length: 100\r\n", body: "{\"deviceToken\":"), [408]),
        Case("PUT on a GET route", "PUT /health HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", [405]),
        Case("PATCH on the registration route", "PATCH \(register) HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", [405]),
    ]

    @Test func everyHostileRequestGetsAJSON4xxAndTheServerGoesOn() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let config = try scratch.write("herald.json", Self.configuration)
        let server = try HeraldProcess(
            ["serve", "--config", config, "--port", "0"], directory: scratch.url,
            environment: ["HERALD_HTTP_IDLE_TIMEOUT_SECONDS": "1"])
        let base = try await server.waitUntilListening()
        let port = try #require(base.port)
        for hostile in Self.cases {
            let connection = try RawConnection(port: port)
            _ = connection.send(hostile.bytes)
            let (responses, _) = connection.readResponses(hostile.before + 1, within: .seconds(4))
            guard let answer = responses.last, responses.count == hostile.before + 1 else {
                Issue.record("\(hostile): \(responses.count) answers, want \(hostile.before + 1): \(responses)")
                continue
            }
            #expect(responses.dropLast().allSatisfy { $0.status == 200 }, "\(hostile): \(responses)")
            #expect(hostile.statuses.contains(answer.status), "\(hostile): \(answer)")
            let shape = answer.errorShape
            #expect(shape != nil, "\(hostile): not Herald's error shape: \(answer)")
            #expect(shape?.code == hostile.code ?? answer.status, "\(hostile): \(answer)")
            if answer.status == 405 { #expect(answer.headers["allow"]?.isEmpty == false, "\(hostile): \(answer)") }
            #expect(try await HTTP.send("GET", base.appendingPathComponent("health")).status == 200, "after \(hostile)")
        }
        #expect(!server.stderr.contains("request failed"), "no request was an internal error: \(server.stderr.suffix(2000))")
        // Each kind is counted, named for what the client did.
        let metrics = try await HTTP.send("GET", base.appendingPathComponent("metrics"))
        for kind in ["chunk_size", "transfer_encoding", "header_overflow", "conflicting_length", "connect", "body_timeout", "method"] {
            #expect(metrics.body.contains("herald_http_protocol_errors_total{kind=\"\(kind)\"}"), "\(kind) counted")
        }
        server.process.terminate()
        _ = try await server.waitForExit()
    }

    @Test func aKnownPathNamesItsMethods() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let config = try scratch.write("herald.json", Self.configuration)
        let server = try HeraldProcess(["serve", "--config", config, "--port", "0"], directory: scratch.url)
        let base = try await server.waitUntilListening()
        let port = try #require(base.port)
        for (request, allow) in [
            ("PUT /health", "GET"),
            ("PATCH \(Self.register)", "POST"),
            ("PUT \(Self.register)/device-1", "DELETE, GET"),
            ("PATCH /shop/k-server/messaging/news", "DELETE, GET, POST"),
        ] {
            let connection = try RawConnection(port: port)
            _ = connection.send(Array("\(request) HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".utf8))
            let answer = try #require(connection.readResponses().responses.first, "\(request)")
            #expect(answer.status == 405, "\(request): \(answer)")
            #expect(answer.headers["allow"] == allow, "\(request): \(answer)")
            #expect(answer.errorShape?.code == 405, "\(request): \(answer)")
        }
        // HTTP/1.0 without Host is still HTTP: answered (with a Content-Length, so a 1.0 client knows where
        // the answer ends; the connection is left to idle out, as Hummingbird keeps it).
        let old = try RawConnection(port: port)
        _ = old.send(Array("GET /health HTTP/1.0\r\n\r\n".utf8))
        let answers = old.readResponses().responses
        #expect(answers.first?.status == 200, "\(answers)")
        #expect(answers.first?.headers["content-length"] != nil)
        // A path no route has stays 404.
        let unknown = try RawConnection(port: port)
        _ = unknown.send(Array("PUT /nothing/here HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".utf8))
        #expect(unknown.readResponses().responses.first?.status == 404)
        server.process.terminate()
        _ = try await server.waitForExit()
    }
}
