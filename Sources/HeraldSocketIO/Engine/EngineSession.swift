import NIOConcurrencyHelpers
import NIOCore

/// One Engine.IO session: its identity, the packets waiting for its client, and its heartbeat.
///
/// Packets to the client queue here whatever the transport; the transport in charge takes them: a
/// pending poll (one at a time), or, after the upgrade, the WebSocket's writer.
public final class EngineSession: Sendable {
    public let id: String
    public let version: EngineVersion
    /// The handshake's query parameters (`apiKey`, `clientId`, … for Backendless RT).
    public let query: [String: String]
    /// The handshake's path (`/{appId}/` for Backendless RT).
    public let path: String

    /// A transport waiting for packets.
    typealias Waiter = CheckedContinuation<[OutboundPacket]?, Never>

    struct State {
        var upgraded: Bool
        var queue: [OutboundPacket] = []
        var waiter: Waiter?
        var closed: EngineCloseReason?
        /// v3: the client's last ping; v4: the last pong (or the start).
        var lastHeard: ContinuousClock.Instant
        var lastPingSent: ContinuousClock.Instant
        var pingOutstanding = false
        /// A poll is waiting (only one may).
        var polling = false
    }

    let state: NIOLockedValueBox<State>
    let maxBuffered: Int

    init(id: String, version: EngineVersion, query: [String: String], path: String, transport: EngineTransport, maxBuffered: Int) {
        self.id = id
        self.version = version
        self.query = query
        self.path = path
        self.maxBuffered = maxBuffered
        let now = ContinuousClock.now
        state = NIOLockedValueBox(State(upgraded: transport == .websocket, lastHeard: now, lastPingSent: now))
    }

    /// Whether the WebSocket carries the session (it started on one, or upgraded).
    public var isUpgraded: Bool { state.withLockedValue { $0.upgraded } }

    public var isClosed: Bool { state.withLockedValue { $0.closed != nil } }

    /// Queues an encoded packet for the client. False when the session is closed, or when the client has
    /// `maxBuffered` packets waiting already (the caller then closes it: it is not reading).
    @discardableResult
    func send(_ packet: String) -> Bool { send(ByteBuffer(string: packet)) }

    /// Queues an encoded packet already in bytes (the fast path: nothing is copied again).
    @discardableResult
    func send(_ packet: ByteBuffer) -> Bool { send([.text(packet)]) }

    /// Queues packets that must reach the client together and in order (a binary event's text and its
    /// attachments): all of them, or none when the session is closed or they would pass `maxBuffered`.
    @discardableResult
    func send(_ group: [OutboundPacket]) -> Bool {
        let (accepted, waiter, packets): (Bool, Waiter?, [OutboundPacket]) = state.withLockedValue { state in
            guard state.closed == nil, state.queue.count + group.count <= maxBuffered else { return (false, nil, []) }
            state.queue.append(contentsOf: group)
            guard let waiter = state.waiter else { return (true, nil, []) }
            state.waiter = nil
            let packets = state.queue
            state.queue.removeAll(keepingCapacity: true)
            return (true, waiter, packets)
        }
        waiter?.resume(returning: packets)
        return accepted
    }

    /// The packets waiting, once there are some; nil once the session is closed and drained. One caller
    /// at a time (the transport in charge).
    func next() async -> [OutboundPacket]? {
        await withCheckedContinuation { (continuation: Waiter) in
            let ready: [OutboundPacket]?? = state.withLockedValue { state in
                if !state.queue.isEmpty {
                    let packets = state.queue
                    state.queue.removeAll(keepingCapacity: true)
                    return .some(packets)
                }
                if state.closed != nil { return .some(nil) }
                if let old = state.waiter {
                    // A transport took over (the WebSocket after the upgrade): the old taker gets nothing.
                    state.waiter = nil
                    old.resume(returning: [])
                }
                state.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Marks the session closed; true the first time. A polling client is sent a close packet on its
    /// next poll; a waiting transport is woken.
    func markClosed(_ reason: EngineCloseReason) -> Bool {
        let (first, waiter, packets): (Bool, Waiter?, [OutboundPacket]?) = state.withLockedValue {
            state in
            guard state.closed == nil else { return (false, nil, nil) }
            state.closed = reason
            if !state.upgraded, reason != .transportClose { state.queue.append(OutboundPacket(EnginePacket(.close).encoded)) }
            guard let waiter = state.waiter else { return (true, nil, nil) }
            state.waiter = nil
            let packets = state.queue.isEmpty ? nil : state.queue
            state.queue.removeAll()
            return (true, waiter, packets)
        }
        waiter?.resume(returning: packets)
        return first
    }

    /// The WebSocket carries the session from now on: a poll still waiting is answered with a noop.
    func upgrade() {
        let waiter: Waiter? = state.withLockedValue { state in
            state.upgraded = true
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: [OutboundPacket(EnginePacket(.noop).encoded)])
    }

    /// The client was heard from (v3: a ping; v4: a pong).
    func heard() {
        state.withLockedValue { state in
            state.lastHeard = .now
            state.pingOutstanding = false
        }
    }

    /// What the heartbeat asks of this session now.
    enum Heartbeat: Equatable {
        case none
        case ping
        case timedOut
    }

    func heartbeat(at now: ContinuousClock.Instant, interval: Duration, timeout: Duration) -> Heartbeat {
        state.withLockedValue { state in
            guard state.closed == nil else { return .none }
            switch version {
            case .v3:
                return now - state.lastHeard >= interval + timeout ? .timedOut : .none
            case .v4:
                if state.pingOutstanding { return now - state.lastPingSent >= timeout ? .timedOut : .none }
                guard now - state.lastPingSent >= interval else { return .none }
                state.lastPingSent = now
                state.pingOutstanding = true
                return .ping
            }
        }
    }

    /// Starts a poll; false when one is waiting already (a client may not poll twice at once).
    func beginPoll() -> Bool {
        state.withLockedValue { state in
            guard !state.polling else { return false }
            state.polling = true
            return true
        }
    }

    func endPoll() { state.withLockedValue { $0.polling = false } }
}
