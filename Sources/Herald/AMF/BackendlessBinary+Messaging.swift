import HeraldAMF
import HeraldCore
import HeraldStore

/// `MessagingService`: what a Java server's (or an Android app's) `Backendless.Messaging.publish` and its
/// relatives call.
extension BackendlessBinary {
    /// The class the SDK casts every publishing answer to (its own class name: no alias is registered).
    static let messageStatusClass = "com.backendless.messaging.MessageStatus"
    static let messageClass = "com.backendless.services.messaging.Message"

    func messaging(_ call: RemotingCall, _ arguments: BinaryArguments, app: String) async throws -> AMFValue {
        switch call.operation {
        case "publish":
            let channel = try ChannelName(validating: try arguments.string(0, "channelName"), property: "channelName")
            let body = try Self.publishBody(
                message: arguments[1], publish: try arguments.object(2, "publishOptions"),
                delivery: try arguments.object(3, "deliveryOptions"))
            let id = try await MessageRoutes.publish(
                body, app: app, channel: channel, messages: messages.messages, clock: clock, dispatcher: messages.dispatcher)
            return Self.messageStatus(id: id, status: .scheduled, error: nil)
        case "getMessageStatus":
            let message = try await messages.message(app: app, id: try arguments.string(0, "messageId"))
            return Self.messageStatus(id: message.id, status: message.status, error: message.errorMessage)
        case "cancel":
            let id = try arguments.string(0, "messageId")
            try await messages.cancel(app: app, id: id)
            return Self.messageStatus(id: id, status: .cancelled, error: nil)
        case "pushWithTemplate":
            let name = try arguments.string(0, "templateName")
            let values = try arguments[1].map { value throws(HeraldFault) in try value.json(property: "templateValues") }
            let id = try await templates.push(app: app, name: name, body: values.map { .object(["templateValues": $0]) })
            return Self.messageStatus(id: id, status: .scheduled, error: nil)
        default:
            throw Self.notServed(call)
        }
    }

    /// `pollMessages(channel, subscriptionId)`: the subscription's new messages as the SDK's `Message` objects.
    func poll(_ arguments: BinaryArguments, app: String) async throws -> AMFValue {
        let channel = try ChannelName(validating: try arguments.string(0, "channelName"), property: "channelName")
        let found = try await pubsub.poll(app: app, channel: channel, id: try arguments.string(1, "subscriptionId"))
        return .array(
            found.map { message in
                .object(
                    AMFObject(
                        className: Self.messageClass,
                        members: [
                            AMFMember("messageId", .string(message.messageId)),
                            AMFMember(
                                "headers",
                                AMFValue(json: .object(message.content.headers.mapValues { .string(PubSubRoutes.headerText($0)) }))),
                            AMFMember("data", AMFValue(json: message.content.data)),
                            AMFMember("publisherId", message.publisherId.map(AMFValue.string) ?? .null),
                            AMFMember("timestamp", .double(Double(message.publishedAt.milliseconds))),
                        ]))
            })
    }

    /// The REST publish body for the SDK's arguments. PublishOptions gives `publisherId`, `headers` and
    /// `subtopic`; DeliveryOptions the push fields, where the SDK's "not set" values (a mask of 0 beside a
    /// device list, an empty device list, `repeatEvery` 0, null dates) mean absent. Its `segmentQuery` (a
    /// Backendless where-clause) is refused rather than ignored: ignoring it would push to every device.
    static func publishBody(message: AMFValue?, publish: AMFObject?, delivery: AMFObject?) throws(HeraldFault) -> JSONValue {
        var body: [String: JSONValue] = ["message": try message?.json(property: "message") ?? .null]
        if let publish {
            for field in ["publisherId", "headers", "subtopic"] {
                if let value = publish[field], !value.isNull { body[field] = try value.json(property: field) }
            }
        }
        guard let delivery else { return .object(body) }
        if let query = delivery["segmentQuery"], !query.isNull {
            throw HeraldFault.invalidParameter(
                "segmentQuery", "Herald does not take a Backendless where-clause; name the devices in pushSinglecast or send to a channel")
        }
        let singlecast = try delivery["pushSinglecast"].map { value throws(HeraldFault) in try value.json(property: "pushSinglecast") }
        let hasDevices = if case .array(let ids)? = singlecast { !ids.isEmpty } else { singlecast != nil && singlecast != .null }
        if hasDevices { body["pushSinglecast"] = singlecast }
        if let mask = delivery["pushBroadcast"], !mask.isNull, !(hasDevices && mask.int64 == 0) {
            body["pushBroadcast"] = try mask.json(property: "pushBroadcast")
        }
        if let repeatEvery = delivery["repeatEvery"], !repeatEvery.isNull, repeatEvery.int64 != 0 {
            body["repeatEvery"] = try repeatEvery.json(property: "repeatEvery")
        }
        for field in ["publishPolicy", "publishAt", "repeatExpiresAt"] {
            if let value = delivery[field], !value.isNull { body[field] = try value.json(property: field) }
        }
        return .object(body)
    }

    /// A `MessageStatus` as the SDK casts it: its own class name and the status constant's name in upper case.
    static func messageStatus(id: String, status: MessageStatus, error: String?) -> AMFValue {
        .object(
            AMFObject(
                className: messageStatusClass,
                members: [
                    AMFMember("messageId", .string(id)),
                    AMFMember("status", .string(status.contractStatus.uppercased())),
                    AMFMember("errorMessage", error.map(AMFValue.string) ?? .null),
                ]))
    }
}
