import APNsMock
import Foundation
import HTTPTypes
import Herald
import HeraldCore
import HeraldDispatch
import Testing

/// A problem that is the same for every device (credentials APNs refuses, none configured) fails the
/// whole message with a reason, at once: no retry storm, no per-device noise.
@Suite struct CredentialFailureTests {
    @Test func aKeyAPNsDoesNotKnowFailsTheMessageWithoutARetryStorm() async throws {
        try await PublishHarness.with(keyID: "ROGUEKEY01") { h in
            let count = 600
            try await h.registerDevices(0..<count)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "failed")
            guard case .string(let reason)? = status["errorMessage"] else {
                Issue.record("a failed message names its reason: \(status)")
                return
            }
            #expect(reason.contains("InvalidProviderToken"), "\(reason)")
            #expect(status.delivery("sent") == 0)
            #expect(status.delivery("pending") == 0)
            #expect(h.mock.notifications().isEmpty)
            // At most what was in flight when the first refusal came (4 pages of 50), never N × attempts.
            let window = PublishHarness.fastSettings.pageSize * PublishHarness.fastSettings.maxOpenPages
            #expect(h.mock.stats().requests <= window, "\(h.mock.stats())")
            #expect(h.mock.stats().requests >= 1)
            let targeted = try #require(status.delivery("targeted"))
            #expect(targeted <= Int64(window))
            #expect(status.delivery("failed") == targeted)
            // Nothing keeps going after the failure.
            try await h.expectNoMoreRequests(than: h.mock.stats().requests, for: .milliseconds(300))
            #expect(try await h.device("dev-0")["isActive"] == .bool(true), "the devices are not blamed")
        }
    }

    @Test func anAppWithoutAPNsCredentialsFailsItsMessages() async throws {
        try await PublishHarness.with(apns: false) { h in
            try await h.registerDevices(0..<5)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "failed")
            guard case .string(let reason)? = status["errorMessage"] else {
                Issue.record("a failed message names its reason: \(status)")
                return
            }
            #expect(reason.contains("has no APNs, FCM or Web Push credentials configured"), "\(reason)")
            #expect(status.delivery("targeted") == 0)
            #expect(h.mock.stats().requests == 0)
            // Failed is final: it cannot be cancelled.
            let cancel = try await h.client.call(.delete, PublishHarness.publish + "/" + id)
            #expect(cancel.body.code == 5040)
        }
    }

    @Test func aPubSubMessageOfAnAppWithoutCredentialsIsStillPublished() async throws {
        try await PublishHarness.with(apns: false) { h in
            try await h.registerDevices(0..<5)
            let id = try await h.publish("news", #"{"message": "Hi", "publishPolicy": "PUBSUB"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status["errorMessage"] == .null)
        }
    }
}
