import Foundation
import HeraldTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The binary's listeners (issue 11): `/metrics` on its own port behind a bearer token, the cap on open
/// connections, and `herald probe` (the container's health check).
@Suite(.serialized, .timeLimit(.minutes(1))) struct ListenerTests {
    @Test func metricsOnTheirOwnPortBehindABearerToken() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let metricsPort = try FreePort.pick()
        let token = "scrape-token-0123456789"
        let server = try HeraldProcess(
            ["serve", "--port", "0"], directory: scratch.url,
            environment: ["HERALD_METRICS_PORT": "\(metricsPort)", "HERALD_METRICS_BEARER_TOKEN": token])
        let base = try await server.waitUntilListening()
        let metrics = URL(string: "http://127.0.0.1:\(metricsPort)/metrics")!
        // Not on the main port any more; on its own, only with the token.
        let onMain = try await HTTP.send("GET", base.appendingPathComponent("metrics"))
        #expect(onMain.status == 404)
        #expect(try await HTTP.send("GET", metrics).status == 401)
        #expect(try await HTTP.send("GET", metrics, headers: ["Authorization": "Bearer wrong-token-0123456789"]).status == 401)
        let scraped = try await HTTP.send("GET", metrics, headers: ["Authorization": "Bearer \(token)"])
        #expect(scraped.status == 200)
        // The 404 above on the main port is counted there; the token is in no label.
        #expect(scraped.body.contains(#"herald_http_requests_total{method="GET",route="NotFound",status="404"} 1"#))
        #expect(!scraped.body.contains(token))
        #expect(!server.stdout.contains(token) && !server.stderr.contains(token))
        server.process.terminate()
        _ = try await server.waitForExit()
    }

    @Test func connectionsPastTheCapWaitUntilOneCloses() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try HeraldProcess(
            ["serve", "--port", "0"], directory: scratch.url, environment: ["HERALD_HTTP_MAX_CONNECTIONS": "2"])
        let base = try await server.waitUntilListening()
        let port = try #require(base.port)
        var held: [RawConnection] = [try RawConnection(port: port), try RawConnection(port: port)]
        // Both held connections are served.
        for connection in held { #expect(connection.request("GET /health HTTP/1.1\r\nHost: x\r\n\r\n", within: .seconds(5))) }
        // A third is accepted by the kernel but not served while two are open...
        let third = try RawConnection(port: port)
        #expect(!third.request("GET /health HTTP/1.1\r\nHost: x\r\n\r\n", within: .seconds(1)), "served past the cap")
        // ...and is served once one of the two closes.
        held.removeFirst()
        #expect(third.waitForAnswer(within: .seconds(5)), "not served after a connection closed")
        _ = held
        server.process.terminate()
        _ = try await server.waitForExit()
    }

    @Test func probeExitsZeroOnlyOnASuccessfulAnswer() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try HeraldProcess(["serve", "--port", "0"], directory: scratch.url)
        let base = try await server.waitUntilListening()
        let healthy = try await HeraldProcess.run(["probe", base.appendingPathComponent("health").absoluteString])
        #expect(healthy.code == 0, "\(healthy.stderr)")
        let missing = try await HeraldProcess.run(["probe", base.appendingPathComponent("nothing-here").absoluteString])
        #expect(missing.code == 1 && missing.stderr.contains("answered 404"), "\(missing.stderr)")
        server.process.terminate()
        _ = try await server.waitForExit()
        let closed = try await HeraldProcess.run(["probe", "--timeout", "1", base.appendingPathComponent("health").absoluteString])
        #expect(closed.code == 1 && closed.stderr.contains("herald probe:"), "\(closed.stderr)")
        let notAURL = try await HeraldProcess.run(["probe", "not a url"])
        #expect(notAURL.code == 1 && notAURL.stderr.contains("is not an http(s) URL"))
    }
}

/// A port nothing listens on at the moment it is picked (bound to 0, read back, closed).
enum FreePort {
    static func pick() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> Bool in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else { throw HeraldProcess.Failure("cannot pick a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

extension RawConnection {
    /// Sends `text` and reports whether an answer starts arriving within `duration`.
    func request(_ text: String, within duration: Duration) -> Bool {
        guard send(Array(text.utf8)) else { return false }
        return waitForAnswer(within: duration)
    }

    /// Whether bytes arrive (an answer starts) within `duration`.
    func waitForAnswer(within duration: Duration) -> Bool {
        var descriptor = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        return recv(socketDescriptor, &buffer, buffer.count, 0) > 0
    }
}
