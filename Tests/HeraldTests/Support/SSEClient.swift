import Foundation
import HeraldTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A Server-Sent Events client over a `RawConnection`: sends one GET, then reads the chunked answer as it
/// arrives and splits it into events, without blocking a thread while it waits.
final class SSEClient: @unchecked Sendable {
    struct Event: Equatable {
        var id: String?
        var event: String?
        var data: String
    }

    let connection: RawConnection
    private var raw: [UInt8] = []
    private var body: [UInt8] = []
    private(set) var status = 0
    private(set) var headers: [String: String] = [:]
    /// Comment lines seen (heartbeats).
    private(set) var comments = 0
    private var pending: [Event] = []
    private(set) var closed = false

    /// `cookie`: a Cookie header's value (the console's session).
    init(port: Int, path: String, lastEventId: String? = nil, cookie: String? = nil) throws {
        connection = try RawConnection(port: port)
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if let lastEventId { request += "Last-Event-ID: \(lastEventId)\r\n" }
        if let cookie { request += "Cookie: \(cookie)\r\n" }
        request += "\r\n"
        _ = connection.send(Array(request.utf8))
    }

    /// Reads what has arrived (without waiting).
    private func pump() {
        if !closed && !connection.readAvailable(into: &raw) { closed = true }
        parse()
    }

    private func parse() {
        if status == 0 {
            guard let head = RawConnection.takeHead(&raw) else { return }
            (status, headers) = head
        }
        if headers["transfer-encoding"] == "chunked" {
            // De-chunk what is complete.
            while let lineEnd = find(Array("\r\n".utf8), in: raw) {
                guard let size = Int(String(decoding: raw[..<lineEnd], as: UTF8.self), radix: 16) else { break }
                guard raw.count >= lineEnd + 2 + size + 2 else { break }
                body.append(contentsOf: raw[(lineEnd + 2)..<(lineEnd + 2 + size)])
                raw.removeFirst(lineEnd + 2 + size + 2)
                if size == 0 { closed = true }
            }
        } else {
            body.append(contentsOf: raw)
            raw.removeAll()
        }
        // Events end with a blank line.
        while let end = find(Array("\n\n".utf8), in: body) {
            let block = String(decoding: body[..<end], as: UTF8.self)
            body.removeFirst(end + 2)
            var event = Event(id: nil, event: nil, data: "")
            var hasData = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") {
                    comments += 1
                } else if line.hasPrefix("id: ") {
                    event.id = String(line.dropFirst(4))
                } else if line.hasPrefix("event: ") {
                    event.event = String(line.dropFirst(7))
                } else if line.hasPrefix("data: ") {
                    event.data += String(line.dropFirst(6))
                    hasData = true
                }
            }
            if hasData { pending.append(event) }
        }
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? { RawConnection.find(needle, in: haystack) }

    /// Waits until the answer's head has arrived.
    func head(within timeout: Duration = .seconds(10)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while status == 0 {
            pump()
            if closed && status == 0 { throw HeraldProcess.Failure("closed before an answer") }
            if ContinuousClock.now > deadline { throw HeraldProcess.Failure("no answer head within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
        return status
    }

    /// The next `count` events, waiting up to `timeout` for them.
    func events(_ count: Int, within timeout: Duration = .seconds(10)) async throws -> [Event] {
        let deadline = ContinuousClock.now + timeout
        while pending.count < count {
            pump()
            if closed && pending.count < count { break }
            if ContinuousClock.now > deadline { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        let taken = Array(pending.prefix(count))
        pending.removeFirst(taken.count)
        return taken
    }

    /// Whether an event arrives within `duration` (for "nothing more comes" checks); it stays unread.
    func anyEvent(within duration: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + duration
        while pending.isEmpty, ContinuousClock.now < deadline, !closed {
            pump()
            try await Task.sleep(for: .milliseconds(5))
        }
        pump()
        return !pending.isEmpty
    }

    /// Waits until at least `count` comment lines (heartbeats) have arrived.
    func waitForComments(_ count: Int, within timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while comments < count, ContinuousClock.now < deadline {
            pump()
            try await Task.sleep(for: .milliseconds(20))
        }
        return comments >= count
    }

    /// Whether the server ended the stream within `timeout`.
    func waitForEnd(within timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !closed, ContinuousClock.now < deadline {
            pump()
            try await Task.sleep(for: .milliseconds(10))
        }
        return closed
    }
}
