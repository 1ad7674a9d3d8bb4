import Dispatch
import Foundation
import HeraldCore
import HeraldMetrics
import HeraldStore
import Logging
import ServiceLifecycle
import Synchronization

/// Takes due work from the store and runs its fan-outs, a few at a time.
///
/// The unit of work is a slice of a message's occurrence (see `MessageStore`): on SQLite a message is
/// one slice; on PostgreSQL a large one is split so that every instance sending from the database takes
/// a share. It looks for due work when a publish wakes it and on a timer (`pollIntervalSeconds`), so
/// scheduled occurrences fire on time and slices left by a dead instance are taken over once their
/// lease runs out. On graceful shutdown it stops sending, waits for the answers in flight, checkpoints,
/// and gives its leases back.
public final class Dispatcher: Service {
    let messages: any MessageStore
    let registrations: any RegistrationStore
    let clients: ProviderClients

    /// Whether `app` has settings for `provider`: a message's recipients on its systems are skipped
    /// when it has none (the status answer says so).
    public func isConfigured(_ provider: PushProvider, for app: String) -> Bool { clients.isConfigured(provider, for: app) }
    let clock: any WallClock
    let settings: DispatcherConfiguration
    let logger: Logger
    let metrics: HeraldMetrics
    /// This instance's name on the leases it holds.
    /// This instance's name in leases (`host/pid/random`), as the console shows it.
    public let owner: String
    /// SQLite: no other server shares the file, so leases left by a killed process are taken back at start,
    /// and a message is never split (there is no other instance to share it with).
    let singleServer: Bool
    let stop = StopFlag()
    private let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation
    /// The slices this instance is sending, by message id and slice number.
    private let running = Locked(Slots())

    /// The slices being sent (or handed over to be), which count against `maxConcurrentMessages`, and
    /// whether a claim's transaction is under way: a claim takes the room there is when it starts, so a
    /// publish meanwhile takes the way of a wake (`insertAndSend`) rather than room the claim may fill.
    struct Slots {
        var keys: Set<SliceKey> = []
        var claiming = false
    }

    struct SliceKey: Hashable {
        let message: String
        let slice: Int
    }

    public init(
        messages: any MessageStore, registrations: any RegistrationStore, clients: ProviderClients,
        clock: any WallClock, settings: DispatcherConfiguration, singleServer: Bool, metrics: HeraldMetrics = .disabled, logger: Logger
    ) {
        self.metrics = metrics
        self.messages = messages
        self.registrations = registrations
        self.clients = clients
        self.clock = clock
        self.settings = settings
        self.singleServer = singleServer
        self.logger = logger
        self.owner = "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)/\(UUID().uuidString.prefix(8))"
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Looks for due messages now (a publish calls this, so an immediate message does not wait for the timer).
    public func wake() {
        woken.store(true, ordering: .releasing)
        signal.yield()
    }

    /// Stores a message due now and starts sending it at once: the store starts its occurrence and leases
    /// its first slice to this instance in the publish's own transaction (`MessageStore.insertClaimed`), and
    /// the slice goes straight to `run`'s loop, without a claim's transaction between the publish and its first
    /// send. When this dispatcher is not taking work (not running yet, stopping), has no room, or is in a
    /// claim's transaction (which may fill the room), the message is stored as any other and a wake claims it.
    /// Either way it is durable when this returns; a slice handed over but never started (the process ended,
    /// or a shutdown began, between the publish's commit and the loop's next turn) is taken again once its
    /// lease runs out, or at once by a SQLite restart (`releaseAll`).
    /// With `idempotency`, the publish's key is taken in the message's transaction (`MessageStore.insert`).
    public func insertAndSend(_ message: StoredMessage, now: Timestamp, idempotency: IdempotencyRecord? = nil) async throws {
        let key = SliceKey(message: message.id, slice: 0)
        let reserved =
            accepting.load(ordering: .acquiring) && !stop.isSet
            && running.withLock { running in
                !running.claiming && running.keys.count < settings.maxConcurrentMessages && running.keys.insert(key).inserted
            }
        guard reserved else {
            try await messages.insert(message, now: now, idempotency: idempotency)
            wake()
            return
        }
        let claimed: ClaimedSlice
        do {
            claimed = try await messages.insertClaimed(
                message, now: now, owner: owner, leaseMilliseconds: Int64(settings.leaseSeconds * 1000), slicing: slicing,
                idempotency: idempotency)
        } catch {
            running.withLock { _ = $0.keys.remove(key) }
            throw error
        }
        handed.withLock { $0.append(claimed) }
        signal.yield()
    }

    /// Whether `run`'s loop is taking work: only then does a publish hand its slice over (`insertAndSend`).
    private let accepting = Atomic<Bool>(false)
    /// Slices leased at publish (`insertAndSend`), already in `running`, for the loop to start.
    private let handed = Locked<[ClaimedSlice]>([])

    /// Set by `wake`, taken by the next claim: work is likely due (a publish, or another instance's NOTIFY),
    /// so the claim goes straight to its transaction rather than asking `hasDue` first, and leaves folding
    /// abandoned slices to the timer's claims: two round trips fewer between a publish and its first send.
    /// The timer's looks still ask first, so an idle instance only reads.
    private let woken = Atomic<Bool>(false)
    /// When a claim last folded abandoned slices (claims run one at a time, from `run`'s loop): a claim
    /// folds at least once a poll interval, even while publishes keep waking the dispatcher.
    private let lastFold = Locked(ContinuousClock.now)

    public func run() async throws {
        if singleServer {
            try await messages.releaseAll(now: clock.now)
        }
        let interval = DispatchTimeInterval.milliseconds(Int(min(60, max(0.01, settings.pollIntervalSeconds)) * 1000))
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "herald.dispatcher.timer"))
        timer.schedule(deadline: .now(), repeating: interval, leeway: .milliseconds(5))
        let signal = self.signal
        timer.setEventHandler { signal.yield() }
        timer.resume()
        defer { timer.cancel() }
        // Graceful shutdown must not cancel the fan-outs' tasks: a cancelled task stops reading the providers'
        // answers, and pages whose answers were not read are sent again after the restart. It sets the
        // stop flag instead; the fan-outs stop submitting, read what is in flight, and checkpoint.
        let stop = self.stop
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                accepting.store(true, ordering: .releasing)
                func start(_ slice: ClaimedSlice) {
                    group.addTask {
                        await self.dispatch(slice)
                        self.running.withLock { _ = $0.keys.remove(SliceKey(message: slice.message.id, slice: slice.slice)) }
                        // Room for another slice: look (asking `hasDue` first, as the timer does).
                        signal.yield()
                    }
                }
                for await _ in signals {
                    // Slices leased at publish first: they start before this claim's round trips.
                    for slice in handed.withLock({ handed in
                        defer { handed.removeAll() }
                        return handed
                    }) { start(slice) }
                    for slice in await claim() { start(slice) }
                }
                accepting.store(false, ordering: .releasing)
                stop.set()
            }
        } onGracefulShutdown: {
            self.accepting.store(false, ordering: .releasing)
            stop.set()
            signal.finish()
        }
        do {
            try await messages.release(owner: owner, now: clock.now)
        } catch {
            logger.error(
                "could not release message leases at shutdown; they expire by themselves",
                metadata: ["herald.error": "\(error)"])
        }
    }

    /// How this instance splits an occurrence: never on SQLite.
    var slicing: Slicing {
        Slicing(
            maxSlices: singleServer ? 1 : settings.maxSlices, sliceSize: settings.sliceSize,
            graceMilliseconds: Int64(max(1, settings.pollIntervalSeconds * 4) * 1000))
    }

    /// Claims as many due slices as there is room for.
    private func claim() async -> [ClaimedSlice] {
        guard !stop.isSet, running.withLock({ $0.keys.count < settings.maxConcurrentMessages }) else { return [] }
        do {
            let now = clock.now
            let woken = woken.exchange(false, ordering: .acquiringAndReleasing)
            if !woken {
                guard try await messages.hasDue(now: now) else { return [] }
            }
            let interval = Duration.milliseconds(Int64(settings.pollIntervalSeconds * 1000))
            let folding = lastFold.withLock { last in
                guard !woken || ContinuousClock.now - last >= interval else { return false }
                last = ContinuousClock.now
                return true
            }
            let (room, sending) = running.withLock { running -> (Int, Set<String>) in
                running.claiming = true
                return (settings.maxConcurrentMessages - running.keys.count, Set(running.keys.map(\.message)))
            }
            defer { running.withLock { $0.claiming = false } }
            guard room > 0 else { return [] }
            let claimed = try await messages.claim(
                owner: owner, now: now, leaseMilliseconds: Int64(settings.leaseSeconds * 1000),
                limit: room, slicing: slicing, running: sending, foldingAbandoned: folding)
            // A slice this instance is still sending comes back when the clock passed its lease between two
            // checkpoints (a stalled write): the claim only renewed our own lease, and a second fan-out under
            // the same owner would send everything again.
            return running.withLock { running in
                running.claiming = false
                return claimed.filter { running.keys.insert(SliceKey(message: $0.message.id, slice: $0.slice)).inserted }
            }
        } catch {
            logger.error("could not claim due messages", metadata: ["herald.error": "\(error)"])
            return []
        }
    }

    /// Each configured provider's health for `app` on this instance (connections, answers, last error).
    public func providerHealth(app: String) -> [ProviderHealth] { clients.health(app: app) }
}
