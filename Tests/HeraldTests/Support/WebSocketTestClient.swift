import Foundation
import HeraldTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A WebSocket client (RFC 6455) over a `RawConnection`, written from the RFC so that Herald's server is
/// checked by code that shares nothing with it: sends the upgrade request, then reads the server's frames as
/// they arrive without blocking a thread while it waits. Like a browser, it answers pings at once, whatever
/// the test is doing: a task reads every 20 ms until the connection closes (a client that answered only
/// while a test waited on it was once closed for a ping timeout on a loaded machine, between two steps).
final class WebSocketTestClient: @unchecked Sendable {
    let connection: RawConnection
    let key: String
    /// Guards everything below it and the socket's writes (a pong and a test's frame never interleave).
    private let lock = NSLock()
    private var raw: [UInt8] = []
    private var _status = 0
    private var _headers: [String: String] = [:]
    private var _texts: [String] = []
    private var _pings = 0
    private var _close: (code: Int, reason: String)?
    private var _closed = false
    private var _violations: [String] = []
    private var reader: Task<Void, Never>?

    var status: Int { lock.withLock { _status } }
    var headers: [String: String] { lock.withLock { _headers } }
    var texts: [String] { lock.withLock { _texts } }
    var pings: Int { lock.withLock { _pings } }
    /// The server's close frame: its code and reason.
    var close: (code: Int, reason: String)? { lock.withLock { _close } }
    var closed: Bool { lock.withLock { _closed } }
    /// Server frames that broke the RFC (a masked frame, an unknown opcode).
    var violations: [String] { lock.withLock { _violations } }

    init(port: Int, path: String, answerPings: Bool = true) throws {
        connection = try RawConnection(port: port)
        key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        self.answerPings = answerPings
        let request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        _ = connection.send(Array(request.utf8))
        // An unstructured task, in a test client only: it must outlive every call the test makes, as a
        // browser's network stack does; it holds the client weakly and ends when the connection closes
        // or the client goes (deinit cancels it).
        reader = Task.detached { [weak self] in
            while let client = self, !Task.isCancelled {
                if client.lock.withLock({ client.pump() }) { return }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    deinit { reader?.cancel() }

    private let answerPings: Bool

    /// Reads what has arrived (without waiting); true once the connection has closed. Called with the lock held.
    @discardableResult
    private func pump() -> Bool {
        if !_closed && !connection.readAvailable(into: &raw) { _closed = true }
        parse()
        return _closed
    }

    private func parse() {
        if _status == 0 {
            guard let head = RawConnection.takeHead(&raw) else { return }
            (_status, _headers) = head
        }
        guard _status == 101 else { return }
        while raw.count >= 2 {
            let opcode = raw[0] & 0x0F
            if raw[1] & 0x80 != 0 { _violations.append("a masked frame from the server") }
            var length = Int(raw[1] & 0x7F)
            var offset = 2
            if length == 126 {
                guard raw.count >= 4 else { return }
                length = Int(raw[2]) << 8 | Int(raw[3])
                offset = 4
            } else if length == 127 {
                guard raw.count >= 10 else { return }
                length = raw[2..<10].reduce(0) { $0 << 8 | Int($1) }
                offset = 10
            }
            guard raw.count >= offset + length else { return }
            let payload = Array(raw[offset..<(offset + length)])
            raw.removeFirst(offset + length)
            switch opcode {
            case 0x1: _texts.append(String(decoding: payload, as: UTF8.self))
            case 0x9:
                _pings += 1
                if answerPings { _ = sendFrame(opcode: 0xA, payload: payload) }
            case 0x8:
                let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005
                _close = (code, String(decoding: payload.dropFirst(2), as: UTF8.self))
                // Echoed, as a browser does, which lets the server close the connection.
                if answerPings { sendFrame(opcode: 0x8, payload: Array(payload.prefix(2))) }
            case 0xA: break
            default: _violations.append("opcode \(opcode)")
            }
        }
    }

    /// Sends one masked frame (clients mask every frame).
    @discardableResult
    func send(opcode: UInt8, payload: [UInt8]) -> Bool {
        lock.withLock { sendFrame(opcode: opcode, payload: payload) }
    }

    /// `send` with the lock held.
    @discardableResult
    private func sendFrame(opcode: UInt8, payload: [UInt8]) -> Bool {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return connection.send(frame)
    }

    /// Sends a close frame with `code`.
    func sendClose(code: Int = 1000) {
        send(opcode: 0x8, payload: [UInt8(code >> 8), UInt8(code & 0xFF)])
    }

    /// Waits until the answer's head has arrived.
    func head(within timeout: Duration = .seconds(10)) async throws -> Int {
        try await wait(within: timeout, "an answer head") { $0.status != 0 }
        return status
    }

    /// The next `count` text messages, waiting up to `timeout` for them (fewer if they do not come).
    func messages(_ count: Int, within timeout: Duration = .seconds(10)) async throws -> [String] {
        try? await wait(within: timeout, "\(count) messages") { $0.texts.count >= count }
        return lock.withLock {
            let taken = Array(_texts.prefix(count))
            _texts.removeFirst(taken.count)
            return taken
        }
    }

    /// Whether a text message arrives within `duration` (it stays unread).
    func anyMessage(within duration: Duration) async throws -> Bool {
        try? await wait(within: duration, "a message") { !$0.texts.isEmpty }
        return !texts.isEmpty
    }

    /// Waits for the server's close frame.
    func closeFrame(within timeout: Duration = .seconds(10)) async throws -> (code: Int, reason: String) {
        try await wait(within: timeout, "a close frame") { $0.close != nil }
        return try close ?? { throw HeraldProcess.Failure("no close frame") }()
    }

    /// Waits until `condition` holds, reading as frames arrive.
    func wait(within timeout: Duration, _ what: String, until condition: (WebSocketTestClient) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            _ = lock.withLock { pump() }
            if condition(self) { return }
            // Read again once closed: the reader may have parsed the last frames and the end together
            // between the two reads above.
            if closed {
                if condition(self) { return }
                throw HeraldProcess.Failure("the connection closed before \(what)")
            }
            if ContinuousClock.now > deadline { throw HeraldProcess.Failure("no \(what) within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
