import APNsMock
import HTTPTypes
import HeraldCore
import HeraldStore
import HeraldWebhooks
import Testing

/// Events out: a device's token removed or deactivated, and a message finished, reach the app's webhook
/// from the outbox, signed, again after a 500, and never again once acknowledged.
@Suite struct WebhookTests {
    static let secret = "test-only-webhook-secret-0123456789"

    /// Waits until the receiver holds `count` posts (10 s at most).
    static func waitForPosts(_ receiver: WebhookReceiver, _ count: Int) async throws -> [WebhookReceiver.Post] {
        let deadline = ContinuousClock.now + .seconds(10)
        while receiver.posts.count < count {
            if ContinuousClock.now > deadline {
                throw HarnessError("the receiver got \(receiver.posts.count) posts, not \(count): \(receiver.posts.map(\.json))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return receiver.posts
    }

    @Test(arguments: PublishHarness.Database.available)
    func eventsReachTheWebhookOnceAcknowledged(_ database: PublishHarness.Database) async throws {
        let receiver = try await WebhookReceiver.start()
        defer { Task { await receiver.stop() } }
        receiver.fail(type: "message.finished", times: 1)
        try await PublishHarness.with(database: database, webhook: WebhookTarget(url: receiver.url, secret: Self.secret)) { h in
            let registeredAt = h.clock.now.milliseconds
            try await h.registerDevices(0..<6)
            h.clock.advance(milliseconds: 5_000)
            h.mock.script(token: PublishHarness.token(2), .unregistered(timestamp: registeredAt + 1_000), times: 1)
            h.mock.script(token: PublishHarness.token(4), .reject(status: 400, reason: "BadDeviceToken"), times: 1)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            _ = try await h.waitFor(id, status: "published")

            // Three events; message.finished was refused once (500) and is not acknowledged yet.
            var posts = try await Self.waitForPosts(receiver, 3)
            for post in posts {
                #expect(WebhookSignature.verify(header: post.signature ?? "", secret: Self.secret, body: post.body), "signed")
                #expect(!WebhookSignature.verify(header: post.signature ?? "", secret: Self.secret + "x", body: post.body))
                #expect(post.json["appId"] == .string("shop"))
                #expect(post.json["type"] == post.eventType.map(JSONValue.string) && post.json["id"] == post.eventId.map(JSONValue.string))
            }
            let byType = Dictionary(grouping: posts) { $0.eventType ?? "" }
            let removed = try #require(byType["device.tokenRemoved"]?.first?.json["data"])
            #expect(removed["deviceId"] == .string("dev-2") && removed["deviceToken"] == .string(PublishHarness.token(2)))
            #expect(removed["reason"] == .string("Unregistered") && removed["messageId"] == .string(id))
            let deactivated = try #require(byType["device.deactivated"]?.first?.json["data"])
            #expect(deactivated["deviceId"] == .string("dev-4") && deactivated["by"] == .string("apns"))
            #expect(deactivated["reason"] == .string("BadDeviceToken"))
            let finished = try #require(byType["message.finished"]?.first)
            #expect(finished.json["data"]?["messageId"] == .string(id) && finished.json["data"]?["status"] == .string("published"))
            #expect(finished.json["data"]?["deliveries"]?["sent"] == .integer(4))
            #expect(finished.json["data"]?["deliveries"]?["tokensRemoved"] == .integer(1))
            #expect(finished.json["data"]?["deliveries"]?["tokensDeactivated"] == .integer(1))
            try await Self.waitForPending(h, 1)  // the refused one waits

            // Its retry comes after the backoff (1 s of Herald's clock): the same event, body and id.
            try await Task.sleep(for: .milliseconds(150))
            #expect(receiver.posts.count == 3, "not before its time")
            h.clock.advance(milliseconds: 1_000)
            posts = try await Self.waitForPosts(receiver, 4)
            #expect(posts[3].eventId == finished.eventId && posts[3].body == finished.body)
            #expect(WebhookSignature.verify(header: posts[3].signature ?? "", secret: Self.secret, body: posts[3].body))
            try await Self.waitForPending(h, 0)

            // Acknowledged: nothing more, however long one waits.
            h.clock.advance(milliseconds: 3_600_000)
            try await Task.sleep(for: .milliseconds(200))
            #expect(receiver.posts.count == 4)

            // An admin's deactivation is an event too, with the admin's reason.
            let answer = try await h.client.call(.post, "/shop/k-admin/devices/dev-0/deactivate", json: #"{"reason": "chargeback"}"#)
            #expect(answer.status == .ok)
            posts = try await Self.waitForPosts(receiver, 5)
            #expect(posts[4].eventType == "device.deactivated")
            #expect(posts[4].json["data"]?["by"] == .string("admin") && posts[4].json["data"]?["reason"] == .string("chargeback"))
            // Switching it off again for the same reason changes nothing, so tells nothing: the next event is the cancel's.
            let again = try await h.client.call(.post, "/shop/k-admin/devices/dev-0/deactivate", json: #"{"reason": "chargeback"}"#)
            #expect(again.status == .ok)

            // Cancelling a scheduled message finishes it.
            let later = try await h.publish("news", #"{"message": "Later", "publishAt": \#(h.clock.now.milliseconds + 600_000)}"#)
            #expect(try await h.client.call(.delete, PublishHarness.publish + "/" + later).status == .ok)
            posts = try await Self.waitForPosts(receiver, 6)
            #expect(posts[5].json["data"]?["messageId"] == .string(later) && posts[5].json["data"]?["status"] == .string("cancelled"))
            try await Self.waitForPending(h, 0)
        }
        await receiver.stop()
    }

    @Test func anEventForAReceiverThatIsDownWaitsInTheOutbox() async throws {
        // Nothing listens on this port: every post fails to connect, and the event waits.
        let receiver = try await WebhookReceiver.start()
        await receiver.stop()
        try await PublishHarness.with(webhook: WebhookTarget(url: receiver.url, secret: Self.secret, timeoutMilliseconds: 2_000)) { h in
            try await h.registerDevices(0..<2)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            _ = try await h.waitFor(id, status: "published")
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await h.outbox.pendingEvents(app: "shop") == 1, "kept, not dropped")
            // An event about a device holds its token: erasing the device erases its undelivered events.
            #expect(try await h.client.call(.post, "/shop/k-admin/devices/dev-0/deactivate").status == .ok)
            #expect(try await h.outbox.pendingEvents(app: "shop") == 2)
            #expect(try await h.client.call(.delete, "/shop/k-admin/devices/dev-0").status == .ok)
            #expect(try await h.outbox.pendingEvents(app: "shop") == 1, "the message's event stays")
        }
    }

    @Test func anAppWithoutAWebhookWritesNoEvents() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<2)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            _ = try await h.waitFor(id, status: "published")
            #expect(try await h.client.call(.post, "/shop/k-admin/devices/dev-0/deactivate").status == .ok)
            #expect(try await h.outbox.pendingEvents(app: "shop") == 0)
        }
    }

    /// Waits until the outbox holds `count` events of the app (a post is recorded by the receiver a moment
    /// before Herald writes what its answer meant).
    static func waitForPending(_ h: PublishHarness.Harness, _ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try await h.outbox.pendingEvents(app: "shop") != count {
            if ContinuousClock.now > deadline { throw HarnessError("the outbox does not hold \(count) events") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
