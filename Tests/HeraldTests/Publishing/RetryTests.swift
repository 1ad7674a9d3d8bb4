import APNsMock
import Foundation
import Herald
import HeraldAPNs
import HeraldCore
import HeraldDispatch
import Testing

/// Transient APNs failures are retried until delivered, each device exactly once; a failure that
/// does not go away fails that device alone after the retry limit.
@Suite struct RetryTests {
    static func tokens(_ range: Range<Int>) -> Set<String> { Set(range.map(PublishHarness.token)) }

    @Test func transientErrorsAreRetriedAndEveryDeviceGetsExactlyOne() async throws {
        try await PublishHarness.with { h in
            let count = 150
            try await h.registerDevices(0..<count)
            for index in stride(from: 0, to: count, by: 7) {
                h.mock.script(token: PublishHarness.token(index), .internalServerError, times: 2)
                h.mock.script(token: PublishHarness.token(index + 1), .serviceUnavailable, times: 2)
                h.mock.script(token: PublishHarness.token(index + 2), .tooManyRequests, times: 2)
            }
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("targeted") == Int64(count))
            #expect(status.delivery("sent") == Int64(count))
            #expect(status.delivery("failed") == 0)
            let received = h.mock.notifications()
            #expect(received.count == count)
            #expect(Set(received.map(\.token)) == Self.tokens(0..<count))
            let stats = h.mock.stats()
            // 22 tokens of each kind, scripted twice each, before the third attempt is accepted.
            #expect(stats.byReason["InternalServerError"] == 44)
            #expect(stats.byReason["ServiceUnavailable"] == 44)
            #expect(stats.byReason["TooManyRequests"] == 44)
            #expect(stats.requests == count + 132)
        }
    }

    @Test func aGoAwayMidFanOutLosesAndDuplicatesNothing() async throws {
        try await PublishHarness.with { h in
            let count = 200
            try await h.registerDevices(0..<count)
            h.mock.setFaults(APNsMockFaults(goAwayAfterStreams: 30))
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == Int64(count))
            #expect(status.delivery("failed") == 0)
            let received = h.mock.notifications()
            #expect(received.count == count)
            #expect(Set(received.map(\.token)) == Self.tokens(0..<count))
            #expect(h.mock.stats().goAwaysSent >= count / 30 - 1, "the fault fired: \(h.mock.stats())")
        }
    }

    @Test func aTokenThatAlwaysFailsFailsAloneAfterTheRetryLimit() async throws {
        try await PublishHarness.with { h in
            let count = 60
            try await h.registerDevices(0..<count)
            h.mock.script(token: PublishHarness.token(17), .serviceUnavailable, times: nil)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status["errorMessage"] == .null)
            #expect(status.delivery("targeted") == Int64(count))
            #expect(status.delivery("sent") == Int64(count - 1))
            #expect(status.delivery("failed") == 1)
            #expect(status.delivery("tokensRemoved") == 0)
            #expect(status.delivery("tokensDeactivated") == 0)
            // maxAttempts in the harness's retry policy, and not one more.
            #expect(h.mock.stats().byReason["ServiceUnavailable"] == PublishHarness.fastRetries.apns.maxAttempts)
            #expect(Set(h.mock.notifications().map(\.token)) == Self.tokens(0..<count).subtracting([PublishHarness.token(17)]))
            #expect(try await h.device("dev-17")["isActive"] == .bool(true), "a server failure says nothing about the token")
        }
    }
}
