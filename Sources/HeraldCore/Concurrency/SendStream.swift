/// One finished send of a stream: what was sent, how it ended, and the caller's tag to match it up.
public struct SendDelivery<Request: Sendable, Outcome: Sendable, Tag: Sendable>: Sendable {
    public let tag: Tag
    public let request: Request
    public let outcome: Outcome
}

/// Fan-out over any provider: submit many requests, read their outcomes as they finish. At most
/// `maxInFlight` are sent or waiting to be read at once: `submit` suspends until a slot frees, and a
/// slot frees when its result is read, so memory stays flat however many are sent.
///
/// `send` hands one request to the provider's client and calls back exactly once with its outcome
/// (on the client's thread, quickly). Read `results` in a task of its own (a task group child, say)
/// while another submits: a single task that only submits will wait forever once the window is full.
public final class SendStream<Request: Sendable, Outcome: Sendable, Tag: Sendable>: Sendable {
    public typealias Delivery = SendDelivery<Request, Outcome, Tag>
    public typealias Send = @Sendable (Request, @escaping @Sendable (Outcome) -> Void) -> Void

    private struct Counts {
        var submitted = 0
        var completed = 0
        var finished = false
    }

    private let send: Send
    private let limit: InFlightLimit
    private let counts = Locked(Counts())
    private let continuation: AsyncStream<Delivery>.Continuation
    /// The outcomes, in the order they finish; ends after `finish()` once every submitted one is in.
    public let results: Results

    public init(maxInFlight: Int, send: @escaping Send) {
        self.send = send
        let limit = InFlightLimit(maxInFlight)
        self.limit = limit
        let (stream, continuation) = AsyncStream<Delivery>.makeStream(bufferingPolicy: .unbounded)
        // If the reader stops (its task cancelled), nobody frees slots: lift the limit so a
        // waiting submitter does not hang; what it still sends ends as usual, unread.
        continuation.onTermination = { _ in limit.open() }
        self.continuation = continuation
        self.results = Results(base: stream, limit: limit)
    }

    /// Sends one request once a slot is free.
    public func submit(_ request: Request, tag: Tag) async {
        await limit.acquire()
        let accepted = counts.withLock { counts -> Bool in
            guard !counts.finished else { return false }
            counts.submitted += 1
            return true
        }
        guard accepted else {
            limit.release()
            preconditionFailure("SendStream.submit after finish()")
        }
        send(request) { [self] outcome in
            continuation.yield(Delivery(tag: tag, request: request, outcome: outcome))
            let done = counts.withLock { counts -> Bool in
                counts.completed += 1
                return counts.finished && counts.completed == counts.submitted
            }
            if done { continuation.finish() }
        }
    }

    /// No more submits: `results` ends once the submitted ones are all in.
    public func finish() {
        let done = counts.withLock { counts -> Bool in
            counts.finished = true
            return counts.completed == counts.submitted
        }
        if done { continuation.finish() }
    }

    /// The outcome sequence; reading an element frees its slot.
    public struct Results: AsyncSequence, Sendable {
        let base: AsyncStream<Delivery>
        let limit: InFlightLimit

        public func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator(), limit: limit) }

        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<Delivery>.AsyncIterator
            let limit: InFlightLimit

            public mutating func next() async -> Delivery? {
                guard let delivery = await base.next() else { return nil }
                limit.release()
                return delivery
            }
        }
    }
}
