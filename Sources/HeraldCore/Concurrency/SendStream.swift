/// One finished send of a stream: what was sent, how it ended, and the caller's tag to match it up.
public struct SendDelivery<Request: Sendable, Outcome: Sendable, Tag: Sendable>: Sendable {
    public let tag: Tag
    public let request: Request
    public let outcome: Outcome

    @inlinable
    init(tag: Tag, request: Request, outcome: Outcome) {
        self.tag = tag
        self.request = request
        self.outcome = outcome
    }
}

/// Fan-out over any provider: submit many requests, read their outcomes as they finish. At most
/// `maxInFlight` are sent or waiting to be read at once: `submit` suspends until a slot frees, and a
/// slot frees when its result is read, so memory stays flat however many are sent.
///
/// `send` hands one request to the provider's client and calls back exactly once with its outcome
/// (on the client's thread, quickly). Read `results` in a task of its own (a task group child, say)
/// while another submits: a single task that only submits will wait forever once the window is full.
/// One task reads `results`; if it is cancelled, the limit lifts so a waiting submitter does not hang,
/// and what is still sent ends as usual, unread.
///
/// Every send and every outcome passes through here, so the type is `@inlinable`: each caller gets a
/// copy specialised for its request and outcome types. Unspecialised, each send looked up generic
/// metadata in the runtime's tables about 20 times (`SendDelivery`, the buffer, `Optional`s, and the
/// standard `AsyncStream`'s internals, which are never specialised), a fifth of the client's own cost per
/// notification under callgrind (BENCHMARKS.md). Outcomes wait in an array the reader takes whole, so it
/// takes the buffer's lock once per batch rather than once per outcome.
public final class SendStream<Request: Sendable, Outcome: Sendable, Tag: Sendable>: Sendable {
    public typealias Delivery = SendDelivery<Request, Outcome, Tag>
    public typealias Send = @Sendable (Request, @escaping @Sendable (Outcome) -> Void) -> Void

    @usableFromInline
    struct Buffer {
        /// Finished, not yet taken by the reader.
        @usableFromInline var ready: [Delivery] = []
        /// The reader, while it waits for `ready` to fill or the stream to end.
        @usableFromInline var reader: CheckedContinuation<Void, Never>?
        @usableFromInline var submitted = 0
        @usableFromInline var completed = 0
        @usableFromInline var finished = false
        /// The reader's task was cancelled: outcomes are dropped, and the limit is open.
        @usableFromInline var readerGone = false

        @inlinable init() {}

        /// No more outcomes will come: `finish()` was called and every submitted one is in.
        @inlinable var allIn: Bool { finished && completed == submitted }
    }

    @usableFromInline let send: Send
    @usableFromInline let limit: InFlightLimit
    @usableFromInline let buffer = Locked(Buffer())

    @inlinable
    public init(maxInFlight: Int, send: @escaping Send) {
        self.send = send
        self.limit = InFlightLimit(maxInFlight)
    }

    /// Sends one request once a slot is free.
    @inlinable
    public func submit(_ request: Request, tag: Tag) async {
        await limit.acquire()
        let accepted = buffer.withLock { buffer -> Bool in
            guard !buffer.finished else { return false }
            buffer.submitted += 1
            return true
        }
        guard accepted else {
            limit.release()
            preconditionFailure("SendStream.submit after finish()")
        }
        send(request) { [self] outcome in
            let delivery = Delivery(tag: tag, request: request, outcome: outcome)
            let reader = buffer.withLock { buffer -> CheckedContinuation<Void, Never>? in
                buffer.completed += 1
                if !buffer.readerGone { buffer.ready.append(delivery) }
                defer { buffer.reader = nil }
                return buffer.reader
            }
            reader?.resume()
        }
    }

    /// No more submits: `results` ends once the submitted ones are all in.
    @inlinable
    public func finish() {
        let reader = buffer.withLock { buffer -> CheckedContinuation<Void, Never>? in
            buffer.finished = true
            defer { buffer.reader = nil }
            return buffer.reader
        }
        reader?.resume()
    }

    /// The reading task was cancelled: nobody will free slots any more, so the limit lifts and a waiting
    /// submitter does not hang; outcomes from now on are dropped.
    @usableFromInline
    func readerCancelled() {
        let reader = buffer.withLock { buffer -> CheckedContinuation<Void, Never>? in
            buffer.readerGone = true
            buffer.ready.removeAll()
            defer { buffer.reader = nil }
            return buffer.reader
        }
        limit.open()
        reader?.resume()
    }

    /// The outcomes, in the order they finish; ends after `finish()` once every submitted one is in.
    @inlinable
    public var results: Results { Results(stream: self) }

    /// The outcome sequence. Outcomes are taken in batches (all that have arrived, one lock for the lot);
    /// reading an outcome frees its slot.
    public struct Results: AsyncSequence, Sendable {
        @usableFromInline let stream: SendStream

        @inlinable init(stream: SendStream) { self.stream = stream }

        @inlinable
        public func makeAsyncIterator() -> Iterator { Iterator(stream: stream) }

        public struct Iterator: AsyncIteratorProtocol {
            @usableFromInline let stream: SendStream
            /// The batch taken last, handed out from `next`.
            @usableFromInline var batch: [Delivery] = []
            @usableFromInline var position = 0

            @inlinable init(stream: SendStream) { self.stream = stream }

            @inlinable
            public mutating func next() async -> Delivery? {
                if position == batch.count {
                    batch.removeAll(keepingCapacity: true)
                    position = 0
                    while true {
                        if Task.isCancelled {
                            stream.readerCancelled()
                            return nil
                        }
                        let (taken, ended) = take()
                        if taken { break }
                        if ended { return nil }
                        await waitForOutcomes()
                    }
                }
                // Each outcome frees its slot as it is read, not its whole batch at once: a batch's worth of
                // slots freed together let the submitter send hundreds of requests in one burst, and against
                // APNs's narrowing stream limit a burst is what gets streams refused (StreamLimitTests).
                stream.limit.release()
                defer { position += 1 }
                return batch[position]
            }

            /// Swaps the waiting outcomes into `batch`: whether there were any, and whether the stream is over.
            @inlinable
            mutating func take() -> (taken: Bool, ended: Bool) {
                let stream = stream
                return stream.buffer.withLock { buffer -> (Bool, Bool) in
                    if buffer.readerGone { return (false, true) }
                    guard !buffer.ready.isEmpty else { return (false, buffer.allIn) }
                    swap(&buffer.ready, &batch)
                    return (true, false)
                }
            }

            /// Returns when outcomes may have arrived, the stream ended, or the reading task was cancelled.
            @inlinable
            func waitForOutcomes() async {
                let stream = stream
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let now = stream.buffer.withLock { buffer -> Bool in
                            if !buffer.ready.isEmpty || buffer.allIn || buffer.readerGone { return true }
                            buffer.reader = continuation
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    stream.readerCancelled()
                }
            }
        }
    }
}
