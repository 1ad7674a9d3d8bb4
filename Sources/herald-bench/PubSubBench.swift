import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `herald-bench pubsub`: messages per second to many Server-Sent Events subscribers, and the publish →
/// subscriber latency (issue 24), against running servers.
///
/// It subscribes `--subscribers` times to one channel, opens a stream of each (spread over the
/// `--stream-port`s), then publishes `--rate` PUBSUB messages a second for `--seconds` (through the
/// `--publish-port`s in turn), each carrying the publisher's CLOCK_MONOTONIC time; the reader (one thread,
/// poll(2) over every socket) takes each event's latency against the same clock. Loopback only.
struct PubSubBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pubsub", abstract: "Time publish → SSE subscriber delivery against running servers.")

    @Option(name: .customLong("stream-port"), help: "A server's port to open streams on (repeatable; streams are spread over them).")
    var streamPorts: [Int]
    @Option(name: .customLong("publish-port"), help: "A server's port to publish through (repeatable; used in turn).")
    var publishPorts: [Int]
    @Option(help: "The app's path prefix.") var prefix = "/bench/k-admin"
    @Option var subscribers = 1000
    @Option(help: "Messages published per second.") var rate = 20
    @Option var seconds = 10
    @Option var channel = "bench"
    @Flag(
        help:
            "Subscribe as the Backendless SDKs do instead: each subscriber a Backendless RT connection (Engine.IO v4 on a WebSocket) with one PUB_SUB_MESSAGES listener."
    )
    var rt = false

    func run() throws {
        let reader = SSEReader()
        if rt {
            try openRT(reader)
        } else {
            try openStreams(reader)
        }
        try measure(reader)
    }

    /// `--subscribers` RT connections, each with a message listener on the channel, ready once Herald
    /// answered every `SUB_READY`.
    func openRT(_ reader: SSEReader) throws {
        let parts = prefix.split(separator: "/")
        guard parts.count == 2 else { throw ValidationError("--prefix must be /{appId}/{apiKey}") }
        let (app, key) = (String(parts[0]), String(parts[1]))
        for index in 0..<subscribers {
            try reader.openRT(
                port: streamPorts[index % streamPorts.count], app: app, key: key,
                events: [
                    "40/\(app),",
                    #"42/\#(app),["SUB_ON",{"id":"s\#(index)","name":"PUB_SUB_MESSAGES","options":{"channel":"\#(channel)"}}]"#,
                ])
        }
        let readerThread = Thread { reader.loop() }
        readerThread.start()
        let deadline = Date().addingTimeInterval(60)
        while reader.readies() < subscribers, Date() < deadline { usleep(10_000) }
        guard reader.readies() == subscribers else {
            throw ValidationError("only \(reader.readies()) of \(subscribers) RT listeners ready")
        }
    }

    func openStreams(_ reader: SSEReader) throws {
        let subscriptions = try (0..<subscribers).map { _ -> String in
            let answer = try BlockingHTTP(port: streamPorts[0]).call("POST", "\(prefix)/messaging/\(channel)/subscribe", body: "{}")
            guard let range = answer.range(of: #""subscriptionId":""#),
                let end = answer[range.upperBound...].firstIndex(of: "\"")
            else { throw ValidationError("subscribe answered \(answer)") }
            return String(answer[range.upperBound..<end])
        }
        for (index, id) in subscriptions.enumerated() {
            try reader.open(port: streamPorts[index % streamPorts.count], path: "\(prefix)/messaging/\(channel)/\(id)/stream")
        }
        let readerThread = Thread { reader.loop() }
        readerThread.start()
        let deadline = Date().addingTimeInterval(30)
        while reader.headsReceived() < subscribers, Date() < deadline { usleep(10_000) }
        guard reader.headsReceived() == subscribers else {
            throw ValidationError("only \(reader.headsReceived()) of \(subscribers) streams opened")
        }
    }

    func measure(_ reader: SSEReader) throws {
        let publishers = try publishPorts.map { try BlockingHTTP(port: $0) }
        let interval = 1.0 / Double(rate)
        let started = monotonicNanoseconds()
        var published = 0
        // How long each publish took to be answered: a slow answer (the store's commit) delays every listener.
        var answerTimes: [UInt64] = []
        while true {
            let due = started + UInt64(Double(published) * interval * 1e9)
            let now = monotonicNanoseconds()
            if now - started >= UInt64(seconds) * 1_000_000_000 { break }
            if due > now { usleep(useconds_t((due - now) / 1000)) }
            let body = #"{"message": {"t": \#(monotonicNanoseconds())}, "publishPolicy": "PUBSUB"}"#
            let sent = monotonicNanoseconds()
            _ = try publishers[published % publishers.count].call("POST", "\(prefix)/messaging/\(channel)", body: body)
            answerTimes.append(monotonicNanoseconds() - sent)
            published += 1
        }
        let publishEnded = monotonicNanoseconds()
        let expected = published * subscribers
        let wait = Date().addingTimeInterval(10)
        while reader.delivered() < expected, Date() < wait { usleep(10_000) }
        let lastDelivery = reader.lastDeliveryNanoseconds()
        reader.stop()
        let latencies = reader.latencies().sorted()
        let delivered = latencies.count
        let span = Double(max(lastDelivery, publishEnded) - started) / 1e9
        func percentile(_ p: Double) -> Double { milliseconds(at: p, of: latencies) }
        print(
            String(
                format:
                    "pubsub: %d %@ on %d server(s), %d messages at %d/s through %d server(s): %d of %d delivered in %.2f s = %.0f msg/s; latency ms p50 %.2f p99 %.2f max %.2f",
                subscribers, rt ? "RT listeners" : "SSE streams", streamPorts.count, published, rate, publishPorts.count, delivered,
                expected, span, Double(delivered) / span,
                percentile(0.5), percentile(0.99), percentile(1.0)))
        answerTimes.sort()
        func answer(_ p: Double) -> Double { milliseconds(at: p, of: answerTimes) }
        print(String(format: "pubsub: publish answered in ms p50 %.2f p99 %.2f max %.2f", answer(0.5), answer(0.99), answer(1.0)))
        if delivered != expected { print("pubsub: MISSING \(expected - delivered) deliveries") }
    }
}

/// The `p` quantile of sorted nanosecond figures, in milliseconds (0 for none).
func milliseconds(at p: Double, of sorted: [UInt64]) -> Double {
    sorted.isEmpty ? 0 : Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1e6
}

func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func connectLoopback(_ port: Int) throws -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(descriptor)
        throw ValidationError("cannot connect to 127.0.0.1:\(port)")
    }
    var one: Int32 = 1
    setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    return descriptor
}

/// One keep-alive HTTP/1.1 connection, answers read by Content-Length (Herald's JSON answers have one).
final class BlockingHTTP {
    let descriptor: Int32

    init(port: Int) throws { descriptor = try connectLoopback(port) }
    deinit { close(descriptor) }

    func call(_ method: String, _ path: String, body: String) throws -> String {
        let request =
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw ValidationError("send failed")
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { throw ValidationError("connection closed") }
            received.append(contentsOf: buffer[..<count])
            let text = String(decoding: received, as: UTF8.self)
            guard let headEnd = text.range(of: "\r\n\r\n") else { continue }
            let head = text[..<headEnd.lowerBound].lowercased()
            guard let lengthLine = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                let length = Int(lengthLine.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            else { continue }
            let bodyStart = text.utf8.distance(from: text.startIndex, to: headEnd.upperBound)
            if received.count >= bodyStart + length { return String(decoding: received[bodyStart...], as: UTF8.self) }
        }
    }
}
