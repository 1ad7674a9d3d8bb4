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
    /// A fan-out stream over this client; the window defaults to the client's `maxInFlight`.
    public func makeSendStream<Tag: Sendable>(of tag: Tag.Type = Tag.self, maxInFlight: Int? = nil) -> APNsSendStream<Tag> {
        APNsSendStream(maxInFlight: maxInFlight ?? configuration.maxInFlight) { [self] notification, completion in
            send(notification, completion: completion)
        }
    }
}
