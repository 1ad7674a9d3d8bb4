import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdTesting
import Testing

/// Finished messages are deleted by the sweeper after messages.retentionDays (default 30); a status
/// query of a deleted one answers 404, 5040. Scheduled messages stay, however old (issue 11).
@Suite struct MessageRetentionTests {
    @Test(arguments: PublishHarness.Database.available)
    func finishedMessagesArePrunedAfterTheirRetention(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(0..<3)
            let published = try await h.publish("news", #"{"message": "Hi"}"#)
            _ = try await h.waitFor(published, status: "published")
            let day: Int64 = 86_400_000
            let later = h.clock.now.milliseconds + 60 * day
            let scheduled = try await h.publish("news", #"{"message": "Later", "publishAt": \#(later)}"#)
            let cancelled = try await h.publish("news", #"{"message": "Never", "publishAt": \#(later)}"#)
            #expect(try await h.client.call(.delete, PublishHarness.publish + "/" + cancelled).status == .ok)

            // Within the retention: nothing goes.
            h.clock.advance(milliseconds: 29 * day)
            let early = try await h.client.call(.post, "/shop/k-admin/admin/sweep")
            #expect(early.body["messagesPruned"] == .integer(0))
            #expect(try await h.status(published)["status"] == .string("published"))

            h.clock.advance(milliseconds: 2 * day)
            let swept = try await h.client.call(.post, "/shop/k-admin/admin/sweep")
            #expect(swept.body["messagesPruned"] == .integer(2), "\(swept.body)")
            for gone in [published, cancelled] {
                let answer = try await h.client.call(.get, PublishHarness.publish + "/" + gone)
                #expect(answer.status == .notFound && answer.body.code == 5040)
            }
            #expect(try await h.status(scheduled)["status"] == .string("scheduled"), "not finished: kept")
        }
    }
}
