import APNsMock
import Foundation
import HTTPTypes
import HeraldCore
import HeraldDispatch
import Testing

/// Who a message reaches: platform filters, singlecast, expired registrations, deactivated devices,
/// and the PUBSUB policy that pushes nothing.
@Suite struct BroadcastFilterTests {
    static func tokens(_ range: Range<Int>) -> Set<String> { Set(range.map(PublishHarness.token)) }

    @Test func forOSXReachesOnlyOSXDevices() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<10, os: "IOS")
            try await h.registerDevices(10..<16, os: "OSX")
            try await h.registerDevices(20..<24, os: "ANDROID")
            let id = try await h.publish("news", #"{"message": "Hi", "pushBroadcast": "FOR_OSX"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("targeted") == 6)
            #expect(status.delivery("sent") == 6)
            #expect(Set(h.mock.notifications().map(\.token)) == Self.tokens(10..<16))
            #expect(h.mock.notifications().count == 6)
        }
    }

    /// A page takes the next `pageSize` candidates and keeps those that pass the device's conditions, so
    /// a run of Android devices in an iOS-only message makes whole pages with nobody in them: the fan-out
    /// goes on past them to the devices after, on both backends.
    @Test(arguments: PublishHarness.Database.available)
    func pagesWithNobodyToSendToAreSkippedNotTheEnd(_ database: PublishHarness.Database) async throws {
        var settings = PublishHarness.fastSettings
        settings.pageSize = 2
        try await PublishHarness.with(settings: settings, database: database) { h in
            // Registered one call after another, so the keys run IOS, then ANDROID, then IOS again.
            try await h.registerDevices(0..<5, os: "IOS")
            try await h.registerDevices(20..<40, os: "ANDROID")
            try await h.registerDevices(50..<53, os: "IOS")
            let id = try await h.publish("news", #"{"message": "Hi", "pushBroadcast": "FOR_IOS"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("targeted") == 8)
            #expect(status.delivery("sent") == 8)
            #expect(Set(h.mock.notifications().map(\.token)) == Self.tokens(0..<5).union(Self.tokens(50..<53)))
            #expect(h.mock.notifications().count == 8)
        }
    }

    /// An app with APNs settings alone sends to its Apple devices; its Android devices are skipped, and
    /// the status says so and why (they are in no count).
    @Test func androidDevicesOfAnAppWithoutFCMAreSkippedAndTheStatusSaysWhy() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<3, os: "IOS")
            try await h.registerDevices(20..<22, os: "ANDROID")
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("targeted") == 3)
            let reason = "not sent: the app has no FCM settings (apps[].fcm in the configuration)"
            let web = "not sent: the app has no Web Push settings (apps[].webPush in the configuration)"
            #expect(status["skipped"] == .object(["ANDROID": .string(reason), "WEB": .string(web)]))
            // Apple devices only: nothing of what it targets is skipped.
            let apple = try await h.publish("news", #"{"message": "Hi", "pushBroadcast": "FOR_IOS|FOR_OSX"}"#)
            #expect(try await h.waitFor(apple, status: "published")["skipped"] == .object([:]))
        }
    }

    @Test func forIOSAndOSXTogetherReachBoth() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<5, os: "IOS")
            try await h.registerDevices(10..<13, os: "OSX")
            try await h.registerDevices(20..<24, os: "ANDROID")
            let id = try await h.publish("news", #"{"message": "Hi", "pushBroadcast": "FOR_IOS|FOR_OSX"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 8)
            #expect(Set(h.mock.notifications().map(\.token)) == Self.tokens(0..<5).union(Self.tokens(10..<13)))
        }
    }

    @Test func windowsOnlyIsPublishedWithNobodyTargeted() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<5, os: "IOS")
            try await h.registerDevices(20..<24, os: "ANDROID")
            let id = try await h.publish("news", #"{"message": "Hi", "pushBroadcast": "FOR_WP"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("targeted") == 0)
            #expect(status["errorMessage"] == .null)
            try await h.expectNoMoreRequests(than: 0, for: .milliseconds(200))
        }
    }

    /// Android only, from an app with APNs settings alone: nothing it needs is configured, so the message
    /// fails saying which block is missing (as an Apple-only message of an app without `apns` does).
    @Test(arguments: [#""FOR_ANDROID""#, "2", #""FOR_ANDROID|FOR_WP""#])
    func androidOnlyWithoutFCMSettingsFailsNamingThem(_ broadcast: String) async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<5, os: "IOS")
            try await h.registerDevices(20..<24, os: "ANDROID")
            let id = try await h.publish("news", #"{"message": "Hi", "pushBroadcast": \#(broadcast)}"#)
            let status = try await h.waitFor(id, status: "failed")
            #expect(status["errorMessage"] == .string("app 'shop' has no FCM credentials configured (apps[].fcm in the configuration)"))
            #expect(status.delivery("sent") == 0)
            try await h.expectNoMoreRequests(than: 0, for: .milliseconds(200))
        }
    }

    @Test func singlecastReachesExactlyTheNamedDevicesWhateverTheirChannel() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<4, channels: ["news"])
            try await h.registerDevices(4..<8, channels: ["other"])
            let id = try await h.publish("news", #"{"message": "Hi", "pushSinglecast": ["dev-1", "dev-5", "unknown"]}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("targeted") == 2)
            #expect(status.delivery("sent") == 2)
            let received = h.mock.notifications()
            #expect(received.count == 2)
            #expect(Set(received.map(\.token)) == [PublishHarness.token(1), PublishHarness.token(5)])
        }
    }

    @Test func singlecastToADeviceInSeveralChannelsSendsOnce() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<3, channels: ["news", "other", "sports"])
            let id = try await h.publish("news", #"{"message": "Hi", "pushSinglecast": ["dev-2", "dev-2"]}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 1)
            #expect(h.mock.notifications().map(\.token) == [PublishHarness.token(2)])
        }
    }

    @Test func expiredRegistrationsGetNothing() async throws {
        try await PublishHarness.with { h in
            let start = h.clock.now.milliseconds
            try await h.registerDevices(0..<5, expiration: start + 10_000)
            try await h.registerDevices(5..<10)
            try await h.registerDevices(10..<13, expiration: start + 3_600_000)
            h.clock.advance(milliseconds: 20_000)
            #expect(try await h.registration("dev-0").status == .notFound, "the registration has expired")
            let broadcast = try await h.publish("news", #"{"message": "All"}"#)
            let status = try await h.waitFor(broadcast, status: "published")
            #expect(status.delivery("targeted") == 8)
            #expect(Set(h.mock.notifications().map(\.token)) == Self.tokens(5..<13))
            h.mock.reset()
            let single = try await h.publish("news", #"{"message": "One", "pushSinglecast": ["dev-1", "dev-6"]}"#)
            let singleStatus = try await h.waitFor(single, status: "published")
            #expect(singleStatus.delivery("targeted") == 1)
            #expect(h.mock.notifications().map(\.token) == [PublishHarness.token(6)])
        }
    }

    @Test func aDeactivatedDeviceGetsNothingMore() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<6)
            h.mock.script(token: PublishHarness.token(3), .badDeviceToken, times: 1)
            let first = try await h.publish("news", #"{"message": "First"}"#)
            let firstStatus = try await h.waitFor(first, status: "published")
            #expect(firstStatus.delivery("tokensDeactivated") == 1)
            #expect(try await h.device("dev-3")["isActive"] == .bool(false))
            h.mock.reset()
            // The script is used up: had Herald sent to dev-3 again, the mock would accept it.
            let broadcast = try await h.publish("news", #"{"message": "Second"}"#)
            let status = try await h.waitFor(broadcast, status: "published")
            #expect(status.delivery("targeted") == 5)
            let single = try await h.publish("news", #"{"message": "Third", "pushSinglecast": ["dev-3", "dev-4"]}"#)
            let singleStatus = try await h.waitFor(single, status: "published")
            #expect(singleStatus.delivery("targeted") == 1)
            let received = h.mock.notifications().map(\.token)
            #expect(!received.contains(PublishHarness.token(3)))
            #expect(received.count == 6)
        }
    }

    @Test func aPubSubOnlyMessageIsPublishedWithoutAPush() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<5)
            for policy in [#""publishPolicy": "PUBSUB""#, #""pushPolicy": "PUBSUB""#] {
                let id = try await h.publish("news", #"{"message": "Hi", \#(policy)}"#)
                let status = try await h.waitFor(id, status: "published")
                #expect(status.delivery("targeted") == 0, "\(policy)")
            }
            try await h.expectNoMoreRequests(than: 0, for: .milliseconds(200))
        }
    }
}
