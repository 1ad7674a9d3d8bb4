import Foundation
import HeraldTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// http.idleTimeoutSeconds: a client that connects and sends nothing, or sends its request head or its
/// body a byte at a time, is cut off once the timeout passes without a whole request read (issue 11).
@Suite(.serialized, .timeLimit(.minutes(1))) struct SlowClientTests {
    @Test func silentAndTricklingClientsAreCutOff() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try HeraldProcess(
            ["serve", "--port", "0"], directory: scratch.url, environment: ["HERALD_HTTP_IDLE_TIMEOUT_SECONDS": "1"])
        let base = try await server.waitUntilListening()
        let port = try #require(base.port)

        // Sends nothing: closed after about a second.
        let silent = try RawConnection(port: port)
        let silentStart = ContinuousClock.now
        #expect(silent.waitForClose(within: .seconds(5)), "a silent connection stays open")
        #expect(ContinuousClock.now - silentStart >= .milliseconds(900))

        // A request head a byte every 200 ms: closed about a second after it began, though bytes keep coming.
        let trickle = try RawConnection(port: port)
        let trickleStart = ContinuousClock.now
        var closed = false
        for byte in Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8) {
            guard trickle.send([byte]) else {
                closed = true
                break
            }
            if trickle.waitForClose(within: .milliseconds(200)) {
                closed = true
                break
            }
        }
        #expect(closed, "a trickled request head was served in full")
        #expect(ContinuousClock.now - trickleStart < .seconds(4))

        // A whole head, then a body a byte every 200 ms: each byte would restart the idle timeout, but the
        // request as a whole has the same second, so it is cut off too.
        let slowBody = try RawConnection(port: port)
        let head =
            "POST /shop/k-client/messaging/registrations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + "Content-Length: 1000\r\n\r\n"
        #expect(slowBody.send(Array(head.utf8)))
        let bodyStart = ContinuousClock.now
        var bodyCut = false
        for _ in 0..<40 {
            guard slowBody.send(Array("{".utf8)) else {
                bodyCut = true
                break
            }
            if slowBody.waitForClose(within: .milliseconds(200)) {
                bodyCut = true
                break
            }
        }
        #expect(bodyCut, "a body trickled for 8 s was read to the end")
        #expect(ContinuousClock.now - bodyStart < .seconds(4))

        // A client that sends its request promptly is answered as usual.
        #expect(try await HTTP.send("GET", base.appendingPathComponent("health")).status == 200)
        server.process.terminate()
        _ = try await server.waitForExit()
    }
}
