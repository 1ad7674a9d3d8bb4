import Dispatch
import HeraldCore
import HeraldCurl
import Logging

/// A Web Push client for one app (one VAPID key): one curl multi handle whose connections are pooled per
/// push service, with sends multiplexed as HTTP/2 streams. Each notification is encrypted for its
/// subscription (RFC 8291) and carries the VAPID token of its service (RFC 8292). Every send ends in
/// exactly one `WebPushOutcome`, including when the client shuts down.
public final class WebPushClient: Sendable {
    public let configuration: WebPushClientConfiguration
    private let tokens: VAPIDTokens
    private let loop: CurlMultiLoop
    private let logger: Logger
    /// Where sends are prepared (read, encrypted, signed): a concurrent queue, so a fan-out's one producer
    /// only hands each send over and the key agreements (RFC 8291: a key pair and an ECDH each, most of a
    /// send's CPU) run on every core rather than on the producer's.
    private let preparing = DispatchQueue(label: "herald-webpush-prepare", attributes: .concurrent)

    public init(configuration: WebPushClientConfiguration, logger: Logger = Logger(label: "herald.webpush"))
        throws(WebPushConfigurationError)
    {
        let settings = try configuration.validated()
        self.configuration = configuration
        self.logger = logger
        tokens = VAPIDTokens(key: configuration.vapidKey, clock: configuration.clock)
        do {
            loop = try CurlMultiLoop(
                settings: settings, connections: configuration.connections, streamsPerConnection: configuration.streamsPerConnection,
                hosts: configuration.services, name: "herald-webpush-curl", stoppedText: "the Web Push client was shut down")
        } catch {
            throw WebPushConfigurationError(error.message)
        }
    }

    deinit { loop.stop() }

    /// The header lines one message shares per push service: they differ by service only in the token.
    public final class Headers: Sendable {
        let content: WebPushContent
        let lists = CurlHeaderListCache<UInt64>(capacity: 8)

        public init(_ content: WebPushContent) { self.content = content }

        func list(for issued: VAPIDTokens.Issued) -> CurlHeaderList {
            lists.list(for: issued.serial) {
                var lines = [
                    issued.headerLine, "ttl: \(content.ttl)", "content-encoding: aes128gcm",
                    "content-type: application/octet-stream", "Accept:",
                ]
                if let urgency = content.urgency { lines.append("urgency: \(urgency)") }
                if let topic = content.topic { lines.append("topic: \(topic)") }
                return CurlHeaderList(lines)
            }
        }
    }

    /// Sends one notification and waits for its outcome.
    public func send(subscription: String, content: WebPushContent) async -> WebPushOutcome {
        await withCheckedContinuation { continuation in
            send(subscription: subscription, headers: Headers(content)) { continuation.resume(returning: $0) }
        }
    }

    /// Encrypts `headers.content` for `subscription` (a WEB device's token, the subscription's JSON) and
    /// posts it to the subscription's endpoint. Returns at once: the encryption runs on the client's
    /// preparing queue, beside other sends', so sends may reach the service in another order than they
    /// were made. `completion` runs once and must be quick: on the client's thread when the service
    /// answered or the client shut down while the send was in its hands, on the preparing queue when nothing
    /// was sent (the send could not be prepared, or the client had shut down before it was).
    public func send(subscription token: String, headers: Headers, completion: @escaping @Sendable (WebPushOutcome) -> Void) {
        preparing.async { self.prepare(subscription: token, headers: headers, completion: completion) }
    }

    /// Reads the subscription, encrypts, signs, and hands the request to the curl loop.
    private func prepare(subscription token: String, headers: Headers, completion: @escaping @Sendable (WebPushOutcome) -> Void) {
        let subscription: WebPushSubscription
        let body: [UInt8]
        do throws(HeraldFault) {
            subscription = try WebPushSubscription(parsing: token, hosts: configuration.hosts)
        } catch {
            completion(
                .failed(WebPushTransportError(kind: .other, curlCode: 0, message: "the subscription cannot be used: \(error.message)")))
            return
        }
        do throws(WebPushEncryptionError) {
            let recipient = try WebPushEncryption.Recipient(p256dh: subscription.p256dh, auth: subscription.auth)
            body = try WebPushEncryption.encrypt(headers.content.payload, for: recipient)
        } catch {
            completion(.failed(WebPushTransportError(kind: .other, curlCode: 0, message: "cannot encrypt for the subscription: \(error)")))
            return
        }
        guard let audience = VAPIDKey.audience(of: subscription.endpoint) else {
            completion(.failed(WebPushTransportError(kind: .other, curlCode: 0, message: "the subscription's endpoint names no host")))
            return
        }
        let issued: VAPIDTokens.Issued
        do {
            issued = try tokens.issued(for: audience)
        } catch {
            completion(.failed(WebPushTransportError(kind: .credentials, curlCode: 0, message: "\(error)")))
            return
        }
        let logger = logger
        let job = CurlJob(url: subscription.endpoint, headers: headers.list(for: issued), body: CurlBody(body)) { finished in
            let outcome = Self.outcome(of: finished)
            if case .failed(let error) = outcome {
                logger.debug(
                    "Web Push send failed", metadata: ["herald.webpush.service": "\(audience)", "herald.webpush.error": "\(error)"])
            }
            completion(outcome)
        }
        loop.submit(job)
    }

    /// Closes every connection; pending sends end as cancelled. Never call it from a completion.
    public func shutdown() { loop.stop() }

    /// Handle and transfer counts, for tests and metrics.
    public var counters: CurlCounters { loop.counters }

    /// What a finished transfer means for Web Push.
    static func outcome(of finished: CurlCompletion) -> WebPushOutcome {
        if finished.code != 0 { return .failed(WebPushTransportError(curlCode: finished.code, message: finished.errorText)) }
        if (200...299).contains(finished.status) { return .delivered(status: finished.status) }
        return .rejected(WebPushResponse(status: finished.status, body: finished.body, retryAfter: finished.headers["retry-after"]))
    }
}
