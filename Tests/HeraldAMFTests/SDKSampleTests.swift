import HeraldAMF
import Testing

/// The Backendless Android SDK's captured requests (fixtures/amf/requests), each decoded to the call it is
/// named after, and the answers the real SDK accepted (fixtures/amf/responses) read and written back.
@Suite struct SDKSampleTests {
    typealias T = AMFTestSupport

    static let registrations = "com.backendless.services.messaging.DeviceRegistrationService"
    static let messaging = "com.backendless.services.messaging.MessagingService"
    static let token = "cJsf0c6db2e95252934f06d2e4f:APA91bHUNx0c3Vdl7XrGm1V0kF6Q9zYt5bq3R2pQ8wJm"
    static let device = "3f2a9c1e5b7d4e60"
    static let messageId = "message:0ae1b200-5016-40f7-bdc5-92813aec5daf"

    /// A decoded request: the RemotingMessage's service, operation and arguments.
    struct Call {
        var source: String
        var operation: String
        var arguments: [AMFValue]
    }

    static func call(_ name: String) throws -> Call {
        let bytes = try #require(try T.samples("requests").first { $0.name == name }?.bytes)
        let packet = try AMFPacket(decoding: bytes)
        #expect(packet.version == 3 && packet.headers.isEmpty && packet.messages.count == 1)
        #expect(packet.messages[0].targetURI == "null" && packet.messages[0].responseURI == "null")
        let envelope = try #require(packet.messages[0].value.array)
        let message = try #require(envelope.first?.object)
        #expect(envelope.count == 1)
        #expect(message.className == "flex.messaging.messages.RemotingMessage" && !message.isDynamic)
        #expect(message["destination"] == .string("GenericDestination"))
        #expect(message["timeToLive"] == .int(0) && message["messageId"] == .null)
        let headers = try #require(message["headers"]?.object)
        #expect(headers.className.isEmpty && !headers.isDynamic)
        #expect(headers["application-type"] == .string("ANDROID") && headers["api-version"] == .string("1.0"))
        return Call(
            source: try #require(message["source"]?.string), operation: try #require(message["operation"]?.string),
            arguments: try #require(message["body"]?.array))
    }

    @Test(arguments: ["registerDevice", "registerDevice-default-channel", "registerDevice-plain-java"])
    func registerDevice(name: String) throws {
        let request = try Self.call(name)
        #expect(request.source == Self.registrations && request.operation == "registerDevice")
        let dto = try #require(request.arguments.first?.object)
        #expect(request.arguments.count == 1)
        #expect(dto.className == "com.backendless.management.DeviceRegistrationDto" && !dto.isDynamic)
        #expect(dto["deviceToken"] == .string(Self.token) && dto["deviceId"] == .string(Self.device))
        #expect(dto["id"] == .string(""))
        let expected: (os: String, channels: [AMFValue], expiration: AMFValue) =
            switch name {
            case "registerDevice": ("ANDROID", [.string("news"), .string("sports")], .date(1_893_456_000_000))
            case "registerDevice-default-channel": ("ANDROID", [.string("default")], .null)
            default: ("Linux", [.string("news")], .date(1_893_456_000_000))
            }
        // "ANDROID" is a string reference to the header's value in the Android captures.
        #expect(dto["os"] == .string(expected.os))
        #expect(dto["channels"] == .array(expected.channels))
        #expect(dto["expiration"] == expected.expiration)
    }

    @Test func deviceCalls() throws {
        let byId = try Self.call("getDeviceRegistrationByDeviceId")
        #expect(byId.source == Self.registrations && byId.operation == "getDeviceRegistrationByDeviceId")
        #expect(byId.arguments == [.string(Self.device)])
        let refresh = try Self.call("refreshDeviceToken")
        #expect(refresh.operation == "refreshDeviceToken")
        #expect(refresh.arguments == [.string(Self.device), .string(Self.token + "-rotated")])
        #expect(try Self.call("unregisterDevice-one-arg").arguments == [.string(Self.device)])
        #expect(try Self.call("unregisterDevice-android").arguments == [.string(Self.device), .null])
        let channels = try Self.call("unregisterDevice-channels")
        #expect(channels.source == Self.registrations && channels.operation == "unregisterDevice")
        #expect(channels.arguments == [.string(Self.device), .array([.string("sports")])])
    }

    @Test func messagingCalls() throws {
        for operation in ["getMessageStatus", "cancel"] {
            let request = try Self.call(operation)
            #expect(request.source == Self.messaging && request.operation == operation)
            #expect(request.arguments == [.string(Self.messageId)])
        }
        let template = try Self.call("pushWithTemplate")
        #expect(template.operation == "pushWithTemplate")
        let values = AMFObject(members: [AMFMember("user", .string("Ana")), AMFMember("percent", .string("20"))])
        #expect(template.arguments == [.string("spring-sale"), .object(values)])
        #expect(try Self.call("pushWithTemplate-no-values").arguments == [.string("spring-sale"), .null])
        let poll = try Self.call("pollMessages")
        #expect(poll.source == Self.messaging && poll.operation == "pollMessages")
        #expect(poll.arguments == [.string("news"), .string("3c1f0f2e-7d5b-4a8e-9a51-0b6f3f1d2c44")])
    }
}
