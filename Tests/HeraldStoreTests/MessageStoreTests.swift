import HeraldCore
import HeraldStore
import Testing

/// Messages, leases, checkpoints and recipients, run against every backend.
@Suite struct MessageStoreTests {
    let t0 = Fixture.t0

    func message(_ id: String = "message:1", due: Timestamp? = nil, every: Int64? = nil, singlecast: [String]? = nil) throws
        -> StoredMessage
    {
        StoredMessage(
            id: id, app: "shop", channel: try Fixture.channel("news"), publisherId: "svc", policy: .push,
            broadcast: [.ios, .osx], singlecast: singlecast,
            contents: MessageContents(
                apns: APNsContent(
                    payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), pushType: "alert", priority: 10,
                    expiration: 42, collapseId: "c")),
            schedule: PublishSchedule(publishAt: due, repeatEverySeconds: every), dueAt: due ?? t0, createdAt: t0)
    }

    @Test(arguments: StoreBackendKind.allCases)
    func aMessageReadsBackAsStored(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            let stored = try message(singlecast: ["d1", "d2"])
            try await messages.insert(stored, now: t0)
            #expect(try await messages.message(app: "shop", id: "message:1") == stored)
            #expect(try await messages.message(app: "other", id: "message:1") == nil, "apps are isolated")
        }
    }

    /// Finished messages older than the cutoff go in batches until none is left, of one app or of all;
    /// newer ones and unfinished ones stay.
    @Test(arguments: StoreBackendKind.allCases)
    func pruningFinishedMessagesWorksThroughEveryBatchAndKeepsToItsApp(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            func insert(_ id: String, app: String, status: MessageStatus, at: Timestamp) async throws {
                var stored = try message(id)
                stored.app = app
                stored.status = status
                stored.dueAt = status == .scheduled ? at : nil
                try await messages.insert(stored, now: at)
            }
            let old = t0
            let cutoff = t0.adding(milliseconds: 1000)
            for index in 0..<7 { try await insert("message:shop-\(index)", app: "shop", status: .published, at: old) }
            try await insert("message:shop-failed", app: "shop", status: .failed, at: old)
            try await insert("message:shop-new", app: "shop", status: .published, at: cutoff.adding(milliseconds: 1))
            try await insert("message:shop-waiting", app: "shop", status: .scheduled, at: old)
            for index in 0..<2 { try await insert("message:blog-\(index)", app: "blog", status: .cancelled, at: old) }

            #expect(try await messages.pruneFinished(before: cutoff, batchSize: 3, app: "shop") == 8, "three batches and a short one")
            #expect(try await messages.message(app: "shop", id: "message:shop-0") == nil)
            #expect(try await messages.message(app: "shop", id: "message:shop-new") != nil, "finished after the cutoff: kept")
            #expect(try await messages.message(app: "shop", id: "message:shop-waiting") != nil, "not finished: kept")
            #expect(try await messages.message(app: "blog", id: "message:blog-0") != nil, "another app's: kept")
            #expect(try await messages.pruneFinished(before: cutoff, batchSize: 3, app: nil) == 2)
            #expect(try await messages.message(app: "blog", id: "message:blog-1") == nil)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func onlyDueMessagesAreClaimedAndALeaseKeepsOthersOut(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await messages.insert(try message("message:now"), now: t0)
            try await messages.insert(try message("message:later", due: t0.adding(milliseconds: 60_000)), now: t0)
            #expect(try await messages.hasDue(now: t0))
            let claimed = try await messages.claimSlices(owner: "a", now: t0, leaseUntil: t0.adding(milliseconds: 1000), limit: 10)
            #expect(claimed.map(\.message.id) == ["message:now"])
            #expect(claimed.first?.message.status == .running)
            #expect(claimed.first?.cursor == 0 && claimed.first?.upTo == nil, "a message on SQLite's slicing is one slice")
            #expect(try await messages.hasDue(now: t0) == false)
            #expect(try await messages.claimSlices(owner: "b", now: t0, leaseUntil: t0.adding(milliseconds: 1000), limit: 10).isEmpty)
            // Owner a dies: after its lease, b takes the message over, and a's writes no longer land.
            let later = t0.adding(milliseconds: 1001)
            let takenOver = try await messages.claimSlices(owner: "b", now: later, leaseUntil: later.adding(milliseconds: 1000), limit: 10)
            #expect(takenOver.map(\.message.id) == ["message:now"])
            let stale = FanOutCheckpoint(messageId: "message:now", cursor: 99, sent: 5, pending: 0)
            #expect(try await messages.checkpoint(stale, owner: "a", now: later, leaseUntil: later) == nil)
            #expect(try await messages.message(app: "shop", id: "message:now")?.deliveries.sent == 0)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func checkpointsAddUpAndFinishingSchedulesTheNextOccurrence(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await messages.insert(try message(every: 60), now: t0)
            _ = try await messages.claimSlices(owner: "a", now: t0, leaseUntil: t0.adding(milliseconds: 1000), limit: 1)
            let lease = t0.adding(milliseconds: 5000)
            #expect(
                try await messages.checkpoint(
                    FanOutCheckpoint(messageId: "message:1", cursor: 10, sent: 4, failed: 1, pending: 7),
                    owner: "a", now: t0, leaseUntil: lease) == .running)
            #expect(
                try await messages.checkpoint(
                    FanOutCheckpoint(messageId: "message:1", cursor: 20, sent: 6, pending: 0),
                    owner: "a", now: t0, leaseUntil: lease) == .running)
            var stored = try #require(try await messages.message(app: "shop", id: "message:1"))
            #expect(stored.deliveries == DeliveryCounts(sent: 10, failed: 1, pending: 0))
            try await messages.release(owner: "a", now: t0)
            #expect(
                try await messages.claimSlices(owner: "b", now: t0, leaseUntil: lease, limit: 1).first?.cursor == 20,
                "the slice resumes from its checkpoint")
            let next = t0.adding(milliseconds: 60_000)
            try await messages.finishSlice0(id: "message:1", owner: "b", next: next, failure: nil, now: t0)
            stored = try #require(try await messages.message(app: "shop", id: "message:1"))
            #expect(stored.status == .scheduled && stored.dueAt == next && stored.occurrences == 1)
            #expect(stored.deliveries.sent == 10, "counts add up over occurrences")
            #expect(try await messages.hasDue(now: t0) == false)
            #expect(try await messages.hasDue(now: next))
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func finishingAsFailedOrPublishedAndCancelWinning(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            for id in ["message:f", "message:p", "message:c"] { try await messages.insert(try message(id), now: t0) }
            _ = try await messages.claimSlices(owner: "a", now: t0, leaseUntil: t0.adding(milliseconds: 1000), limit: 10)
            try await messages.finishSlice0(id: "message:f", owner: "a", next: nil, failure: "credentials refused", now: t0)
            try await messages.finishSlice0(id: "message:p", owner: "a", next: nil, failure: nil, now: t0)
            #expect(try await messages.cancel(app: "shop", id: "message:c", now: t0), "a running message can be cancelled")
            #expect(
                try await messages.checkpoint(
                    FanOutCheckpoint(messageId: "message:c", cursor: nil, pending: 0),
                    owner: "a", now: t0, leaseUntil: t0) == .cancelled)
            try await messages.finishSlice0(id: "message:c", owner: "a", next: t0.adding(milliseconds: 60_000), failure: nil, now: t0)
            let failed = try #require(try await messages.message(app: "shop", id: "message:f"))
            #expect(failed.status == .failed && failed.errorMessage == "credentials refused" && failed.dueAt == nil)
            #expect(try await messages.message(app: "shop", id: "message:p")?.status == .published)
            let cancelled = try #require(try await messages.message(app: "shop", id: "message:c"))
            #expect(cancelled.status == .cancelled && cancelled.dueAt == nil)
            for id in ["message:f", "message:p", "message:c", "message:unknown"] {
                #expect(try await messages.cancel(app: "shop", id: id, now: t0) == false, "\(id) cannot be cancelled")
            }
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func releasedLeasesAreClaimedAtOnce(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await messages.insert(try message(), now: t0)
            _ = try await messages.claimSlices(owner: "a", now: t0, leaseUntil: t0.adding(milliseconds: 60_000), limit: 1)
            _ = try await messages.checkpoint(
                FanOutCheckpoint(messageId: "message:1", cursor: 7, sent: 3, pending: 9),
                owner: "a", now: t0, leaseUntil: t0.adding(milliseconds: 60_000))
            try await messages.release(owner: "a", now: t0)
            let resumed = try await messages.claimSlices(owner: "b", now: t0, leaseUntil: t0.adding(milliseconds: 1000), limit: 1)
            #expect(resumed.first?.cursor == 7, "the fan-out resumes from its checkpoint")
            #expect(
                try await messages.message(app: "shop", id: "message:1")?.deliveries == DeliveryCounts(sent: 3, pending: 0),
                "the dead owner's pending count is dropped")
            try await messages.releaseAll(now: t0)
            #expect(try await messages.claimSlices(owner: "c", now: t0, leaseUntil: t0, limit: 1).count == 1)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func removalHonoursAPNsTimestampAndTheCurrentToken(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            for id in ["old", "renewed", "newtoken", "bad"] {
                _ = try await store.register(app: "shop", try Fixture.request(id, channels: ["news"]), now: t0)
            }
            // "renewed" registers again after APNs's timestamp; "newtoken" has a different token by now.
            _ = try await store.register(
                app: "shop", try Fixture.request("renewed", channels: ["news"]), now: t0.adding(milliseconds: 10_000))
            _ = try await store.register(app: "shop", try Fixture.request("newtoken", token: "ccdd", channels: ["news"]), now: t0)
            let members = try await store.recipients(
                app: "shop", filter: RecipientFilter(channel: try Fixture.channel("news"), devices: nil, systems: [.ios]),
                after: 0, limit: 10, now: t0)
            let key = Dictionary(uniqueKeysWithValues: members.items.map { ($0.deviceId, $0.key) })
            try await messages.insert(try message(), now: t0)
            _ = try await messages.claimSlices(owner: "a", now: t0, leaseUntil: t0.adding(milliseconds: 1000), limit: 1)
            let since = t0.adding(milliseconds: 5_000)
            let checkpoint = FanOutCheckpoint(
                messageId: "message:1", cursor: nil, failed: 4,
                byProvider: [.fcm: ProviderCounts(failed: 2), .apns: ProviderCounts(failed: 2)], pending: 0,
                remove: ["old", "renewed"].map {
                    TokenRemoval(deviceKey: key[$0]!, deviceToken: "aabbccdd", invalidSince: since, provider: .fcm)
                }
                    + [TokenRemoval(deviceKey: key["newtoken"]!, deviceToken: "aabbccdd", invalidSince: since, provider: .apns)],
                deactivate: [TokenDeactivation(deviceKey: key["bad"]!, deviceToken: "aabbccdd", provider: .apns)])
            _ = try await messages.checkpoint(checkpoint, owner: "a", now: t0, leaseUntil: t0.adding(milliseconds: 1000))
            #expect(try await store.device(app: "shop", deviceId: "old", now: t0) == nil)
            #expect(try await store.device(app: "shop", deviceId: "renewed", now: t0) != nil)
            #expect(try await store.device(app: "shop", deviceId: "newtoken", now: t0) != nil)
            #expect(try await store.device(app: "shop", deviceId: "bad", now: t0)?.isActive == false)
            let counts = try await messages.message(app: "shop", id: "message:1")?.deliveries
            #expect(counts?.tokensRemoved == 1 && counts?.tokensDeactivated == 1)
            // Per provider, only what was in fact removed or deactivated counts.
            #expect(counts?[.fcm] == ProviderCounts(failed: 2, tokensRemoved: 1))
            #expect(counts?[.apns] == ProviderCounts(failed: 2, tokensDeactivated: 1))
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func recipientsFilterBySystemExpiryActivityAndSinglecast(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            _ = try await store.register(app: "shop", try Fixture.request("ios1", channels: ["news"]), now: t0)
            _ = try await store.register(app: "shop", try Fixture.request("mac1", os: .osx, channels: ["news"]), now: t0)
            _ = try await store.register(app: "shop", try Fixture.request("droid", token: "x-y", os: .android, channels: ["news"]), now: t0)
            _ = try await store.register(
                app: "shop", try Fixture.request("gone", channels: ["news"], expiresAt: t0.adding(milliseconds: 10)), now: t0)
            _ = try await store.register(app: "shop", try Fixture.request("elsewhere", channels: ["other"]), now: t0)
            let later = t0.adding(milliseconds: 10)
            let news = try Fixture.channel("news")
            // Every page, followed by `next` to the end.
            func ids(_ filter: RecipientFilter, after: Int64 = 0, limit: Int = 10) async throws -> [String] {
                var cursor = after
                var found: [String] = []
                while true {
                    let page = try await store.recipients(app: "shop", filter: filter, after: cursor, limit: limit, now: later)
                    #expect(page.items.count <= limit)
                    found += page.items.map(\.deviceId)
                    guard let next = page.next else { return found }
                    #expect(next > cursor, "a page always moves on")
                    cursor = next
                }
            }
            let filters: [(RecipientFilter, [String])] = [
                (RecipientFilter(channel: news, devices: nil, systems: [.ios, .osx]), ["ios1", "mac1"]),
                (RecipientFilter(channel: news, devices: nil, systems: [.osx]), ["mac1"]),
                (RecipientFilter(channel: news, devices: nil, systems: [.android]), ["droid"]),
                (RecipientFilter(channel: news, devices: nil, systems: []), []),
                (RecipientFilter(channel: news, devices: ["elsewhere", "gone", "droid", "nobody"], systems: [.ios, .osx]), ["elsewhere"]),
            ]
            for (filter, expected) in filters {
                // Paging one candidate at a time, or two, finds the same devices as one page of ten.
                for limit in [10, 2, 1] { #expect(try await ids(filter, limit: limit) == expected, "\(filter.systems), limit \(limit)") }
            }
            // A page of candidates that all fail the device's conditions is empty, and says where to go on.
            let skipped = try await store.recipients(
                app: "shop", filter: RecipientFilter(channel: news, devices: nil, systems: [.osx]), after: 0, limit: 1, now: later)
            #expect(skipped.items.isEmpty && skipped.next != nil)
            let first = try await store.recipients(
                app: "shop", filter: RecipientFilter(channel: news, devices: nil, systems: [.ios, .osx]),
                after: 0, limit: 1, now: later)
            #expect(first.items.map(\.deviceId) == ["ios1"])
            #expect(
                try await ids(RecipientFilter(channel: news, devices: nil, systems: [.ios, .osx]), after: first.items[0].key) == ["mac1"])
        }
    }
}

/// The store's calls in the shape the scenarios above read best: absolute lease ends, slice 0.
extension MessageStore {
    func claimSlices(
        owner: String, now: Timestamp, leaseUntil: Timestamp, limit: Int, slicing: Slicing = Slicing(),
        running: Set<String> = [], foldingAbandoned: Bool = true
    ) async throws -> [ClaimedSlice] {
        try await claim(
            owner: owner, now: now, leaseMilliseconds: leaseUntil.milliseconds - now.milliseconds, limit: limit,
            slicing: slicing, running: running, foldingAbandoned: foldingAbandoned)
    }

    func checkpoint(_ checkpoint: FanOutCheckpoint, owner: String, now: Timestamp, leaseUntil: Timestamp) async throws -> MessageStatus? {
        try await self.checkpoint(checkpoint, owner: owner, now: now, leaseMilliseconds: leaseUntil.milliseconds - now.milliseconds)
    }

    func finishSlice0(id: String, owner: String, next: Timestamp?, failure: String?, now: Timestamp) async throws {
        try await finishSlice(id: id, slice: 0, occurrence: 0, owner: owner, next: next, failure: failure, now: now)
    }
}
