import Foundation
import HeraldAMF
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore

/// The Backendless Java/Android SDK's binary calls, for tests: the captured request bytes under
/// `fixtures/amf/requests/`, the same with other arguments, or a call built as the SDK builds one.
enum BinaryCall {
    static let registrationService = "com.backendless.services.messaging.DeviceRegistrationService"
    static let messagingService = "com.backendless.services.messaging.MessagingService"

    /// A captured request's bytes, as the SDK sent them.
    static func sample(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: FixtureFiles.path("fixtures/amf/requests/\(name).amf"))))
    }

    /// A captured request with its arguments replaced (the rest of the RemotingMessage as the SDK wrote it).
    static func sample(_ name: String, arguments: [AMFValue]) throws -> [UInt8] {
        var packet = try AMFPacket(decoding: try sample(name))
        guard case .array(var items, let associative) = packet.messages[0].value, case .object(var message) = items[0],
            let index = message.members.firstIndex(where: { $0.name == "body" })
        else { throw BinaryError("the sample \(name) is not a RemotingMessage in an array") }
        message.members[index].value = .array(arguments)
        items[0] = .object(message)
        packet.messages[0].value = .array(items, associative: associative)
        return packet.encoded()
    }

    /// A call built as the SDK builds one: a sealed RemotingMessage with its eleven members, in an array of one.
    static func build(service: String, operation: String, arguments: [AMFValue]) -> [UInt8] {
        let headers = AMFObject(members: [AMFMember("application-type", .string("ANDROID")), AMFMember("api-version", .string("1.0"))])
        let message = AMFObject(
            className: "flex.messaging.messages.RemotingMessage",
            members: [
                AMFMember("timeToLive", .int(0)), AMFMember("headers", .object(headers)), AMFMember("clientId", .null),
                AMFMember("destination", .string("GenericDestination")), AMFMember("messageId", .null),
                AMFMember("correlationId", .null), AMFMember("source", .string(service)), AMFMember("body", .array(arguments)),
                AMFMember("operation", .string(operation)), AMFMember("messageRefType", .null), AMFMember("timestamp", .int(0)),
            ])
        return AMFPacket(messages: [AMFMessage(targetURI: "null", responseURI: "null", value: .array([.object(message)]))]).encoded()
    }
}

/// What a `/binary` call answered: its HTTP status and type, and the Flex message of its first body.
struct BinaryAnswer {
    let status: HTTPResponse.Status
    let contentType: String?
    let message: AMFObject

    var isFault: Bool { message.className == "flex.messaging.messages.ErrorMessage" }
    /// The acknowledged result (nil for a fault).
    var result: AMFValue? { isFault ? nil : message["body"] }
    /// The fault's code as the SDK reads it (the decimal text), nil for a result.
    var faultCode: String? { isFault ? message["faultCode"]?.string : nil }
    var faultString: String? { message["faultString"]?.string }
}

struct BinaryError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension TestClientProtocol {
    /// POSTs an AMF packet to `/{app}/{key}/binary` as the SDK does and reads the answer's first body.
    func binary(_ app: String, _ key: String, _ bytes: [UInt8]) async throws -> BinaryAnswer {
        try await execute(
            uri: "/\(app)/\(key)/binary", method: .post, headers: [.contentType: "application/x-amf"], body: ByteBuffer(bytes: bytes)
        ) { response in
            let packet = try AMFPacket(decoding: Array(response.body.readableBytesView))
            guard let first = packet.messages.first, case .object(let message) = first.value else {
                throw BinaryError("the answer's first body is not a Flex message: \(packet)")
            }
            return BinaryAnswer(status: response.status, contentType: response.headers[.contentType], message: message)
        }
    }
}
