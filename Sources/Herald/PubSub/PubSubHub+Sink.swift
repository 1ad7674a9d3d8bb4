extension PubSubHub {
    /// Where a stream's events go: an `AsyncStream` its HTTP answer writes from (SSE, WebSocket), or a
    /// Backendless RT subscription, which queues them on its connection.
    struct Sink: Sendable {
        /// Hands over one event; false when the consumer has too much waiting (the stream is then ended).
        let deliver: @Sendable (StreamEvent) -> Bool
        /// Ends the consumer's side.
        let finish: @Sendable () -> Void
        /// It sends messages as Backendless RT does (`StreamEncoding.rt`).
        let rt: Bool

        init(rt: Bool = false, deliver: @escaping @Sendable (StreamEvent) -> Bool, finish: @escaping @Sendable () -> Void) {
            self.rt = rt
            self.deliver = deliver
            self.finish = finish
        }

        init(_ continuation: AsyncStream<StreamEvent>.Continuation) {
            self.init(
                deliver: { event in
                    if case .dropped = continuation.yield(event) { return false }
                    return true
                }, finish: { continuation.finish() })
        }
    }
}
