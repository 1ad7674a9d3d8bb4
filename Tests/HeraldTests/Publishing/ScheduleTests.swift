import APNsMock
import Foundation
import HTTPTypes
import HeraldCore
import Testing

/// publishAt and repeatEvery against the injected clock: nothing goes out before its time, each
/// occurrence goes out once when the clock reaches it, and a cancel stops what is left.
@Suite struct ScheduleTests {
    static let devices = 12

    @Test func aScheduledMessageWaitsForItsTime() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<Self.devices)
            let publishAt = h.clock.now.milliseconds + 60_000
            let id = try await h.publish("news", #"{"message": "Later", "publishAt": \#(publishAt)}"#)
            let waiting = try await h.status(id)
            #expect(waiting.messageStatus == "scheduled")
            #expect(waiting["nextOccurrenceAt"] == .integer(publishAt))
            // The dispatcher polls every 20 ms: several polls pass, and none sends.
            try await h.expectNoMoreRequests(than: 0)
            h.clock.advance(milliseconds: 59_000)
            try await h.expectNoMoreRequests(than: 0, for: .milliseconds(200))
            #expect(try await h.status(id).messageStatus == "scheduled")
            h.clock.advance(milliseconds: 2_000)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == Int64(Self.devices))
            #expect(status.occurrences == 1)
            #expect(h.mock.notifications().count == Self.devices)
        }
    }

    @Test func aRepeatingMessageFiresEachOccurrenceOnceUntilItExpires() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<Self.devices)
            let start = h.clock.now.milliseconds
            let id = try await h.publish(
                "news",
                """
                {"message": "Tick", "publishAt": \(start + 60_000), "repeatEvery": 60, "repeatExpiresAt": \(start + 180_000)}
                """)
            try await h.expectNoMoreRequests(than: 0, for: .milliseconds(200))
            for occurrence in 1...3 {
                h.clock.advance(milliseconds: 60_000)
                try await h.waitForMock(Self.devices * occurrence)
                // The occurrence is finished (and the next one scheduled) before time moves again.
                let status = try await h.waitFor(id, "occurrence \(occurrence)") { $0.occurrences == Int64(occurrence) }
                #expect(status.messageStatus == (occurrence < 3 ? "scheduled" : "published"), "after occurrence \(occurrence)")
                if occurrence < 3 {
                    #expect(status["nextOccurrenceAt"] == .integer(start + 60_000 * Int64(occurrence + 1)))
                }
                #expect(h.mock.stats().requests == Self.devices * occurrence)
            }
            let status = try await h.waitFor(id, status: "published")
            #expect(status.occurrences == 3)
            #expect(status.delivery("sent") == Int64(3 * Self.devices))
            #expect(status.delivery("targeted") == Int64(3 * Self.devices))
            // The schedule is over: later time sends nothing.
            h.clock.advance(milliseconds: 120_000)
            try await h.expectNoMoreRequests(than: 3 * Self.devices, for: .milliseconds(300))
            let received = h.mock.notifications()
            #expect(received.count == 3 * Self.devices)
            for index in 0..<Self.devices {
                let token = PublishHarness.token(index)
                #expect(received.filter { $0.token == token }.count == 3, "device \(index)")
            }
        }
    }

    @Test func aRepeatingMessageStartsAtOnceWithoutPublishAt() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<Self.devices)
            let start = h.clock.now.milliseconds
            let id = try await h.publish("news", #"{"message": "Tick", "repeatEvery": 60, "repeatExpiresAt": \#(start + 60_000)}"#)
            try await h.waitForMock(Self.devices)
            let first = try await h.waitFor(id, "one occurrence") { $0.occurrences == 1 }
            #expect(first.messageStatus == "scheduled")
            h.clock.advance(milliseconds: 60_000)
            let done = try await h.waitFor(id, status: "published")
            #expect(done.occurrences == 2)
            #expect(h.mock.notifications().count == 2 * Self.devices)
        }
    }

    @Test func cancellingARepeatingMessageStopsItsLaterOccurrences() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<Self.devices)
            let id = try await h.publish(
                "news",
                """
                {"message": "Tick", "publishAt": \(h.clock.now.milliseconds + 60_000), "repeatEvery": 60}
                """)
            h.clock.advance(milliseconds: 61_000)
            try await h.waitForMock(Self.devices)
            try await h.waitFor(id, "its first occurrence") { $0.occurrences == 1 }
            let cancel = try await h.client.call(.delete, PublishHarness.publish + "/" + id)
            #expect(cancel.status == .ok)
            #expect(cancel.body == .object(["messageId": .string(id), "status": .string("cancelled")]))
            let status = try await h.status(id)
            #expect(status.messageStatus == "cancelled")
            #expect(status["nextOccurrenceAt"] == .null)
            #expect(status.delivery("sent") == Int64(Self.devices), "what was sent stays counted")
            for _ in 0..<3 {
                h.clock.advance(milliseconds: 60_000)
                try await h.expectNoMoreRequests(than: Self.devices, for: .milliseconds(150))
            }
            #expect(try await h.status(id).messageStatus == "cancelled")
            #expect(h.mock.notifications().count == Self.devices)
        }
    }

    @Test func occurrencesMissedWhileTimeJumpedFireOnceNotInABurst() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<Self.devices)
            let start = h.clock.now.milliseconds
            let id = try await h.publish(
                "news",
                """
                {"message": "Tick", "publishAt": \(start + 60_000), "repeatEvery": 60, "repeatExpiresAt": \(start + 3_600_000)}
                """)
            // Five occurrences' worth of time at once (as after a long pause): one goes out, late.
            h.clock.advance(milliseconds: 5 * 60_000 + 1_000)
            try await h.waitForMock(Self.devices)
            let status = try await h.waitFor(id, "one occurrence") { $0.occurrences == 1 }
            #expect(status.messageStatus == "scheduled")
            #expect(status["nextOccurrenceAt"] == .integer(start + 6 * 60_000))
            try await h.expectNoMoreRequests(than: Self.devices, for: .milliseconds(300))
        }
    }

    @Test func cancellingWhileAnOccurrenceIsSendingStopsIt() async throws {
        try await PublishHarness.with { h in
            let count = 1_000
            try await h.registerDevices(0..<count)
            // Slow answers keep the fan-out busy for a few rounds of the in-flight window.
            h.mock.setFaults(APNsMockFaults(latencyMilliseconds: 300))
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            try await h.waitFor(id, "sending") { ($0.delivery("pending") ?? 0) > 0 }
            let cancel = try await h.client.call(.delete, PublishHarness.publish + "/" + id)
            #expect(cancel.status == .ok)
            #expect(cancel.body["status"] == .string("cancelled"))
            // The answers in flight are counted, then nothing is left pending.
            let status = try await h.waitFor(id, "drained") { $0.delivery("pending") == 0 && $0.occurrences == 1 }
            #expect(status.messageStatus == "cancelled")
            let seen = h.mock.stats().requests
            try await h.expectNoMoreRequests(than: seen, for: .milliseconds(400))
            #expect(seen < count, "the cancel stopped the fan-out")
            let sent = try #require(status.delivery("sent"))
            let failed = try #require(status.delivery("failed"))
            #expect(sent == Int64(h.mock.notifications().count))
            #expect(status.delivery("targeted") == sent + failed)
            #expect(try await h.client.call(.delete, PublishHarness.publish + "/" + id).body.code == 5040)
        }
    }

    @Test func anHourlyMessageKeepsGettingThroughAsItsProviderTokenAges() async throws {
        // Herald, its provider tokens and the mock share the clock: an hour later the first token is
        // past APNs's 60 minutes, and a new one must be signed (not more often than every 20 minutes).
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<Self.devices)
            let start = h.clock.now.milliseconds
            let id = try await h.publish(
                "news",
                """
                {"message": "Hourly", "publishAt": \(start + 3_600_000), "repeatEvery": 3600, "repeatExpiresAt": \(start + 4 * 3_600_000)}
                """)
            for occurrence in 1...4 {
                h.clock.advance(milliseconds: 3_600_000)
                try await h.waitFor(id, "occurrence \(occurrence)") { $0.occurrences == Int64(occurrence) }
            }
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == Int64(4 * Self.devices))
            #expect(status.delivery("failed") == 0)
            #expect(h.mock.stats().requests == 4 * Self.devices, "no token was refused: \(h.mock.stats().byReason)")
        }
    }
}
