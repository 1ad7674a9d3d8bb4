import FCMMock
import Foundation
import HeraldAMF
import HeraldCore
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The Backendless Java/Android SDK's AMF calls at `/{appId}/{apiKey}/binary` (issue 50): the captured
/// requests answered as the SDK reads them, each through its REST route's code, faults included.
@Suite struct BinaryAPITests {
    static let deviceId = "3f2a9c1e5b7d4e60"
    static let token = "cJsf0c6db2e95252934f06d2e4f:APA91bHUNx0c3Vdl7XrGm1V0kF6Q9zYt5bq3R2pQ8wJm"
    static let registrations = "/shop/k-client/messaging/registrations"

    @Test(arguments: PublishHarness.Database.available)
    func anAndroidRegistrationLandsAndIsReadBackEitherWay(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            let registered = try await h.client.binary("shop", "k-client", try BinaryCall.sample("registerDevice"))
            #expect(registered.status == .ok && registered.contentType == "application/x-amf")
            let text = try #require(registered.result?.string, "the SDK parses a string: \(registered.message)")
            let parsed = try JSONValue.parse(Array(text.utf8))
            guard case .string(let pairs)? = parsed[0], case .object(let templates)? = parsed[1] else {
                throw BinaryError("not [pairs, templates]: \(text)")
            }
            #expect(templates.isEmpty)
            let byChannel = Dictionary(
                uniqueKeysWithValues: pairs.split(separator: ",").map { pair in
                    let parts = pair.components(separatedBy: "::")
                    return (parts.last ?? "", parts.first ?? "")
                })
            #expect(Set(byChannel.keys) == ["news", "sports"], "\(pairs)")
            // A template stored now is in the next registration's answer (the admin route drops the cache).
            let put = try await h.client.call(
                .put, "/shop/k-admin/admin/pushtemplates/welcome", json: #"{"message": "Hi", "android": {"contentTitle": "Welcome"}}"#)
            #expect(put.status == .created, "\(put.body)")
            let withTemplate = try #require(
                try await h.client.binary("shop", "k-client", try BinaryCall.sample("registerDevice")).result?.string)
            #expect(try JSONValue.parse(Array(withTemplate.utf8))[1]?["welcome"]?["contentTitle"] == .string("Welcome"), "\(withTemplate)")

            let rest = try await h.client.call(.get, Self.registrations + "/" + Self.deviceId)
            let device = try #require(rest.body[0])
            #expect(device["os"] == .string("ANDROID") && device["osVersion"] == .string("30"))
            #expect(device["channels"] == .array([.string("news"), .string("sports")]))
            #expect(device["expiration"] == .integer(1_893_456_000_000))
            #expect(device["deviceToken"] == .string(Self.token))

            let read = try await h.client.binary("shop", "k-client", try BinaryCall.sample("getDeviceRegistrationByDeviceId"))
            let dto = try #require(read.result?.object, "one object, not an array: \(read.message)")
            #expect(dto.className == "com.backendless.management.DeviceRegistrationDto")
            #expect(dto["deviceId"] == .string(Self.deviceId) && dto["deviceToken"] == .string(Self.token))
            #expect(dto["channels"] == .array([.string("news"), .string("sports")]))
            #expect(dto["expiration"] == .date(1_893_456_000_000))
            #expect(dto["id"] == device["id"].flatMap { if case .string(let id) = $0 { .string(id) } else { nil } })

            let refreshed = try await h.client.binary("shop", "k-client", try BinaryCall.sample("refreshDeviceToken"))
            #expect(refreshed.result == .bool(true), "\(refreshed.message)")
            let after = try #require(try await h.client.call(.get, Self.registrations + "/" + Self.deviceId).body[0])
            #expect(after["deviceToken"] == .string(Self.token + "-rotated"))
            #expect(after["channels"] == device["channels"] && after["expiration"] == device["expiration"], "kept")

            let some = try await h.client.binary(
                "shop", "k-client",
                try BinaryCall.sample("unregisterDevice-android", arguments: [.string(Self.deviceId), .array([.string("news")])]))
            #expect(some.result == .int(1), "one channel left: \(some.message)")
            let all = try await h.client.binary("shop", "k-client", try BinaryCall.sample("unregisterDevice-android"))
            #expect(all.result == .int(0), "null = every channel: \(all.message)")
            let gone = try await h.client.call(.get, Self.registrations + "/" + Self.deviceId)
            #expect(gone.body.code == 5000)
            let again = try await h.client.binary("shop", "k-client", try BinaryCall.sample("getDeviceRegistrationByDeviceId"))
            #expect(again.status == .ok && again.faultCode == "5000", "\(again.message)")
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func aPublishIsStoredReadAndCancelledAsMessageStatuses(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            let scheduled = try await h.client.binary("shop", "k-server", try BinaryCall.sample("publish-scheduled-repeating"))
            let status = try #require(scheduled.result?.object, "\(scheduled.message)")
            #expect(status.className == "com.backendless.messaging.MessageStatus")
            #expect(status["status"] == .string("SCHEDULED") && status["errorMessage"] == .null)
            let id = try #require(status["messageId"]?.string)

            let rest = try await h.client.call(.get, "/shop/k-server/messaging/\(id)")
            #expect(rest.body["status"] == .string("scheduled"))
            #expect(rest.body["nextOccurrenceAt"] == .integer(1_893_459_600_000), "publishAt arrived as a date: \(rest.body)")

            let read = try await h.client.binary("shop", "k-server", try BinaryCall.sample("getMessageStatus", arguments: [.string(id)]))
            #expect(read.result?.object?["status"] == .string("SCHEDULED"), "\(read.message)")
            let cancelled = try await h.client.binary("shop", "k-server", try BinaryCall.sample("cancel", arguments: [.string(id)]))
            #expect(cancelled.result?.object?["status"] == .string("CANCELLED"), "\(cancelled.message)")
            #expect(cancelled.result?.object?.className == "com.backendless.messaging.MessageStatus")
            let after = try await h.client.binary("shop", "k-server", try BinaryCall.sample("getMessageStatus", arguments: [.string(id)]))
            #expect(after.result?.object?["status"] == .string("CANCELLED"))
            let twice = try await h.client.binary("shop", "k-server", try BinaryCall.sample("cancel", arguments: [.string(id)]))
            #expect(twice.faultCode == "5040", "\(twice.message)")

            for sample in ["publish-defaults", "publish-default-channel", "publish-pubsub", "publish-singlecast", "publish-object-message"]
            {
                let answer = try await h.client.binary("shop", "k-server", try BinaryCall.sample(sample))
                #expect(answer.result?.object?["status"] == .string("SCHEDULED"), "\(sample): \(answer.message)")
            }
        }
    }

    /// Every fault as the SDK reads one: HTTP 200, an ErrorMessage, the Backendless code as decimal text.
    @Test func faultsCarryTheBackendlessCodes() async throws {
        try await TestHerald.with { h in
            func fault(_ app: String, _ key: String, _ bytes: [UInt8]) async throws -> String? {
                let answer = try await h.client.binary(app, key, bytes)
                #expect(answer.status == .ok && answer.contentType == "application/x-amf")
                #expect(answer.message["faultDetail"] == .string("") && answer.message["extendedData"] == .object(AMFObject()))
                #expect(answer.faultString?.isEmpty == false)
                return answer.faultCode
            }
            let register = try BinaryCall.sample("registerDevice")
            #expect(try await fault("nope", "k-client", register) == "2002", "unknown app")
            #expect(try await fault("shop", "wrong", register) == "2002", "unknown key")
            #expect(try await fault("shop", "k-client", try BinaryCall.sample("publish-push")) == "5007", "a client key publishes")
            #expect(try await fault("shop", "k-server", try BinaryCall.sample("getMessageStatus")) == "5040")
            #expect(try await fault("shop", "k-client", try BinaryCall.sample("getDeviceRegistrationByDeviceId")) == "5000")
            #expect(try await fault("shop", "k-client", try BinaryCall.sample("refreshDeviceToken")) == "5000")
            #expect(try await fault("shop", "k-server", try BinaryCall.sample("pushWithTemplate")) == "5050")
            let past = AMFObject(
                className: "com.backendless.management.DeviceRegistrationDto",
                members: [
                    AMFMember("id", .string("")), AMFMember("deviceToken", .string("tok")), AMFMember("deviceId", .string("d1")),
                    AMFMember("os", .string("ANDROID")), AMFMember("osVersion", .string("30")),
                    AMFMember("expiration", .date(1_000)), AMFMember("channels", .array([.string("news")])),
                ])
            #expect(
                try await fault("shop", "k-client", try BinaryCall.sample("registerDevice", arguments: [.object(past)])) == "5004")
            var linux = past
            linux.members[3].value = .string("Linux")
            linux.members[5].value = .null
            #expect(try await fault("shop", "k-client", try BinaryCall.sample("registerDevice", arguments: [.object(linux)])) == "8008")
            #expect(try await fault("shop", "k-client", try BinaryCall.sample("registerDevice", arguments: [])) == "8007")
            let persistence = BinaryCall.build(
                service: "com.backendless.services.persistence.PersistenceService", operation: "find", arguments: [.string("Person")])
            let notServed = try await h.client.binary("shop", "k-client", persistence)
            #expect(notServed.faultCode == "404" && notServed.faultString?.contains("not served by Herald") == true)
            #expect(try await fault("shop", "k-client", Array("{\"json\": true}".utf8)) == "8002", "not AMF")
            let lookup = BinaryCall.build(service: "com.backendless.rt.RTService", operation: "lookup", arguments: [])
            let rt = try await h.client.binary("shop", "k-client", lookup)
            #expect(rt.result?.string?.hasPrefix("http://") == true, "the Java SDK's RT address: \(rt.message)")
            #expect(try await fault("nope", "k-client", lookup) == "2002")
            #expect(try await fault("shop", "k-client", Array(register.prefix(200))) == "8002", "cut short")
        }
    }

    /// Packets past the limits are refused in AMF before anything runs, and the connection is closed
    /// after a body that was not read whole.
    @Test func oversizedAndOverfullPacketsAreRefusedInAMF() async throws {
        try await TestHerald.with { h in
            let huge = BinaryCall.build(
                service: BinaryCall.registrationService, operation: "getDeviceRegistrationByDeviceId",
                arguments: [.string(String(repeating: "x", count: 70_000))])
            let tooLarge = try await h.client.binary("shop", "k-client", huge)
            #expect(tooLarge.status == .ok && tooLarge.faultCode == "8000", "\(tooLarge.message)")

            let one = try AMFPacket(decoding: try BinaryCall.sample("getDeviceRegistrationByDeviceId"))
            let seventeen = AMFPacket(messages: Array(repeating: one.messages[0], count: 17)).encoded()
            let overfull = try await h.client.binary("shop", "k-client", seventeen)
            #expect(overfull.faultCode == "8002" && overfull.faultString?.contains("at most 16") == true, "\(overfull.message)")

            // Two bodies: two answers, in order, each its own (the first a fault, the second too here).
            let two = AMFPacket(messages: [one.messages[0], one.messages[0]]).encoded()
            let answered = try await h.client.execute(
                uri: "/shop/k-client/binary", method: .post, headers: [.contentType: "application/x-amf"], body: ByteBuffer(bytes: two)
            ) { response in try AMFPacket(decoding: Array(response.body.readableBytesView)) }
            #expect(answered.messages.count == 2)
            #expect(answered.messages.allSatisfy { $0.targetURI == "/1/onStatus" })

            let unknown = BinaryCall.build(service: BinaryCall.registrationService, operation: "deleteEverything", arguments: [])
            let notServed = try await h.client.binary("shop", "k-client", unknown)
            #expect(notServed.faultCode == "404", "\(notServed.message)")
            let typed = BinaryCall.build(service: BinaryCall.messagingService, operation: "publish", arguments: [.int(3)])
            let wrongType = try await h.client.binary("shop", "k-server", typed)
            #expect(wrongType.faultCode == "8008", "\(wrongType.message)")
        }
    }

    /// An Android device registered over `/binary` gets what a Java server publishes over `/binary`,
    /// through the mock FCM; the registration's answer carries the app's Android templates typed for the SDK.
    @Test(arguments: PublishHarness.Database.available)
    func anAndroidDeviceReceivesAPublishMadeOverBinary(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database, fcm: true) { h in
            let fcm = try #require(h.fcmMock)
            let put = try await h.client.call(
                .put, "/shop/k-admin/admin/pushtemplates/spring-sale",
                json: #"{"message": "Hi {user}", "audience": {"channels": ["news"]}, "android": {"contentTitle": "Sale", "priority": 4}}"#)
            #expect(put.status == .created, "\(put.body)")
            let registered = try await h.client.binary("shop", "k-client", try BinaryCall.sample("registerDevice"))
            let text = try #require(registered.result?.string, "\(registered.message)")
            let template = try #require(try JSONValue.parse(Array(text.utf8))[1]?["spring-sale"])
            #expect(template["___jsonclass"] == .string("com.backendless.messaging.AndroidPushTemplate"))
            #expect(template["contentTitle"] == .string("Sale"))

            let published = try await h.client.binary("shop", "k-server", try BinaryCall.sample("publish-push"))
            let id = try #require(published.result?.object?["messageId"]?.string, "\(published.message)")
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 1, "\(status)")
            let sent = fcm.messages(token: Self.token)
            #expect(sent.count == 1)
            // The SDK's headers made it a notification: its Android header names mapped as over REST.
            let message = try #require(sent.first?.message)
            #expect(message["notification"] == .object(["title": .string("Title"), "body": .string("Text")]), "\(message)")
            #expect(message["data"]?["articleId"] == .string("42"))

            let pushed = try await h.client.binary("shop", "k-server", try BinaryCall.sample("pushWithTemplate"))
            #expect(pushed.result?.object?["status"] == .string("SCHEDULED"), "\(pushed.message)")
        }
    }

    /// `pollMessages` answers the subscription's messages as the SDK's `Message` objects.
    @Test func pollMessagesAnswersTypedMessages() async throws {
        try await TestHerald.with { h in
            let subscribed = try await h.client.call(.post, "/shop/k-client/messaging/news/subscribe", json: "{}")
            guard case .string(let subscription)? = subscribed.body["subscriptionId"] else { throw BinaryError("\(subscribed.body)") }
            let published = try await h.client.binary("shop", "k-server", try BinaryCall.sample("publish-pubsub"))
            let id = try #require(published.result?.object?["messageId"]?.string)
            let poll = try BinaryCall.sample("pollMessages", arguments: [.string("news"), .string(subscription)])
            let answer = try await h.client.binary("shop", "k-client", poll)
            let messages = try #require(answer.result?.array, "\(answer.message)")
            #expect(messages.count == 1)
            let message = try #require(messages.first?.object)
            #expect(message.className == "com.backendless.services.messaging.Message")
            #expect(message["messageId"] == .string(id))
            #expect(message["timestamp"]?.number != nil && message["headers"]?.object != nil)
            let empty = try await h.client.binary("shop", "k-client", poll)
            #expect(empty.result == .array([]))
        }
    }
}
