import APNsMock
import Foundation
import HTTPTypes
import HeraldCore
import Testing

/// What APNs's answers about tokens do to the registry: 410 Unregistered removes a device unless it
/// registered again after APNs's timestamp; BadDeviceToken deactivates it. Counted in the status.
@Suite struct TokenHygieneTests {
    @Test func unregisteredBeforeTheDeviceRegisteredKeepsTheDevice() async throws {
        try await PublishHarness.with { h in
            let registeredAt = h.clock.now.milliseconds
            try await h.registerDevices(0..<4)
            h.clock.advance(milliseconds: 5_000)
            // APNs says the token died before this registration: the app has registered since, so it stays.
            h.mock.script(token: PublishHarness.token(2), .unregistered(timestamp: registeredAt - 1_000), times: 1)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("tokensRemoved") == 0)
            #expect(status.delivery("sent") == 3)
            #expect(status.delivery("failed") == 1)
            #expect(status.delivery("targeted") == 4)
            let kept = try await h.registration("dev-2")
            #expect(kept.status == .ok)
            #expect(kept.body[0]?["isActive"] == .bool(true))
        }
    }

    @Test func unregisteredAfterTheDeviceRegisteredRemovesIt() async throws {
        try await PublishHarness.with { h in
            let registeredAt = h.clock.now.milliseconds
            try await h.registerDevices(0..<4)
            h.clock.advance(milliseconds: 5_000)
            h.mock.script(token: PublishHarness.token(1), .unregistered(timestamp: registeredAt + 2_000), times: 1)
            h.mock.script(token: PublishHarness.token(3), .unregistered(timestamp: registeredAt + 2_000), times: 1)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("tokensRemoved") == 2)
            #expect(status.delivery("sent") == 2)
            #expect(status.delivery("failed") == 2)
            #expect(status.delivery("targeted") == 4)
            for gone in ["dev-1", "dev-3"] {
                let answer = try await h.registration(gone)
                #expect(answer.status == .notFound, "\(gone)")
                #expect(answer.body.code == 5000)
            }
            #expect(try await h.registration("dev-0").status == .ok)
            // The next message does not target them.
            let next = try await h.publish("news", #"{"message": "Again"}"#)
            let nextStatus = try await h.waitFor(next, status: "published")
            #expect(nextStatus.delivery("targeted") == 2)
            #expect(nextStatus.delivery("tokensRemoved") == 0)
        }
    }

    @Test func unregisteredWithATimestampEqualToTheRegistrationRemovesIt() async throws {
        // The boundary: last seen at the very millisecond APNs says the token died counts as not seen since.
        try await PublishHarness.with { h in
            let registeredAt = h.clock.now.milliseconds
            try await h.registerDevices(0..<2)
            h.mock.script(token: PublishHarness.token(0), .unregistered(timestamp: registeredAt), times: 1)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("tokensRemoved") == 1)
            #expect(try await h.registration("dev-0").status == .notFound)
        }
    }

    @Test func aDeviceThatRegisteredAgainAfterTheTokenDiedIsKept() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<3)
            let diedAt = h.clock.now.milliseconds + 1_000
            h.clock.advance(milliseconds: 10_000)
            // dev-1 registers again (same token) after APNs's timestamp: its last-seen time moves on.
            try await h.registerDevices(1..<2)
            h.mock.script(token: PublishHarness.token(0), .unregistered(timestamp: diedAt), times: 1)
            h.mock.script(token: PublishHarness.token(1), .unregistered(timestamp: diedAt), times: 1)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("tokensRemoved") == 1)
            #expect(try await h.registration("dev-0").status == .notFound)
            #expect(try await h.registration("dev-1").status == .ok)
        }
    }

    @Test func badDeviceTokenDeactivatesTheDevice() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<5)
            h.mock.script(token: PublishHarness.token(4), .badDeviceToken, times: 1)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("tokensDeactivated") == 1)
            #expect(status.delivery("tokensRemoved") == 0)
            #expect(status.delivery("sent") == 4)
            #expect(status.delivery("failed") == 1)
            let device = try await h.device("dev-4")
            #expect(device["isActive"] == .bool(false), "kept, but inactive: \(device)")
            #expect(try await h.device("dev-3")["isActive"] == .bool(true))
            let next = try await h.publish("news", #"{"message": "Again"}"#)
            let nextStatus = try await h.waitFor(next, status: "published")
            #expect(nextStatus.delivery("targeted") == 4)
            #expect(nextStatus.delivery("tokensDeactivated") == 0)
        }
    }

    @Test func aNewTokenReactivatesADeactivatedDevice() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<2)
            h.mock.script(token: PublishHarness.token(1), .badDeviceToken, times: 1)
            let first = try await h.publish("news", #"{"message": "Hi"}"#)
            try await h.waitFor(first, status: "published")
            #expect(try await h.device("dev-1")["isActive"] == .bool(false))
            let newToken = PublishHarness.token(1_001)
            let answer = try await h.client.call(
                .post, PublishHarness.register,
                json: #"{"deviceToken": "\#(newToken)", "deviceId": "dev-1", "channels": ["news"]}"#)
            #expect(answer.status == .ok)
            #expect(try await h.device("dev-1")["isActive"] == .bool(true))
            h.mock.reset()
            let second = try await h.publish("news", #"{"message": "Again"}"#)
            let status = try await h.waitFor(second, status: "published")
            #expect(status.delivery("sent") == 2)
            #expect(Set(h.mock.notifications().map(\.token)) == [PublishHarness.token(0), newToken])
        }
    }

    @Test func mixedOutcomesAddUp() async throws {
        try await PublishHarness.with { h in
            let registeredAt = h.clock.now.milliseconds
            try await h.registerDevices(0..<120)
            h.clock.advance(milliseconds: 5_000)
            for index in stride(from: 0, to: 120, by: 10) {
                h.mock.script(token: PublishHarness.token(index), .unregistered(timestamp: registeredAt + 1_000), times: 1)
                h.mock.script(token: PublishHarness.token(index + 1), .badDeviceToken, times: 1)
                h.mock.script(token: PublishHarness.token(index + 2), .reject(status: 400, reason: "BadCollapseId"), times: 1)
            }
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("targeted") == 120)
            #expect(status.delivery("sent") == 84)
            #expect(status.delivery("failed") == 36)
            #expect(status.delivery("pending") == 0)
            #expect(status.delivery("tokensRemoved") == 12)
            #expect(status.delivery("tokensDeactivated") == 12)
            #expect(status.delivery("targeted") == status.delivery("sent").flatMap { sent in status.delivery("failed").map { sent + $0 } })
            #expect(h.mock.notifications().count == 84)
        }
    }
}
