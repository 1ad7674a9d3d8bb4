import HeraldCore
import HeraldCurl

/// One finished APNs send of a stream, with the caller's tag.
public typealias APNsDelivery<Tag: Sendable> = SendDelivery<APNsNotification, APNsOutcome, Tag>

extension SendDelivery where Request == APNsNotification {
    public var notification: APNsNotification { request }
}

/// A fan-out stream over one APNs client (see `SendStream`).
public typealias APNsSendStream<Tag: Sendable> = SendStream<APNsNotification, APNsOutcome, Tag>

extension APNsClient {
    /// A fan-out stream over this client; the window defaults to every stream of every connection.
    public func makeSendStream<Tag: Sendable>(of tag: Tag.Type = Tag.self, maxInFlight: Int? = nil) -> APNsSendStream<Tag> {
        APNsSendStream(maxInFlight: maxInFlight ?? configuration.maxInFlight) { [self] notification, completion in
            send(notification, completion: completion)
        }
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
