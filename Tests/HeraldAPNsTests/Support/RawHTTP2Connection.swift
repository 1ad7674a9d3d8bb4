import Foundation
import Glibc

/// A cleartext HTTP/2 (h2c, prior knowledge) connection that sends and reads single frames, so a test can
/// see what a real client hides: the SETTINGS a server sends, when, and which streams it resets. Blocking
/// socket calls with a read timeout (Linux, as the tests' /proc readers); header blocks as HPACK literals,
/// never indexed nor Huffman-coded.
final class RawHTTP2Connection {
    /// One frame as read.
    struct Frame: CustomStringConvertible {
        var type: UInt8
        var flags: UInt8
        var stream: UInt32
        var payload: [UInt8]

        static let data: UInt8 = 0, headers: UInt8 = 1, rstStream: UInt8 = 3, settings: UInt8 = 4, goAway: UInt8 = 7

        var isAck: Bool { flags & 0x1 != 0 }
        var endsStream: Bool { flags & 0x1 != 0 }

        /// SETTINGS_MAX_CONCURRENT_STREAMS in a (non-ACK) SETTINGS frame, if it carries one.
        var maxConcurrentStreams: Int? {
            guard type == Self.settings, !isAck else { return nil }
            var value: Int?
            for offset in stride(from: 0, to: payload.count - 5, by: 6) where payload[offset] == 0 && payload[offset + 1] == 3 {
                value = payload[offset + 2..<offset + 6].reduce(0) { $0 << 8 | Int($1) }
            }
            return value
        }

        /// RST_STREAM's or GOAWAY's error code.
        var errorCode: UInt32? {
            let bytes: ArraySlice<UInt8>
            switch type {
            case Self.rstStream where payload.count == 4: bytes = payload[0..<4]
            case Self.goAway where payload.count >= 8: bytes = payload[4..<8]
            default: return nil
            }
            return bytes.reduce(0) { $0 << 8 | UInt32($1) }
        }

        /// GOAWAY's last stream id.
        var lastStreamID: UInt32? {
            guard type == Self.goAway, payload.count >= 8 else { return nil }
            return payload[0..<4].reduce(0) { $0 << 8 | UInt32($1) } & 0x7fff_ffff
        }

        /// A HEADERS frame answering 200: NIO's HPACK encoder sends `:status: 200` as static-table index 8.
        var is200: Bool { type == Self.headers && payload.first == 0x88 }

        var description: String { "frame type \(type) flags \(flags) stream \(stream) (\(payload.count) bytes)" }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let refusedStream: UInt32 = 7
    static let protocolError: UInt32 = 1

    private let socket: Int32
    private let authority: String

    /// Connects and sends the connection preface with empty SETTINGS.
    init(port: Int, readTimeoutSeconds: Int = 5) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket() failed") }
        authority = "127.0.0.1:\(port)"
        var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            throw Failure(description: "cannot connect to \(authority)")
        }
        try send(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + Self.frame(type: Frame.settings, flags: 0, stream: 0, []))
    }

    deinit { close(socket) }

    /// A request's HEADERS (POST /3/device/`token`); `endStream` for one without a body.
    func sendHeaders(stream: UInt32, token: String, bearer: String, topic: String, endStream: Bool = false) throws {
        var block: [UInt8] = []
        for (name, value) in [
            (":method", "POST"), (":scheme", "http"), (":path", "/3/device/\(token)"), (":authority", authority),
            ("authorization", "bearer \(bearer)"), ("apns-topic", topic),
        ] {
            block.append(0)  // literal header field without indexing, new name
            block += Self.integer(name.utf8.count) + Array(name.utf8)
            block += Self.integer(value.utf8.count) + Array(value.utf8)
        }
        // END_HEADERS, and END_STREAM when asked.
        try send(Self.frame(type: Frame.headers, flags: endStream ? 0x5 : 0x4, stream: stream, block))
    }

    func sendData(stream: UInt32, _ body: String, endStream: Bool = true) throws {
        try send(Self.frame(type: Frame.data, flags: endStream ? 0x1 : 0, stream: stream, Array(body.utf8)))
    }

    /// Acknowledges SETTINGS the server sent (a client would once it had read them).
    func acknowledgeSettings() throws {
        try send(Self.frame(type: Frame.settings, flags: 0x1, stream: 0, []))
    }

    /// Reads frames until one satisfies `stop`, and returns them all (that one last).
    func read(until stop: (Frame) -> Bool) throws -> [Frame] {
        var frames: [Frame] = []
        while true {
            let head = try readExactly(9)
            let length = Int(head[0]) << 16 | Int(head[1]) << 8 | Int(head[2])
            let stream = head[5..<9].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7fff_ffff
            let frame = Frame(type: head[3], flags: head[4], stream: stream, payload: try readExactly(length))
            frames.append(frame)
            if stop(frame) { return frames }
        }
    }

    /// Whether the server ended the connection: end of stream (or a reset) within the read timeout.
    func readsToEnd() -> Bool {
        var byte: UInt8 = 0
        while true {
            let count = recv(socket, &byte, 1, 0)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let received = bytes.withUnsafeMutableBytes { recv(socket, $0.baseAddress! + done, count - done, 0) }
            guard received > 0 else {
                throw Failure(description: received == 0 ? "the server closed the connection" : "no frame within the read timeout")
            }
            done += received
        }
        return bytes
    }

    private func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "send failed (errno \(errno))") }
            sent += count
        }
    }

    private static func frame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags]
            + withUnsafeBytes(of: stream.bigEndian, Array.init) + payload
    }

    /// An HPACK integer with a 7-bit prefix (RFC 7541 §5.1), as string lengths take (no Huffman bit).
    private static func integer(_ value: Int) -> [UInt8] {
        guard value >= 127 else { return [UInt8(value)] }
        var bytes: [UInt8] = [127]
        var rest = value - 127
        while rest >= 128 {
            bytes.append(UInt8(rest & 0x7f | 0x80))
            rest >>= 7
        }
        bytes.append(UInt8(rest))
        return bytes
    }
}
