import Foundation
import HeraldTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP connection to 127.0.0.1, to send bytes as slowly as a test wants.
final class RawConnection {
    let socketDescriptor: Int32

    init(port: Int) throws {
        socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw HeraldProcess.Failure("cannot connect to port \(port)") }
    }

    deinit { close(socketDescriptor) }

    /// False when the peer has closed (the send fails).
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(socketDescriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Appends what has arrived to `bytes` without waiting; false once the peer has closed.
    func readAvailable(into bytes: inout [UInt8]) -> Bool {
        var descriptor = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
        while poll(&descriptor, 1, 0) > 0 {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(socketDescriptor, &chunk, chunk.count, 0)
            if count <= 0 { return false }
            bytes.append(contentsOf: chunk[..<count])
        }
        return true
    }

    /// Where `needle` first starts in `haystack`.
    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }

    /// An answer's head at the start of `raw`, removed from it: its status and headers (names in lower
    /// case); nil until the whole head has arrived.
    static func takeHead(_ raw: inout [UInt8]) -> (status: Int, headers: [String: String])? {
        guard let end = find(Array("\r\n\r\n".utf8), in: raw) else { return nil }
        let head = String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        raw.removeFirst(end + 4)
        return (Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? -1, headers)
    }

    /// Whether the peer closed the connection (a read of 0 bytes, or an error) within `duration`.
    func waitForClose(within duration: Duration) -> Bool {
        var descriptor = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        return recv(socketDescriptor, &buffer, buffer.count, 0) <= 0
    }
}

/// One HTTP/1.1 answer as it came over a `RawConnection`.
struct RawResponse: CustomStringConvertible {
    var status: Int
    /// Header names in lower case.
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    var description: String { "\(status) \(headers) \(text.prefix(300))" }

    /// The body as Herald's error shape: `{"code": Int, "message": String}` with a JSON content type.
    var errorShape: (code: Int, message: String)? {
        guard headers["content-type"]?.hasPrefix("application/json") == true,
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let code = object["code"] as? Int, let message = object["message"] as? String, !message.isEmpty
        else { return nil }
        return (code, message)
    }
}

extension RawConnection {
    /// Reads answers until `count` have arrived whole, the peer closes, or `duration` passes with
    /// nothing new; answers that arrived whole are returned, and whether the peer closed.
    func readResponses(_ count: Int = 1, within duration: Duration = .seconds(5)) -> (responses: [RawResponse], closed: Bool) {
        var received: [UInt8] = []
        var closed = false
        var responses: [RawResponse] = []
        let milliseconds = Int32(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        while responses.count < count {
            var descriptor = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, milliseconds) > 0 else { break }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let read = recv(socketDescriptor, &buffer, buffer.count, 0)
            guard read > 0 else {
                closed = true
                break
            }
            received += buffer[..<read]
            responses = Self.parse(received)
        }
        if !closed, responses.count >= count { closed = waitForClose(within: .milliseconds(0)) }
        return (responses, closed)
    }

    /// The whole answers at the start of `bytes` (bodies by Content-Length, chunked, or none).
    static func parse(_ bytes: [UInt8]) -> [RawResponse] {
        var responses: [RawResponse] = []
        var rest = bytes[...]
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while let headEnd = rest.firstRange(of: separator) {
            let head = String(decoding: rest[rest.startIndex..<headEnd.lowerBound], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return responses }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            var body = rest[headEnd.upperBound...]
            if let length = headers["content-length"].flatMap(Int.init) {
                guard body.count >= length else { return responses }
                rest = body.dropFirst(length)
                body = body.prefix(length)
            } else if headers["transfer-encoding"] == "chunked" {
                var decoded: [UInt8] = []
                var cursor = body
                while true {
                    guard let lineEnd = cursor.firstRange(of: Array("\r\n".utf8)),
                        let size = Int(String(decoding: cursor[cursor.startIndex..<lineEnd.lowerBound], as: UTF8.self), radix: 16)
                    else { return responses }
                    let chunk = cursor[lineEnd.upperBound...]
                    guard chunk.count >= size + 2 else { return responses }
                    decoded += chunk.prefix(size)
                    cursor = chunk.dropFirst(size + 2)
                    if size == 0 { break }
                }
                rest = cursor
                body = decoded[...]
            } else {
                rest = body.dropFirst(body.count)
                body = body.prefix(0)
            }
            responses.append(RawResponse(status: status, headers: headers, body: Array(body)))
        }
        return responses
    }
}
