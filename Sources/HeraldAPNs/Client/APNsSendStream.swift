import HeraldCore
import HeraldCurl

/// One finished send of a stream, with the caller's tag (a device key, say) to match it up.
public struct APNsDelivery<Tag: Sendable>: Sendable {
    public let tag: Tag
    public let notification: APNsNotification
    public let outcome: APNsOutcome
}

/// Fan-out: submit many notifications, read their outcomes as they finish. At most `maxInFlight`
/// are sent or waiting to be read at once: `submit` suspends until a slot frees, and a slot frees
/// when its result is read, so memory stays flat however many are sent.
///
/// Read `results` in a task of its own (a task group child, say) while another submits: a
/// single task that only submits will wait forever once the window is full.
public final class APNsSendStream<Tag: Sendable>: Sendable {
    private struct Counts {
        var submitted = 0
        var completed = 0
        var finished = false
    }

    private let client: APNsClient
    private let limit: InFlightLimit
    private let counts = Locked(Counts())
    private let continuation: AsyncStream<APNsDelivery<Tag>>.Continuation
    /// The outcomes, in the order they finish; ends after `finish()` once every submitted one is in.
    public let results: Results

    init(client: APNsClient, maxInFlight: Int) {
        self.client = client
        let limit = InFlightLimit(maxInFlight)
        self.limit = limit
        let (stream, continuation) = AsyncStream<APNsDelivery<Tag>>.makeStream(bufferingPolicy: .unbounded)
        // If the reader stops (its task cancelled), nobody frees slots: lift the limit so a
        // waiting submitter does not hang; what it still sends ends as usual, unread.
        continuation.onTermination = { _ in limit.open() }
        self.continuation = continuation
        self.results = Results(base: stream, limit: limit)
    }

    /// Sends one notification once a slot is free.
    public func submit(_ notification: APNsNotification, tag: Tag) async {
        await limit.acquire()
        let accepted = counts.withLock { counts -> Bool in
            guard !counts.finished else { return false }
            counts.submitted += 1
            return true
        }
        guard accepted else {
            limit.release()
            preconditionFailure("APNsSendStream.submit after finish()")
        }
        client.send(notification) { [self] outcome in
            continuation.yield(APNsDelivery(tag: tag, notification: notification, outcome: outcome))
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
        let base: AsyncStream<APNsDelivery<Tag>>
        let limit: InFlightLimit

        public func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator(), limit: limit) }

        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<APNsDelivery<Tag>>.AsyncIterator
            let limit: InFlightLimit

            public mutating func next() async -> APNsDelivery<Tag>? {
                guard let delivery = await base.next() else { return nil }
                limit.release()
                return delivery
            }
        }
    }
}

extension APNsClient {
    /// A fan-out stream over this client; the window defaults to every stream of every connection.
    public func makeSendStream<Tag: Sendable>(of tag: Tag.Type = Tag.self, maxInFlight: Int? = nil) -> APNsSendStream<Tag> {
        APNsSendStream(client: self, maxInFlight: maxInFlight ?? configuration.maxInFlight)
    }

    /// Sends every notification of `notifications` and hands each outcome to `onResult` as it
    /// finishes (in one task, one at a time), with at most `maxInFlight` unanswered or unread.
    public func send<Tag: Sendable, Notifications: AsyncSequence & Sendable>(
        _ notifications: Notifications, maxInFlight: Int? = nil,
        onResult: @escaping @Sendable (APNsDelivery<Tag>) async -> Void
    ) async throws where Notifications.Element == (Tag, APNsNotification) {
        let stream = makeSendStream(of: Tag.self, maxInFlight: maxInFlight)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await delivery in stream.results { await onResult(delivery) }
            }
            do {
                for try await (tag, notification) in notifications {
                    try Task.checkCancellation()
                    await stream.submit(notification, tag: tag)
                }
            } catch {
                stream.finish()
                try await group.waitForAll()
                throw error
            }
            stream.finish()
            try await group.waitForAll()
        }
    }
}
