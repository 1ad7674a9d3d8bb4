import Foundation
import HeraldAMF
import HeraldCore

/// The Flex answers the Java SDK reads: an `AcknowledgeMessage` whose `body` is the result, or an
/// `ErrorMessage` whose four fault members (all strings but `extendedData`, an object) become the app's
/// `BackendlessFault`. Any other type for them reaches the app as a client-side exception instead.
enum RemotingAnswer {
    static func acknowledge(_ result: AMFValue, now: Timestamp) -> AMFMessage {
        AMFMessage(
            targetURI: "/1/onResult", responseURI: "null",
            value: .object(
                AMFObject(
                    className: "flex.messaging.messages.AcknowledgeMessage",
                    members: envelope(now: now) + [AMFMember("body", result)])))
    }

    /// A fault with the Backendless code as `faultCode` (decimal text) and the fault's message as `faultString`.
    static func error(_ fault: HeraldFault, now: Timestamp) -> AMFMessage {
        AMFMessage(
            targetURI: "/1/onStatus", responseURI: "null",
            value: .object(
                AMFObject(
                    className: "flex.messaging.messages.ErrorMessage",
                    members: envelope(now: now) + [
                        AMFMember("body", .null),
                        AMFMember("faultCode", .string(String(fault.code))),
                        AMFMember("faultString", .string(fault.message)),
                        AMFMember("faultDetail", .string("")),
                        AMFMember("extendedData", .object(AMFObject())),
                        AMFMember("rootCause", .null),
                    ])))
    }

    /// The members a Flex server's acknowledgement carries besides its body (the SDK reads none of them;
    /// its requests carry no message id to correlate).
    private static func envelope(now: Timestamp) -> [AMFMember] {
        [
            AMFMember("correlationId", .null),
            AMFMember("clientId", .null),
            AMFMember("messageId", .string(UUID().uuidString)),
            AMFMember("destination", .null),
            AMFMember("headers", .object(AMFObject())),
            AMFMember("timestamp", .double(Double(now.milliseconds))),
            AMFMember("timeToLive", .int(0)),
        ]
    }
}
