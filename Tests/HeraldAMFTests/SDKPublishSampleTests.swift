import HeraldAMF
import Testing

/// The `publish` captures: channel, message, PublishOptions and DeliveryOptions as the SDK writes them.
@Suite struct SDKPublishSampleTests {
    /// What each capture's arguments say: channel, message, publisherId, and DeliveryOptions' fields.
    struct Expected: Sendable {
        var name: String
        var channel: String
        var message: AMFValue
        var publisherId: AMFValue = .null
        var broadcast: Int32 = 15
        var singlecast: [AMFValue] = []
        var policy = "BOTH"
        var publishAt: AMFValue = .null
        var repeatEvery: Int32 = 0
        var repeatExpiresAt: AMFValue = .null
    }

    static let cases: [Expected] = [
        Expected(
            name: "publish-push", channel: "news", message: .string("Hello from Java"), publisherId: .string("svc-1"),
            broadcast: 3),
        Expected(
            name: "publish-singlecast", channel: "news", message: .string("Just you"), broadcast: 0,
            singlecast: [.string("3f2a9c1e5b7d4e60")]),
        Expected(
            name: "publish-scheduled-repeating", channel: "news", message: .string("Every hour"), broadcast: 2,
            policy: "PUSH", publishAt: .date(1_893_459_600_000), repeatEvery: 3600,
            repeatExpiresAt: .date(1_893_542_400_000)),
        Expected(name: "publish-defaults", channel: "news", message: .string("Plain")),
        Expected(name: "publish-default-channel", channel: "default", message: .string("To the default channel")),
        Expected(
            name: "publish-object-message", channel: "news",
            message: .object(AMFObject(members: [AMFMember("foo", .string("bar")), AMFMember("n", .int(1))]))),
        Expected(name: "publish-pubsub", channel: "news", message: .string("Subscribers only"), policy: "PUBSUB"),
    ]

    @Test(arguments: cases)
    func publish(expected: Expected) throws {
        let request = try SDKSampleTests.call(expected.name)
        #expect(request.source == SDKSampleTests.messaging && request.operation == "publish")
        #expect(request.arguments.count == 4)
        #expect(request.arguments.first == .string(expected.channel))
        #expect(request.arguments.dropFirst().first == expected.message)

        let options = try #require(request.arguments.dropFirst(2).first?.object)
        #expect(options.className == "com.backendless.services.messaging.PublishOptions" && !options.isDynamic)
        #expect(options["publisherId"] == expected.publisherId)
        #expect(options["subtopic"] == .null && options["templateValues"] == .null)
        // The class's static constants travel too, some as string references.
        #expect(options["IOS_BADGE_TAG"] == .string("ios-badge") && options["MESSAGE_ID"] == .string("messageId"))
        let headers = try #require(options["headers"]?.object)
        #expect(headers.className.isEmpty && !headers.isDynamic)
        if expected.name == "publish-push" {
            #expect(headers.members.count == 6)
            #expect(headers["android-content-title"] == .string("Title") && headers["ios-badge"] == .string("1"))
            #expect(options["ANDROID_CONTENT_TITLE_TAG"] == .string("android-content-title"))
        } else {
            #expect(headers.members.isEmpty)
        }

        let delivery = try #require(request.arguments.last?.object)
        #expect(delivery.className == "com.backendless.services.messaging.DeliveryOptions" && !delivery.isDynamic)
        #expect(delivery["pushBroadcast"] == .int(expected.broadcast))
        #expect(delivery["pushSinglecast"] == .array(expected.singlecast))
        #expect(delivery["publishPolicy"] == .string(expected.policy))
        #expect(delivery["publishAt"] == expected.publishAt)
        #expect(delivery["repeatEvery"] == .int(expected.repeatEvery))
        #expect(delivery["repeatExpiresAt"] == expected.repeatExpiresAt)
        #expect(delivery["segmentQuery"] == .null)
    }

    /// Every sample, request or answer, reads back the same after the encoder writes it (in AMF3, with its
    /// own string and traits references and the real body length).
    @Test func everySampleRoundTrips() throws {
        let samples = try AMFTestSupport.allSamples()
        #expect(samples.count == 33)
        for sample in samples {
            let packet = try AMFPacket(decoding: sample.bytes)
            let again = try AMFPacket(decoding: packet.encoded())
            #expect(again == packet, "\(sample.name)")
            #expect(again.encoded() == packet.encoded(), "\(sample.name)")
        }
    }

    /// Two answers checked in detail: MessageStatus in an AcknowledgeMessage, and a fault's extendedData.
    @Test func answers() throws {
        let samples = try AMFTestSupport.samples("responses")
        let publish = try AMFPacket(decoding: try #require(samples.first { $0.name == "publish" }?.bytes))
        #expect(publish.messages[0].targetURI == "/1/onResult")
        let acknowledge = try #require(publish.messages[0].value.object)
        #expect(acknowledge.className == "flex.messaging.messages.AcknowledgeMessage")
        #expect(acknowledge["headers"] == .object(AMFObject(isDynamic: true)))
        let status = try #require(acknowledge["body"]?.object)
        #expect(status.className == "com.backendless.messaging.MessageStatus")
        #expect(status["status"] == .string("SCHEDULED") && status["errorMessage"] == .null)
        #expect(acknowledge["timestamp"] == .double(0))

        let fault = try AMFPacket(
            decoding: try #require(samples.first { $0.name == "fault-5004-with-extendedData" }?.bytes))
        let error = try #require(fault.messages[0].value.object)
        #expect(error.className == "flex.messaging.messages.ErrorMessage")
        #expect(error["faultCode"] == .string("5004") && error["faultDetail"] == .string("detail text"))
        #expect(error["extendedData"] == .object(AMFObject(members: [AMFMember("httpStatus", .int(400))], isDynamic: true)))
    }
}
