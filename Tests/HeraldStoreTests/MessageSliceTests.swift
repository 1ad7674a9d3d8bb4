import HeraldCore
import HeraldStore
import Logging
import SQLKit
import Testing

/// How an occurrence is split into slices that several owners send together, run against every backend.
@Suite struct MessageSliceTests {
    let t0 = Fixture.t0
    /// Three slices of ten for thirty devices.
    let slicing = Slicing(maxSlices: 3, sliceSize: 10, graceMilliseconds: 1000)

    func message(_ id: String = "message:1") throws -> StoredMessage {
        StoredMessage(
            id: id, app: "shop", channel: try Fixture.channel("news"), policy: .push, broadcast: [.ios, .osx],
            contents: MessageContents(
                apns: APNsContent(
                    payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), pushType: "alert", priority: 10, expiration: nil, collapseId: nil)),
            dueAt: t0, createdAt: t0)
    }

    /// `count` devices in channel "news" of app "shop".
    func register(_ store: SQLRegistrationStore, _ count: Int) async throws {
        for index in 0..<count {
            _ = try await store.register(app: "shop", try Fixture.request("dev-\(index)", channels: ["news"]), now: t0)
        }
    }

    /// The device ids a slice reaches.
    func members(_ store: SQLRegistrationStore, _ slice: ClaimedSlice) async throws -> [String] {
        try await store.recipients(
            app: "shop", filter: RecipientFilter(channel: try Fixture.channel("news"), devices: nil, systems: [.ios], upTo: slice.upTo),
            after: slice.cursor, limit: 1000, now: t0
        ).items.map(\.deviceId)
    }

    @Test(arguments: StoreBackendKind.allCases)
    func slicesSplitTheRecipientsAndTheirCountsAddUpExactly(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await register(store, 30)
            try await messages.insert(try message(), now: t0)
            let lease = t0.adding(milliseconds: 10_000)
            // One slice per message per claim, so each owner gets a share.
            var claimed: [String: ClaimedSlice] = [:]
            for owner in ["a", "b", "c"] {
                let got = try await messages.claimSlices(owner: owner, now: t0, leaseUntil: lease, limit: 4, slicing: slicing)
                #expect(got.count == 1, "\(owner) takes one slice")
                claimed[owner] = got.first
            }
            #expect(try await messages.claimSlices(owner: "d", now: t0, leaseUntil: lease, limit: 4, slicing: slicing).isEmpty)
            #expect(Set(claimed.values.map(\.slice)) == [0, 1, 2])
            var reached: [String] = []
            for slice in claimed.values { reached += try await members(store, slice) }
            #expect(reached.count == 30 && Set(reached).count == 30, "every device in exactly one slice")
            // Each owner sends its slice; the message's counts are the sum; the last to finish ends it.
            for (owner, slice) in claimed.sorted(by: { $0.key < $1.key }) {
                let sent = Int64(try await members(store, slice).count)
                let status = try await messages.checkpoint(
                    FanOutCheckpoint(
                        messageId: "message:1", slice: slice.slice, cursor: slice.upTo, sent: sent - 1, failed: 1,
                        byProvider: [.fcm: ProviderCounts(sent: 2, failed: 1), .apns: ProviderCounts(sent: sent - 3)], pending: 0),
                    owner: owner, now: t0, leaseUntil: lease)
                #expect(status == .running)
                #expect(
                    try await messages.checkpoint(
                        FanOutCheckpoint(messageId: "message:1", slice: slice.slice, cursor: nil, pending: 0),
                        owner: "intruder", now: t0, leaseUntil: lease) == nil, "only the owner writes")
                let final = try await messages.finishSlice(
                    id: "message:1", slice: slice.slice, occurrence: 0, owner: owner, next: nil, failure: nil, now: t0)
                #expect(final == (owner == "c" ? .published : nil), "only the last slice's finish publishes")
                let stored = try #require(try await messages.message(app: "shop", id: "message:1"))
                #expect(stored.status == (owner == "c" ? .published : .running))
            }
            let done = try #require(try await messages.message(app: "shop", id: "message:1"))
            #expect(
                done.deliveries
                    == DeliveryCounts(
                        sent: 27, failed: 3, pending: 0,
                        byProvider: [.fcm: ProviderCounts(sent: 6, failed: 3), .apns: ProviderCounts(sent: 21, failed: 0)]),
                "each provider's part is folded with the totals")
            #expect(done.occurrences == 1)
            #expect(try await messages.hasDue(now: t0) == false)
        }
    }

    /// A Live Activity event to an APNs broadcast channel is one request whatever the channel holds: it is
    /// never split, published now or when due, so no instance counts or walks the channel for it.
    @Test(arguments: StoreBackendKind.allCases)
    func aBroadcastToABoundChannelIsOneSlice(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await register(store, 30)
            let target = LiveActivityTarget(
                kind: .update, attributesType: "MatchAttributes",
                broadcast: LiveActivityTarget.Broadcast(channelId: "Y2hhbm5lbA==", storagePolicy: 0))
            var now = try message("message:now")
            now.liveActivity = target
            let first = try await messages.insertClaimed(now, now: t0, owner: "a", leaseMilliseconds: 60_000, slicing: slicing)
            #expect(first.slice == 0 && first.upTo == nil, "one slice, to the end of the channel")
            var due = try message("message:due")
            due.liveActivity = target
            try await messages.insert(due, now: t0)
            let lease = t0.adding(milliseconds: 60_000)
            let claimed = try await messages.claimSlices(owner: "b", now: t0, leaseUntil: lease, limit: 8, slicing: slicing)
            #expect(claimed.map(\.message.id) == ["message:due"] && claimed.first?.upTo == nil)
            #expect(try await messages.claimSlices(owner: "c", now: t0, leaseUntil: lease, limit: 8, slicing: slicing).isEmpty)
            // The same message without the broadcast (per-token pushes) is split as any other.
            try await messages.insert(try message("message:tokens"), now: t0)
            var perToken: [ClaimedSlice] = []
            for owner in ["d", "e", "f"] {
                perToken += try await messages.claimSlices(owner: owner, now: t0, leaseUntil: lease, limit: 1, slicing: slicing)
            }
            #expect(perToken.map(\.slice).sorted() == [0, 1, 2])
        }
    }

    /// A publish due now (`insertClaimed`): the message is stored running with its slices, the first leased
    /// to the publishing instance; the others are any instance's to claim, and its feed entry is written once.
    @Test(arguments: StoreBackendKind.allCases)
    func aPublishLeasesItsFirstSliceAndLeavesTheOthersToClaims(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await register(store, 30)
            var published = try message()
            published.policy = .both
            published.pubsub = PubSubContent(data: .string("hi"), headers: [:])
            let first = try await messages.insertClaimed(published, now: t0, owner: "a", leaseMilliseconds: 60_000, slicing: slicing)
            #expect(first.slice == 0 && first.cursor == 0 && first.sequence == 0 && first.occurrence == 0)
            #expect(first.message.id == "message:1" && first.message.status == .running)
            #expect(try await messages.message(app: "shop", id: "message:1")?.status == .running)
            let lease = t0.adding(milliseconds: 60_000)
            var others: [ClaimedSlice] = []
            for owner in ["b", "c"] {
                others += try await messages.claimSlices(owner: owner, now: t0, leaseUntil: lease, limit: 4, slicing: slicing)
            }
            #expect(others.map(\.slice).sorted() == [1, 2], "the first slice is the publisher's")
            #expect(try await messages.claimSlices(owner: "d", now: t0, leaseUntil: lease, limit: 4, slicing: slicing).isEmpty)
            var reached = try await members(store, first)
            for slice in others { reached += try await members(store, slice) }
            #expect(reached.count == 30 && Set(reached).count == 30, "every device in exactly one slice")
            #expect(
                try await messages.checkpoint(
                    FanOutCheckpoint(messageId: "message:1", slice: 0, cursor: nil, pending: 0), owner: "b", now: t0, leaseUntil: lease)
                    == nil, "only the publisher writes the first slice")
            #expect(
                try await messages.checkpoint(
                    FanOutCheckpoint(messageId: "message:1", slice: 0, cursor: nil, pending: 0), owner: "a", now: t0, leaseUntil: lease)
                    == .running)
            let feedEntries = try await backend.read { db in
                try await db.raw("SELECT COUNT(*) AS n FROM pubsub_messages WHERE message_id = 'message:1'").first()?
                    .decode(column: "n", as: Int.self)
            }
            #expect(feedEntries == 1, "the occurrence enters its channel's feed once")
        }
    }

    /// `insertClaimed` writes its occurrence from the message in hand, not through `startDueOccurrences` and
    /// `lease`: every column of the message's row and its slices' must come out as `insert` and a claim leave
    /// them, and so must what the dispatcher gets back.
    @Test(arguments: StoreBackendKind.allCases)
    func aPublishThatClaimsLeavesTheRowsAnInsertAndAClaimWould(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await register(store, 30)
            func published(_ id: String) throws -> StoredMessage {
                var message = try message(id)
                message.policy = .both
                message.pubsub = PubSubContent(data: .string("hi"), headers: [:])
                message.publisherId = "backend"
                return message
            }
            try await messages.insert(try published("message:claimed"), now: t0)
            var claimed = try #require(
                try await messages.claim(
                    owner: "a", now: t0, leaseMilliseconds: 60_000, limit: 1, slicing: slicing, running: [], foldingAbandoned: false
                ).first)
            var handed = try await messages.insertClaimed(
                try published("message:handed"), now: t0, owner: "a", leaseMilliseconds: 60_000, slicing: slicing)
            #expect(claimed.message.id == "message:claimed" && handed.message.id == "message:handed")
            claimed.message.id = ""
            handed.message.id = ""
            #expect(handed == claimed, "the slice the dispatcher starts")
            let messageColumns = [
                "app_id", "channel", "publisher_id", "policy", "broadcast", "singlecast", "segment", "contents", "template_name",
                "audience_channels", "pubsub", "fed_occurrences", "publish_at", "repeat_every", "repeat_expires_at", "status",
                "error_message", "due_at", "occurrences", "fanout_cursor", "sent", "failed", "pending", "tokens_removed",
                "tokens_deactivated", "lease_owner", "lease_until", "created_at", "updated_at",
            ]
            let sliceColumns = [
                "slice", "after_key", "up_to_key", "fanout_cursor", "done", "sent", "failed", "pending", "tokens_removed",
                "tokens_deactivated", "lease_owner", "lease_until", "occurrence", "checkpoint_seq", "created_at", "updated_at",
            ]
            // Each row as one text: its columns cast and joined, NULL as "-".
            let messageText = messageColumns.map { "COALESCE(CAST(\($0) AS TEXT), '-')" }.joined(separator: " || '|' || ")
            let sliceText = sliceColumns.map { "COALESCE(CAST(\($0) AS TEXT), '-')" }.joined(separator: " || '|' || ")
            func rows(_ id: String) async throws -> [String] {
                try await backend.read { db in
                    var rows = try await db.raw(
                        "SELECT \(unsafeRaw: messageText) AS r FROM messages WHERE id = \(bind: id)"
                    ).all().map { try $0.decode(column: "r", as: String.self) }
                    rows += try await db.raw(
                        "SELECT \(unsafeRaw: sliceText) AS r FROM message_slices WHERE message_id = \(bind: id) ORDER BY slice"
                    ).all().map { try $0.decode(column: "r", as: String.self) }
                    rows += try await db.raw(
                        "SELECT publisher_id AS r FROM pubsub_messages WHERE message_id = \(bind: id)"
                    ).all().map { try $0.decode(column: "r", as: String.self) }
                    return rows
                }
            }
            let viaClaim = try await rows("message:claimed")
            #expect(viaClaim.count == 1 + 3 + 1, "the row, its three slices and one feed entry")
            #expect(try await rows("message:handed") == viaClaim)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func anOwnerTakesMoreOfItsMessageOnlyAfterOthersHadTheirChance(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await register(store, 30)
            try await messages.insert(try message(), now: t0)
            let lease = t0.adding(milliseconds: 60_000)
            #expect(try await messages.claimSlices(owner: "a", now: t0, leaseUntil: lease, limit: 4, slicing: slicing).count == 1)
            #expect(
                try await messages.claimSlices(
                    owner: "a", now: t0.adding(milliseconds: 999), leaseUntil: lease, limit: 4,
                    slicing: slicing, running: ["message:1"]
                ).isEmpty,
                "within the grace the other slices wait for other instances")
            let later = t0.adding(milliseconds: 1000)
            #expect(
                try await messages.claimSlices(
                    owner: "a", now: later, leaseUntil: lease, limit: 4,
                    slicing: slicing, running: ["message:1"]
                ).count == 1)
            #expect(
                try await messages.claimSlices(
                    owner: "a", now: later, leaseUntil: lease, limit: 4,
                    slicing: slicing, running: ["message:1"]
                ).count == 1)
            #expect(try await messages.hasDue(now: later) == false, "all three slices are leased")
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func aDeadOwnersSliceIsTakenOverFromItsCheckpointWithItsCountsKept(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await register(store, 30)
            try await messages.insert(try message(), now: t0)
            let a = try #require(
                try await messages.claimSlices(
                    owner: "a", now: t0, leaseUntil: t0.adding(milliseconds: 1000),
                    limit: 1, slicing: slicing
                ).first)
            _ = try await messages.checkpoint(
                FanOutCheckpoint(messageId: "message:1", slice: a.slice, cursor: a.cursor + 3, sent: 3, pending: 5),
                owner: "a", now: t0, leaseUntil: t0.adding(milliseconds: 1000))
            #expect(try await messages.message(app: "shop", id: "message:1")?.deliveries == DeliveryCounts(sent: 3, pending: 5))
            // a dies; once its lease has run out, b takes the slice over where a's checkpoint left it.
            let later = t0.adding(milliseconds: 1001)
            let taken = try await messages.claimSlices(
                owner: "b", now: later, leaseUntil: later.adding(milliseconds: 1000), limit: 3,
                slicing: slicing)
            let resumed = try #require(taken.first { $0.slice == a.slice })
            #expect(resumed.cursor == a.cursor + 3 && resumed.upTo == a.upTo)
            #expect(
                try await messages.message(app: "shop", id: "message:1")?.deliveries == DeliveryCounts(sent: 3, pending: 0),
                "the dead owner's pending count is dropped, its sent count kept")
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func aFailureInOneSliceStopsTheOthersAndEveryCountEndsOnTheMessage(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await register(store, 30)
            try await messages.insert(try message(), now: t0)
            let lease = t0.adding(milliseconds: 1000)
            let a = try #require(try await messages.claimSlices(owner: "a", now: t0, leaseUntil: lease, limit: 1, slicing: slicing).first)
            let b = try #require(try await messages.claimSlices(owner: "b", now: t0, leaseUntil: lease, limit: 1, slicing: slicing).first)
            _ = try await messages.checkpoint(
                FanOutCheckpoint(messageId: "message:1", slice: b.slice, cursor: nil, sent: 4, pending: 2),
                owner: "b", now: t0, leaseUntil: lease)
            _ = try await messages.checkpoint(
                FanOutCheckpoint(messageId: "message:1", slice: a.slice, cursor: nil, failed: 1, pending: 0),
                owner: "a", now: t0, leaseUntil: lease)
            // The call that fails the message says so (the metrics count it once); the other slice's finish does not.
            #expect(
                try await messages.finishSlice(
                    id: "message:1", slice: a.slice, occurrence: 0, owner: "a", next: nil, failure: "credentials refused", now: t0)
                    == .failed)
            #expect(try await messages.message(app: "shop", id: "message:1")?.status == .failed)
            #expect(
                try await messages.checkpoint(
                    FanOutCheckpoint(messageId: "message:1", slice: b.slice, cursor: nil, sent: 2, pending: 0),
                    owner: "b", now: t0, leaseUntil: lease) == .failed, "b learns of the failure and stops")
            #expect(
                try await messages.finishSlice(id: "message:1", slice: b.slice, occurrence: 0, owner: "b", next: nil, failure: nil, now: t0)
                    == nil)
            // The third slice was never claimed. A claim on a publish's way to its first send leaves it; the
            // next claim that folds (the timer's) folds it away, and neither takes anything.
            #expect(try await messages.hasDue(now: t0))
            #expect(
                try await messages.claimSlices(
                    owner: "c", now: t0, leaseUntil: lease, limit: 4, slicing: slicing, foldingAbandoned: false
                ).isEmpty)
            #expect(try await messages.hasDue(now: t0), "still there to fold")
            #expect(try await messages.message(app: "shop", id: "message:1")?.occurrences == 0)
            #expect(try await messages.claimSlices(owner: "c", now: t0, leaseUntil: lease, limit: 4, slicing: slicing).isEmpty)
            #expect(try await messages.hasDue(now: t0) == false)
            let failed = try #require(try await messages.message(app: "shop", id: "message:1"))
            #expect(failed.deliveries == DeliveryCounts(sent: 6, failed: 1, pending: 0))
            #expect(failed.errorMessage == "credentials refused" && failed.occurrences == 1)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func aSmallChannelOrASinglecastIsOneSlice(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await register(store, 9)
            try await messages.insert(try message("message:small"), now: t0)
            var singlecast = try message("message:single")
            singlecast.singlecast = ["dev-1", "dev-2"]
            try await messages.insert(singlecast, now: t0)
            let claimed = try await messages.claimSlices(
                owner: "a", now: t0, leaseUntil: t0.adding(milliseconds: 1000), limit: 10,
                slicing: Slicing(maxSlices: 8, sliceSize: 10))
            #expect(claimed.count == 2)
            #expect(claimed.allSatisfy { $0.slice == 0 && $0.upTo == nil })
            #expect(
                try await messages.claimSlices(
                    owner: "b", now: t0, leaseUntil: t0.adding(milliseconds: 1000), limit: 10,
                    slicing: Slicing(maxSlices: 8, sliceSize: 10)
                ).count == 0)
        }
    }

    /// A publish that sends its message itself wakes the other instances (`NOTIFY herald_due`) only when
    /// there are slices left for them: a message of one slice is its instance's alone. Leases follow the
    /// database's clock, as a claim's do.
    @Test(.enabled(if: StoreBackendKind.allCases.contains(.postgres)))
    func onPostgreSQLOnlyAPublishOfSeveralSlicesWakesTheOtherInstances() async throws {
        try await StoreBackendKind.postgres.withStore { store, backend in
            let messages = SQLMessageStore(backend: backend)
            let (heard, hearing) = AsyncStream.makeStream(of: String.self)
            let listener = Task {
                await backend.listen(DueMessages.notifyChannel, listening: { hearing.yield("listening") }) { hearing.yield($0) }
            }
            defer { listener.cancel() }
            var notifications = heard.makeAsyncIterator()
            #expect(await notifications.next() == "listening")
            let now = SystemClock().now
            try await register(store, 5)
            var small = try message("message:small")
            small.dueAt = now
            let alone = try await messages.insertClaimed(small, now: now, owner: "a", leaseMilliseconds: 30_000, slicing: slicing)
            #expect(alone.upTo == nil, "five devices are one slice")
            try await register(store, 30)
            var large = try message("message:large")
            large.dueAt = now
            let first = try await messages.insertClaimed(large, now: now, owner: "a", leaseMilliseconds: 30_000, slicing: slicing)
            #expect(first.slice == 0 && first.upTo != nil)
            try await backend.write { db in try await db.raw("SELECT pg_notify('herald_due', 'end')").run() }
            var before: [String] = []
            while let payload = await notifications.next(), payload != "end" { before.append(payload) }
            #expect(before == [""], "one wake, for the message with slices to share")
            let others = try await messages.claim(
                owner: "b", now: now, leaseMilliseconds: 30_000, limit: 4, slicing: slicing, running: [], foldingAbandoned: true)
            #expect(others.map(\.message.id) == ["message:large"], "both first slices are leased to a by the database's clock")
        }
    }

    /// On PostgreSQL leases and due times follow the database's clock: an instance whose own clock runs
    /// an hour fast cannot take a slice another instance holds, so a skewed clock cannot send twice.
    @Test(.enabled(if: StoreBackendKind.allCases.contains(.postgres)))
    func onPostgreSQLASkewedInstanceClockCannotTakeALiveLease() async throws {
        try await StoreBackendKind.postgres.withStore { _, backend in
            let messages = SQLMessageStore(backend: backend)
            let now = SystemClock().now
            var due = try message()
            due.dueAt = now
            try await messages.insert(due, now: now)
            let behind = now.adding(milliseconds: -3_600_000)
            #expect(try await messages.hasDue(now: behind), "due by the database's clock, whatever the caller's says")
            let claimed = try await messages.claim(
                owner: "a", now: behind, leaseMilliseconds: 30_000, limit: 1, slicing: slicing, running: [], foldingAbandoned: true)
            #expect(claimed.count == 1)
            let ahead = now.adding(milliseconds: 3_600_000)
            #expect(try await messages.hasDue(now: ahead) == false)
            #expect(
                try await messages.claim(
                    owner: "b", now: ahead, leaseMilliseconds: 30_000, limit: 1, slicing: slicing, running: [], foldingAbandoned: true
                )
                .isEmpty,
                "an hour-fast clock does not make a's 30 s lease look expired")
        }
    }
}

/// Checkpoints written twice are counted once, and a run of an earlier occurrence cannot write into a later one.
@Suite struct CheckpointIdentityTests {
    let t0 = Fixture.t0

    @Test(arguments: StoreBackendKind.allCases)
    func aCheckpointWrittenAgainAfterALostAnswerIsCountedOnce(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await messages.insert(try MessageSliceTests().message(), now: t0)
            let claimed = try #require(
                try await messages.claim(
                    owner: "a", now: t0, leaseMilliseconds: 10_000, limit: 1,
                    slicing: Slicing(), running: [], foldingAbandoned: true
                ).first)
            #expect(claimed.sequence == 0)
            let first = FanOutCheckpoint(messageId: "message:1", sequence: claimed.sequence, cursor: 10, sent: 10, pending: 0)
            #expect(try await messages.checkpoint(first, owner: "a", now: t0, leaseMilliseconds: 10_000) == .running)
            // Its answer was lost, so the fan-out writes it again before the next one.
            #expect(
                try await messages.checkpoint(first, owner: "a", now: t0, leaseMilliseconds: 10_000) == .running,
                "recognised as written")
            let second = FanOutCheckpoint(messageId: "message:1", sequence: 1, cursor: 20, sent: 5, pending: 0)
            #expect(try await messages.checkpoint(second, owner: "a", now: t0, leaseMilliseconds: 10_000) == .running)
            #expect(try await messages.message(app: "shop", id: "message:1")?.deliveries.sent == 15, "10 + 5, not 25")
            // A sequence from nowhere (neither next nor just written) is refused like a lost lease.
            let stray = FanOutCheckpoint(messageId: "message:1", sequence: 7, cursor: 30, sent: 1, pending: 0)
            #expect(try await messages.checkpoint(stray, owner: "a", now: t0, leaseMilliseconds: 10_000) == nil)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func aStaleRunOfAnEarlierOccurrenceCannotWriteIntoTheNext(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            var repeating = try MessageSliceTests().message()
            repeating.schedule = PublishSchedule(repeatEverySeconds: 60)
            try await messages.insert(repeating, now: t0)
            let first = try #require(
                try await messages.claim(
                    owner: "a", now: t0, leaseMilliseconds: 1_000, limit: 1,
                    slicing: Slicing(), running: [], foldingAbandoned: true
                ).first)
            #expect(first.occurrence == 0)
            // a stalls past its lease; b takes the slice over, finishes the occurrence; then a claims the next one.
            let later = t0.adding(milliseconds: 1_001)
            let taken = try #require(
                try await messages.claim(
                    owner: "b", now: later, leaseMilliseconds: 1_000, limit: 1,
                    slicing: Slicing(), running: [], foldingAbandoned: true
                ).first)
            try await messages.finishSlice(
                id: "message:1", slice: taken.slice, occurrence: taken.occurrence, owner: "b",
                next: t0.adding(milliseconds: 60_000), failure: nil, now: later)
            let next = t0.adding(milliseconds: 60_000)
            let second = try #require(
                try await messages.claim(
                    owner: "a", now: next, leaseMilliseconds: 10_000, limit: 1,
                    slicing: Slicing(), running: [], foldingAbandoned: true
                ).first)
            #expect(second.occurrence == 1)
            // a's stalled run of occurrence 0 wakes up and writes: refused, though the owner name matches.
            let stale = FanOutCheckpoint(messageId: "message:1", occurrence: 0, cursor: 999, sent: 50, pending: 0)
            #expect(try await messages.checkpoint(stale, owner: "a", now: next, leaseMilliseconds: 10_000) == nil)
            try await messages.finishSlice(id: "message:1", slice: 0, occurrence: 0, owner: "a", next: nil, failure: nil, now: next)
            let stored = try #require(try await messages.message(app: "shop", id: "message:1"))
            #expect(stored.status == .running && stored.deliveries.sent == 0, "occurrence 1 untouched by the stale run")
        }
    }
}

/// Migrations: a database migrated by a newer Herald is refused with one clear line, on every backend.
@Suite struct MigrationTests {
    @Test(arguments: StoreBackendKind.allCases)
    func aSchemaNewerThanThisBinaryIsRefused(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            #expect(try await Migrator(backend: backend).pending().isEmpty)
            try await backend.write { db in
                try await db.raw("INSERT INTO herald_migrations (name, applied_at) VALUES ('9999_from_the_future', 0)").run()
            }
            do {
                try await Migrator(backend: backend).migrate(logger: Logger(label: "herald.tests"))
                Issue.record("a newer schema was accepted")
            } catch let error as Migrator.SchemaTooNew {
                #expect(error.unknown == ["9999_from_the_future"])
                #expect(error.description.contains("newer than this Herald"))
            }
        }
    }
}
