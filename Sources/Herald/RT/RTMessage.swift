import HeraldCore
import HeraldStore

/// A channel's message as Backendless RT hands it to an SDK's message listener (`SUB_RES`'s `data`):
/// the fields the JS, Swift and Java SDKs read, with `message` the published value as given and the
/// headers as text. What a REST publish cannot set in Herald (subtopic, push fields, the schedule) is
/// null or 0, as Backendless sends them for a publish that did not set them.
enum RTMessage {
    static func json(_ message: FeedMessage) -> JSONValue {
        .object([
            "messageId": .string(message.messageId),
            "timestamp": .integer(message.publishedAt.milliseconds),
            "message": message.content.data,
            "publisherId": message.publisherId.map(JSONValue.string) ?? .null,
            "headers": .object(message.content.headers.mapValues { .string(PubSubRoutes.headerText($0)) }),
            "subtopic": .null, "publishPolicy": .null, "pushSinglecast": .null, "pushBroadcast": .null,
            "templateValues": .null, "query": .null,
            "publishAt": .integer(0), "repeatEvery": .integer(0), "repeatExpiresAt": .integer(0),
        ])
    }
}
