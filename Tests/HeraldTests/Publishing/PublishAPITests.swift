import APNsMock
import Foundation
import HeraldCore
import Hummingbird
import Testing

/// The publish, status and cancel routes as a Backendless client sees them: who may call them, which
/// bodies they refuse with which code, and the shape of what they answer.
@Suite struct PublishAPITests {
    static let unknownId = "message:00000000-0000-0000-0000-000000000000"

    @Test func publishingNeedsAServerKey() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<3)
            let denied = try await h.post("news", #"{"message": "Hi"}"#, key: "k-client")
            #expect(denied.status == .forbidden)
            #expect(denied.body == .object(["code": .integer(5007), "message": .string("User has no permission to publish message")]))
            let unknown = try await h.post("news", #"{"message": "Hi"}"#, key: "k-nope")
            #expect(unknown.status == .unauthorized)
            #expect(unknown.body.code == 2002)
            let admin = try await h.post("news", #"{"message": "Hi"}"#, key: "k-admin")
            #expect(admin.status == .ok, "admin can do what server can")
            // Neither refused publish was stored: only the admin's message reaches the devices.
            guard case .string(let id)? = admin.body["messageId"] else {
                Issue.record("no messageId in \(admin.body)")
                return
            }
            try await h.waitFor(id, status: "published")
            try await h.expectNoMoreRequests(than: 3, for: .milliseconds(200))
            #expect(h.mock.notifications().count == 3)
        }
    }

    @Test func statusAndCancelNeedAServerKey() async throws {
        try await PublishHarness.with { h in
            let id = try await h.publish("news", #"{"message": "Hi", "publishAt": \#(h.clock.now.milliseconds + 60_000)}"#)
            for method in [HTTPRequest.Method.get, .delete] {
                let denied = try await h.client.call(method, "/shop/k-client/messaging/\(id)")
                #expect(denied.status == .forbidden, "\(method)")
                #expect(denied.body == .object(["code": .integer(5007), "message": .string("User has no permission to publish message")]))
                let unknown = try await h.client.call(method, "/shop/k-wrong/messaging/\(id)")
                #expect(unknown.status == .unauthorized, "\(method)")
                #expect(unknown.body.code == 2002)
            }
            // The refused DELETE did not cancel it.
            #expect(try await h.status(id).messageStatus == "scheduled")
        }
    }

    @Test func aBodyWithoutAMessageIs5041() async throws {
        try await PublishHarness.with { h in
            for body in [#"{}"#, #"{"message": null}"#, #"{"headers": {"ios-alert-title": "Hi"}}"#] {
                let answer = try await h.post("news", body)
                #expect(answer.status == .badRequest, "\(body)")
                #expect(answer.body.code == 5041, "\(body): \(answer.body)")
            }
        }
    }

    @Test func aPublishTimeNotInTheFutureIs5030() async throws {
        try await PublishHarness.with { h in
            let now = h.clock.now.milliseconds
            for body in [
                #"{"message": "Hi", "publishAt": \#(now - 1)}"#,
                #"{"message": "Hi", "publishAt": \#(now)}"#,
                #"{"message": "Hi", "publishAt": \#(now + 120_000), "repeatEvery": 60, "repeatExpiresAt": \#(now + 60_000)}"#,
            ] {
                let answer = try await h.post("news", body)
                #expect(answer.status == .badRequest, "\(body)")
                #expect(answer.body.code == 5030, "\(body): \(answer.body)")
            }
            #expect(try await h.post("news", #"{"message": "Hi", "publishAt": \#(now + 1)}"#).status == .ok)
        }
    }

    @Test func aBodyThatIsNotAJSONObjectIs8002() async throws {
        try await PublishHarness.with { h in
            for body in ["not json", #"{"message": "Hi""#, #"["Hi"]"#, #""Hi""#] {
                let answer = try await h.post("news", body)
                #expect(answer.status == .badRequest, "\(body)")
                #expect(answer.body.code == 8002, "\(body): \(answer.body)")
                #expect(answer.body.faultMessage?.hasPrefix("Could not parse request with message:") == true)
            }
        }
    }

    @Test func aPublisherIdOver128CharactersIs8000NamingIt() async throws {
        try await PublishHarness.with { h in
            let long = try await h.post("news", #"{"message": "Hi", "publisherId": "\#(String(repeating: "p", count: 129))"}"#)
            #expect(long.status == .badRequest)
            #expect(long.body.code == 8000)
            #expect(long.body.faultMessage?.contains("publisherId") == true, "\(long.body)")
            let limit = try await h.post("news", #"{"message": "Hi", "publisherId": "\#(String(repeating: "p", count: 128))"}"#)
            #expect(limit.status == .ok, "128 is within the limit")
        }
    }

    @Test func aReservedChannelNameIs5044() async throws {
        try await PublishHarness.with { h in
            for channel in ["email", "pushtemplates", "push", "PUSH", "message:abc"] {
                let answer = try await h.post(channel, #"{"message": "Hi"}"#)
                #expect(answer.status == .badRequest, "\(channel)")
                #expect(answer.body.code == 5044, "\(channel): \(answer.body)")
            }
        }
    }

    @Test func statusAndCancelOfAnUnknownMessageAre404With5040() async throws {
        try await PublishHarness.with { h in
            for method in [HTTPRequest.Method.get, .delete] {
                let answer = try await h.client.call(method, PublishHarness.publish + "/" + Self.unknownId)
                #expect(answer.status == .notFound, "\(method)")
                #expect(
                    answer.body
                        == .object(["code": .integer(5040), "message": .string("Message has already been canceled or does not exist")]))
                // Not shaped like a message id: a mistyped route, not an unknown message.
                let typo = try await h.client.call(method, PublishHarness.publish + "/nonsense")
                #expect(typo.status == .notFound)
                #expect(typo.body == .object(["code": .integer(404), "message": .string("No such route")]))
            }
        }
    }

    @Test func aPublishedMessageCannotBeCancelled() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<3)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            try await h.waitFor(id, status: "published")
            let answer = try await h.client.call(.delete, PublishHarness.publish + "/" + id)
            #expect(answer.status == .notFound)
            #expect(answer.body.code == 5040)
            #expect(try await h.status(id).messageStatus == "published", "a refused cancel changes nothing")
        }
    }

    @Test func cancellingTwiceIs5040TheSecondTime() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<3)
            let id = try await h.publish("news", #"{"message": "Hi", "publishAt": \#(h.clock.now.milliseconds + 60_000)}"#)
            let first = try await h.client.call(.delete, PublishHarness.publish + "/" + id)
            #expect(first.status == .ok)
            #expect(first.body == .object(["messageId": .string(id), "status": .string("cancelled")]))
            let second = try await h.client.call(.delete, PublishHarness.publish + "/" + id)
            #expect(second.status == .notFound)
            #expect(second.body.code == 5040)
            let status = try await h.status(id)
            #expect(status.messageStatus == "cancelled")
            // Its time comes and goes: a cancelled message sends nothing.
            h.clock.advance(milliseconds: 61_000)
            try await h.expectNoMoreRequests(than: 0)
        }
    }

    @Test func theStatusAnswerHasTheContractShape() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<4)
            let id = try await h.publish("news", #"{"message": "Hi", "publisherId": "svc-1"}"#)
            #expect(id.hasPrefix("message:"))
            let status = try await h.waitFor(id, status: "published")
            #expect(status["messageId"] == .string(id))
            #expect(status["errorMessage"] == .null)
            #expect(status.keys.isSuperset(of: ["messageId", "status", "errorMessage", "deliveries"]))
            #expect(
                status["deliveries"]?.keys
                    == ["targeted", "sent", "failed", "pending", "tokensRemoved", "tokensDeactivated", "byPlatform"])
            func platform(sent: Int64) -> JSONValue {
                .object(["sent": .integer(sent), "failed": .integer(0), "tokensRemoved": .integer(0), "tokensDeactivated": .integer(0)])
            }
            #expect(
                status["deliveries"]
                    == .object([
                        "targeted": .integer(4), "sent": .integer(4), "failed": .integer(0), "pending": .integer(0),
                        "tokensRemoved": .integer(0), "tokensDeactivated": .integer(0),
                        "byPlatform": .object(["ios": platform(sent: 4), "android": platform(sent: 0), "web": platform(sent: 0)]),
                    ]))
        }
    }

    @Test func aScheduledMessageAnswersScheduledWithNothingDelivered() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<4)
            let id = try await h.publish("news", #"{"message": "Hi", "publishAt": \#(h.clock.now.milliseconds + 60_000)}"#)
            let status = try await h.status(id)
            #expect(status.messageStatus == "scheduled")
            #expect(status["errorMessage"] == .null)
            #expect(status.delivery("targeted") == 0)
        }
    }
}
