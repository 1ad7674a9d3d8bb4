import Foundation
import HeraldCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server on 127.0.0.1 that answers every request with one canned response and keeps
/// what it was sent: enough to see a real token request leave through libcurl. Not a mock of Google.
final class LoopbackResponder: Sendable {
    let port: Int
    private let listener: Int32
    private let received = Locked<[String]>([])
    private let response: String

    init(status: Int, json: String) throws {
        response =
            "HTTP/1.1 \(status) X\r\ncontent-type: application/json\r\ncontent-length: \(json.utf8.count)\r\nconnection: close\r\n\r\n\(json)"
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(listener, pointer, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { throw Failure("cannot listen on loopback") }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Requests received so far, head and body as text.
    var requests: [String] { received.withLock { $0 } }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !Self.isComplete(request) {
                let count = read(connection, &buffer, buffer.count)
                if count <= 0 { break }
                request.append(contentsOf: buffer[0..<count])
            }
            received.withLock { $0.append(String(decoding: request, as: UTF8.self)) }
            _ = response.withCString { write(connection, $0, strlen($0)) }
            close(connection)
        }
    }

    /// Headers ended and `content-length` bytes of body read.
    private static func isComplete(_ request: [UInt8]) -> Bool {
        let text = String(decoding: request, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<end.lowerBound].lowercased()
        let length =
            head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return text.utf8.count - text[..<end.upperBound].utf8.count >= length
    }
}
