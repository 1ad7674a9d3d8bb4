import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads every stream on one thread: counts each event and its latency from the `"t":` it carries.
final class SSEReader: @unchecked Sendable {
    private var descriptors: [Int32] = []
    private var carry: [[UInt8]] = []
    private var heads: [Bool] = []
    private let lock = NSLock()
    private var latencyList: [UInt64] = []
    private var headCount = 0
    private var readyCount = 0
    private var last: UInt64 = 0
    private var running = true

    func open(port: Int, path: String) throws {
        let descriptor = try connectLoopback(port)
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        descriptors.append(descriptor)
        carry.append([])
        heads.append(false)
    }

    func headsReceived() -> Int { lock.withLock { headCount } }
    /// The sockets opened, in order (for a caller that reads one itself).
    var descriptorsOpened: [Int32] { descriptors }
    /// RT listeners Herald said were live (`SUB_READY`).
    func readies() -> Int { lock.withLock { readyCount } }

    /// A Backendless RT connection on a WebSocket (Engine.IO v4 without polling) that sends `events` as
    /// Engine.IO message packets once upgraded. Herald's frames are read like a stream's bytes: each
    /// message's `{"t":…}` is found in them.
    func openRT(port: Int, app: String, key: String, events: [String]) throws {
        let descriptor = try connectLoopback(port)
        let upgrade = Array(
            ("GET /\(app)/?EIO=4&transport=websocket&apiKey=\(key)&clientId=bench-\(descriptors.count) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                .utf8)
        _ = upgrade.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        // The switch first: frames sent before it would reach the HTTP decoder.
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { throw ValidationError("the upgrade was not answered") }
            received.append(contentsOf: buffer[..<count])
        }
        guard received.starts(with: Array("HTTP/1.1 101".utf8)) else {
            throw ValidationError("the upgrade was refused: \(String(decoding: received.prefix(200), as: UTF8.self))")
        }
        let headEnd = received.firstRange(of: Array("\r\n\r\n".utf8))!.upperBound
        // Frames a client sends must be masked; a zero mask leaves the text as it is.
        var request: [UInt8] = []
        for event in events {
            let payload = Array(event.utf8)
            request.append(0x81)
            if payload.count < 126 {
                request.append(0x80 | UInt8(payload.count))
            } else {
                request.append(contentsOf: [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)])
            }
            request.append(contentsOf: [0, 0, 0, 0])
            request.append(contentsOf: payload)
        }
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        descriptors.append(descriptor)
        carry.append(Array(received[headEnd...]))
        heads.append(true)
        lock.withLock { headCount += 1 }
    }
    func delivered() -> Int { lock.withLock { latencyList.count } }
    func latencies() -> [UInt64] { lock.withLock { latencyList } }
    func lastDeliveryNanoseconds() -> UInt64 { lock.withLock { last } }
    func stop() { lock.withLock { running = false } }

    func loop() {
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while lock.withLock({ running }) {
            guard poll(&fds, nfds_t(fds.count), 100) > 0 else { continue }
            let now = monotonicNanoseconds()
            var found: [UInt64] = []
            var newHeads = 0
            var newReadies = 0
            for index in fds.indices where fds[index].revents != 0 {
                let count = recv(fds[index].fd, &buffer, buffer.count, 0)
                guard count > 0 else {
                    fds[index].fd = -1
                    continue
                }
                if !heads[index], carry[index].count + count >= 12 {
                    let start = carry[index] + buffer[..<min(count, 12)]
                    if start.starts(with: Self.okHead) || start.starts(with: Self.switchedHead) {
                        heads[index] = true
                        newHeads += 1
                    }
                }
                // The read is scanned where it lies; only a short unfinished tail of the last read is copied
                // in front of it (copying every read cost the reader more CPU than the server spent sending).
                let scanned: Scan
                if carry[index].isEmpty {
                    scanned = buffer.withUnsafeBytes { Self.scan(UnsafeRawBufferPointer(rebasing: $0[..<count]), now: now, into: &found) }
                    carry[index] = scanned.keepFrom < count ? Array(buffer[scanned.keepFrom..<count]) : []
                } else {
                    var data = carry[index]
                    data.append(contentsOf: buffer[..<count])
                    scanned = data.withUnsafeBytes { Self.scan($0, now: now, into: &found) }
                    carry[index] = scanned.keepFrom < data.count ? Array(data[scanned.keepFrom...]) : []
                }
                newReadies += scanned.readies
            }
            if !found.isEmpty || newHeads > 0 || newReadies > 0 {
                lock.withLock {
                    latencyList.append(contentsOf: found)
                    headCount += newHeads
                    readyCount += newReadies
                    if !found.isEmpty { last = now }
                }
            }
        }
        for descriptor in descriptors { close(descriptor) }
    }

    private static let okHead = Array("HTTP/1.1 200".utf8)
    private static let switchedHead = Array("HTTP/1.1 101".utf8)
    private static let marker = Array(#"{"t":"#.utf8)
    private static let ready = Array("SUB_READY".utf8)

    /// What one scan of received bytes found besides latencies: `SUB_READY`s, and where the unfinished tail starts.
    struct Scan {
        var readies = 0
        var keepFrom = 0
    }

    /// Every complete `{"t":<digits>` in `bytes` (memchr/memcmp over the bytes in place) and every `SUB_READY`;
    /// an incomplete marker or number at the end is left for the next read.
    static func scan(_ bytes: UnsafeRawBufferPointer, now: UInt64, into found: inout [UInt64]) -> Scan {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return Scan() }
        var result = Scan()
        let count = bytes.count
        // Bytes that may start a marker or a `SUB_READY` cut by the end of this read are kept, never one counted.
        var keepFrom = max(0, count - ready.count + 1)
        var from = 0
        while let hit = find(ready, in: base, from: from, count: count) {
            result.readies += 1
            from = hit + ready.count
            keepFrom = max(keepFrom, from)
        }
        var position = 0
        while let at = find(marker, in: base, from: position, count: count, partial: true) {
            guard at + marker.count <= count else {
                keepFrom = min(keepFrom, at)
                break
            }
            var end = at + marker.count
            var value: UInt64 = 0
            while end < count, case let digit = bytes[end], digit >= 48, digit <= 57 {
                value = value * 10 + UInt64(digit - 48)
                end += 1
            }
            if end == count {
                keepFrom = at
                break
            }
            found.append(now > value ? now - value : 0)
            position = end
            keepFrom = max(keepFrom, end)
        }
        result.keepFrom = min(keepFrom, count)
        return result
    }

    /// Where `needle` next starts in `base[from..<count]` (memchr for its first byte, memcmp for the rest);
    /// with `partial`, also a start whose needle the end of the bytes cuts short, if it matches so far.
    static func find(_ needle: [UInt8], in base: UnsafeRawPointer, from: Int, count: Int, partial: Bool = false) -> Int? {
        var position = from
        while position < count, let hit = memchr(base + position, Int32(needle[0]), count - position) {
            let at = base.distance(to: UnsafeRawPointer(hit))
            let length = min(needle.count, count - at)
            if length == needle.count || partial, needle.withUnsafeBytes({ memcmp(base + at, $0.baseAddress!, length) }) == 0 {
                return at
            }
            position = at + 1
        }
        return nil
    }
}
