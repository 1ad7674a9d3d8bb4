import HeraldCore
import HeraldMetrics
import HeraldStore
import Logging
import NIOCore
import ServiceLifecycle

/// What a stream writes next.
enum StreamEvent: Sendable, Equatable {
    /// A message's feed position and its event, encoded once for every stream that takes it.
    case message(position: Int64, event: StreamEncoding)
    /// Nothing to send for a while: a comment keeps the connection open, and the subscription alive.
    case heartbeat
}

/// This instance's live streams of subscriptions, fed from the channels' feeds.
///
/// A feed is read once per channel, not once per stream: when a channel's feed grows (this process's
/// `FeedSignal`, or PostgreSQL's NOTIFY from any instance through one LISTEN connection), one reader
/// reads the new messages and hands each stream those its selector takes. The database is the source of
/// truth: a stream joins at its own position (the subscription's, or the `Last-Event-ID` it resumes
/// from), the reader goes back to the lowest position any stream needs, and each stream skips what it
/// has had. Every second the feeds with streams are read again anyway, so a lost notification delays a
/// message by a second at most. The hub also prunes the feeds and expired subscriptions.
final class PubSubHub: Service, Sendable {
    struct ChannelKey: Hashable, Sendable {
        let app: String
        let channel: ChannelName
    }

    /// One open stream.
    final class Stream: Sendable {
        let id: Int
        let subscription: Subscription
        let sink: Sink
        /// The last feed position handed to it (taken or passed over).
        let position: Locked<Int64>

        init(id: Int, subscription: Subscription, from position: Int64, sink: Sink) {
            self.id = id
            self.subscription = subscription
            self.position = Locked(position)
            self.sink = sink
        }
    }

    private struct ChannelState {
        var streams: [Int: Stream] = [:]
        var reading = false
        /// Woken while reading: read again once done.
        var dirty = false
    }

    private struct State {
        var channels: [ChannelKey: ChannelState] = [:]
        var nextId = 0
        var open = 0
        var stopped = false
    }

    let store: any PubSubStore
    let backend: (any SQLBackend)?
    let clock: any WallClock
    let configuration: PubSubConfiguration
    let metrics: HeraldMetrics
    let logger: Logger
    private let state = Locked(State())

    /// Messages a stream may have waiting to be written; a client that falls further behind is cut off
    /// (it resumes from its last event id).
    static let buffer = 4096
    /// Messages one read of a feed takes.
    static let readLimit = 1000

    init(
        store: any PubSubStore, backend: (any SQLBackend)?, signal: FeedSignal?, clock: any WallClock, configuration: PubSubConfiguration,
        metrics: HeraldMetrics, logger: Logger
    ) {
        self.store = store
        self.backend = backend
        self.clock = clock
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        signal?.observe { [weak self] app, channel in self?.wake(ChannelKey(app: app, channel: channel)) }
    }

    /// Opens a stream of `subscription` from `position`; nil when this instance serves `maxStreams` already
    /// or is stopping.
    func open(_ subscription: Subscription, from position: Int64) -> (id: Int, events: AsyncStream<StreamEvent>)? {
        let (events, continuation) = AsyncStream.makeStream(of: StreamEvent.self, bufferingPolicy: .bufferingOldest(Self.buffer))
        guard let id = open(subscription, from: position, sink: Sink(continuation)) else { return nil }
        let key = ChannelKey(app: subscription.app, channel: subscription.channel)
        continuation.onTermination = { [weak self] _ in self?.close(key, id) }
        return (id, events)
    }

    /// Opens a stream of `subscription` from `position` into `sink`; nil as above. The caller ends it with
    /// `close(_:id:)`.
    func open(_ subscription: Subscription, from position: Int64, sink: Sink) -> Int? {
        let key = ChannelKey(app: subscription.app, channel: subscription.channel)
        let id: Int? = state.withLock { state in
            guard !state.stopped, state.open < configuration.maxStreams else { return nil }
            state.nextId += 1
            state.open += 1
            let stream = Stream(id: state.nextId, subscription: subscription, from: position, sink: sink)
            var channel = state.channels[key] ?? ChannelState()
            channel.streams[stream.id] = stream
            state.channels[key] = channel
            return stream.id
        }
        guard let id else { return nil }
        metrics.streams(1)
        wake(key)
        return id
    }

    /// Ends one stream (its server is shutting down); its client resumes from its last event id.
    func finish(_ subscription: Subscription, id: Int) {
        let key = ChannelKey(app: subscription.app, channel: subscription.channel)
        state.withLock { $0.channels[key]?.streams[id] }?.sink.finish()
    }

    /// Removes a stream opened with a sink (its subscriber left).
    func close(_ subscription: Subscription, id: Int) {
        close(ChannelKey(app: subscription.app, channel: subscription.channel), id)
    }

    /// Streams open now on each of an app's channels (for the console).
    func streamCounts(app: String) -> [ChannelName: (streams: Int, rt: Int)] {
        state.withLock { state in
            var counts: [ChannelName: (streams: Int, rt: Int)] = [:]
            for (key, channel) in state.channels where key.app == app {
                let rt = channel.streams.values.filter(\.sink.rt).count
                counts[key.channel] = (channel.streams.count - rt, rt)
            }
            return counts
        }
    }

    private func close(_ key: ChannelKey, _ id: Int) {
        let closed: Bool = state.withLock { state in
            guard state.channels[key]?.streams.removeValue(forKey: id) != nil else { return false }
            state.open -= 1
            if state.channels[key]?.streams.isEmpty == true, state.channels[key]?.reading == false { state.channels[key] = nil }
            return true
        }
        if closed { metrics.streams(-1) }
    }

    /// The channel's feed may have grown: read it (once, however many wake-ups come while reading).
    func wake(_ key: ChannelKey) {
        let start: Bool = state.withLock { state in
            guard var channel = state.channels[key] else { return false }
            if channel.reading {
                channel.dirty = true
                state.channels[key] = channel
                return false
            }
            channel.reading = true
            channel.dirty = false
            state.channels[key] = channel
            return true
        }
        if start { Task { await self.read(key) } }
    }

    private func wakeAll() {
        for key in state.withLock({ Array($0.channels.keys) }) { wake(key) }
    }

    /// Reads the channel's feed from the lowest position its streams have had, until they have caught
    /// up and no wake-up came meanwhile. (A stream that joins during a read is read for on the next round.)
    private func read(_ key: ChannelKey) async {
        while true {
            let from: Int64? = state.withLock { state in
                state.channels[key]?.streams.values.map { stream in stream.position.withLock { $0 } }.min()
            }
            var full = false
            if let from {
                do {
                    let page = try await store.feed(
                        app: key.app, channel: key.channel, after: from, limit: Self.readLimit, now: clock.now, policy: configuration.policy
                    )
                    full = page.isFull
                    deliver(page.messages, upTo: page.last, in: key)
                } catch {
                    logger.warning("pub/sub feed read failed; read again on the next wake-up", metadata: ["error": "\(error)"])
                }
            }
            let again: Bool = state.withLock { state in
                guard var channel = state.channels[key] else { return false }
                if (channel.dirty || full) && !channel.streams.isEmpty {
                    channel.dirty = false
                    state.channels[key] = channel
                    return true
                }
                channel.reading = false
                state.channels[key] = channel.streams.isEmpty ? nil : channel
                return false
            }
            if !again { return }
        }
    }

    /// Hands each stream of the channel the messages after its own position that its selector takes.
    private func deliver(_ messages: [FeedMessage], upTo last: Int64?, in key: ChannelKey) {
        guard let last else { return }
        let streams = state.withLock { Array(($0.channels[key]?.streams ?? [:]).values) }
        var delivered = 0
        var deliveredRT = 0
        let rt = streams.contains { $0.sink.rt }
        let events = messages.map { PubSubRoutes.event($0, rt: rt) }
        for stream in streams {
            let from = stream.position.withLock { $0 }
            guard from < last else { continue }
            var overflowed = false
            for (message, event) in zip(messages, events) where message.position > from && stream.subscription.takes(message) {
                if !stream.sink.deliver(.message(position: message.position, event: event)) {
                    overflowed = true
                    break
                }
                if stream.sink.rt { deliveredRT += 1 } else { delivered += 1 }
            }
            if overflowed {
                // It resumes from the last event it was written.
                stream.sink.finish()
            } else {
                stream.position.withLock { $0 = max($0, last) }
            }
        }
        metrics.pubsubDelivered(delivered, via: .stream)
        metrics.pubsubDelivered(deliveredRT, via: .rt)
    }

    func run() async throws {
        // On shutdown: the streams end at once, the listener and the timer are cancelled.
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown { await self.serve() }
        } onGracefulShutdown: {
            self.stop()
        }
    }

    /// Listens for the feeds' notifications and ticks, until cancelled.
    private func serve() async {
        await withDiscardingTaskGroup { group in
            if let backend {
                group.addTask {
                    await backend.listen(PubSubFeed.notifyChannel, listening: { [weak self] in self?.wakeAll() }) { [weak self] payload in
                        guard let self else { return }
                        let parts = payload.split(separator: "\n", maxSplits: 1)
                        guard parts.count == 2, let channel = try? ChannelName(validating: String(parts[1])) else { return }
                        self.wake(ChannelKey(app: String(parts[0]), channel: channel))
                    }
                }
            }
            group.addTask { await self.tick() }
        }
    }

    /// Every second: the feeds with streams are read again; every heartbeat, each stream gets one; every
    /// half retention, the feeds and expired subscriptions are pruned.
    private func tick() async {
        var lastHeartbeat = ContinuousClock.now
        var lastPrune = ContinuousClock.now - .seconds(3600)
        let heartbeat = Duration.milliseconds(Int64(configuration.heartbeatSeconds * 1000))
        let pruneEvery = Duration.milliseconds(max(1000, Int64(configuration.retentionSeconds * 500)))
        while !Task.isCancelled, !state.withLock({ $0.stopped }) {
            try? await Task.sleep(for: .seconds(1))
            wakeAll()
            if ContinuousClock.now - lastHeartbeat >= heartbeat {
                lastHeartbeat = ContinuousClock.now
                for stream in state.withLock({ $0.channels.values.flatMap(\.streams.values) }) { _ = stream.sink.deliver(.heartbeat) }
            }
            if ContinuousClock.now - lastPrune >= pruneEvery {
                lastPrune = ContinuousClock.now
                do {
                    _ = try await store.prune(now: clock.now, policy: configuration.policy, batchSize: 1000)
                } catch {
                    logger.warning("pub/sub pruning failed; retried later", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// Ends every stream (their clients resume elsewhere from their last event id) and takes no more.
    func stop() {
        let streams = state.withLock { state in
            state.stopped = true
            return state.channels.values.flatMap(\.streams.values)
        }
        for stream in streams { stream.sink.finish() }
    }
}
