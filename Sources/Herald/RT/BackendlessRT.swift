import Foundation
import HeraldCore
import HeraldMetrics
import HeraldSocketIO
import HeraldStore
import Logging
import NIOCore

/// Backendless RT for Messaging, on the Socket.IO server: what the SDKs' `Messaging.subscribe` and the
/// Channel it returns do (`PUB_SUB_CONNECT`, `PUB_SUB_MESSAGES` with or without a selector,
/// `PUB_SUB_COMMANDS` and the `PUB_SUB_COMMAND` method, `PUB_SUB_USERS`, `SET_USER_TOKEN`, `SUB_OFF`).
///
/// A client connects to the namespace `/{appId}` with its key in the handshake's query (`apiKey`, any
/// role). Message listeners are streams on the `PubSubHub`, so they see what every instance publishes;
/// presence and commands stay within this instance (`RTChannels`).
final class BackendlessRT: SocketIOHandler {
    let apps: AppDirectory
    let hub: PubSubHub
    let store: any PubSubStore
    let clock: any WallClock
    let pubsub: PubSubConfiguration
    let configuration: RTConfiguration
    let metrics: HeraldMetrics
    let logger: Logger
    let channels = RTChannels()
    let resume = RTResume()
    private let connections = Locked([String: RTConnection]())
    private let perApp = Locked([String: Int]())

    init(
        apps: AppDirectory, hub: PubSubHub, store: any PubSubStore, clock: any WallClock, pubsub: PubSubConfiguration,
        configuration: RTConfiguration, metrics: HeraldMetrics, logger: Logger
    ) {
        self.apps = apps
        self.hub = hub
        self.store = store
        self.clock = clock
        self.pubsub = pubsub
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
    }

    /// The app a handshake's path names (`/{appId}/`), as configured; nil when there is no such app.
    func app(ofPath path: String) -> String? {
        guard let first = path.split(separator: "/", omittingEmptySubsequences: true).first,
            let decoded = String(first).removingPercentEncoding
        else { return nil }
        return apps.canonicalAppId(decoded)
    }

    var connectionCount: Int { connections.withLock { $0.count } }

    // MARK: SocketIOHandler

    func connect(_ socket: SocketIOSocket) async -> String? {
        let namespaceApp = String(socket.namespace.dropFirst()).removingPercentEncoding ?? ""
        guard let app = app(ofPath: socket.session.path), namespaceApp == app || apps.canonicalAppId(namespaceApp) == app else {
            metrics.rtRefused("connect")
            return "namespace \(socket.namespace) is not the app of this connection's path: connect to /{appId}"
        }
        do {
            try apps.authorize(appId: app, apiKey: socket.session.query["apiKey"] ?? "", requires: .client)
        } catch {
            metrics.rtRefused("connect")
            return error.message
        }
        let admitted = perApp.withLock { counts in
            guard counts[app, default: 0] < configuration.maxConnectionsPerApp else { return false }
            counts[app, default: 0] += 1
            return true
        }
        guard admitted else {
            metrics.rtRefused("connect")
            return
                "the app has its maximum of \(configuration.maxConnectionsPerApp) RT connections on this instance (rt.maxConnectionsPerApp)"
        }
        connections.withLock { $0[socket.id] = RTConnection(socket: socket, app: app) }
        metrics.rtConnections(1)
        return nil
    }

    func event(_ socket: SocketIOSocket, name: String?, data: String) async {
        await event(socket, name: name, data: data, attachments: [])
    }

    /// An event, binary ones included (the Java SDK's requests: one attachment holding the JSON request,
    /// which makes the connection a binary one from then on, if its handshake had not said so).
    func event(_ socket: SocketIOSocket, name: String?, data: String, attachments: [ByteBuffer]) async {
        guard let connection = connections.withLock({ $0[socket.id] }) else { return }
        if !attachments.isEmpty { connection.binary.withLock { $0 = true } }
        let request: RTRequest?
        do {
            request = try RTRequest(data: data, attachments: attachments)
        } catch {
            refuse(error.id, method: error.isMethod, error.fault, on: connection)
            return
        }
        guard let request else {
            // Not an RT event (the SDKs ignore what they do not know too).
            logger.debug("RT event ignored", metadata: ["herald.app": "\(connection.app)", "herald.rt.event": "\(name ?? "?")"])
            metrics.rtRefused("event")
            return
        }
        switch request {
        case .subscribe(let id, let type, let options):
            await subscribe(id: id, type: type, options: options, on: connection)
        case .unsubscribe(let id):
            stop(id, on: connection, parking: false)
        case .method(let id, let name, let options):
            call(id: id, name: name, options: options, on: connection)
        }
    }

    func disconnected(_ socket: SocketIOSocket, reason: SocketIODisconnectReason) async {
        guard let connection = connections.withLock({ $0.removeValue(forKey: socket.id) }) else { return }
        for id in connection.subscriptions.withLock({ Array($0.keys) }) { stop(id, on: connection, parking: true) }
        perApp.withLock { counts in
            counts[connection.app, default: 1] -= 1
            if counts[connection.app] == 0 { counts[connection.app] = nil }
        }
        metrics.rtConnections(-1)
        metrics.rtDisconnected(reason: reason.description)
    }

    // MARK: Subscriptions

    private func subscribe(id: String, type: String, options: [String: JSONValue], on connection: RTConnection) async {
        // The SDKs send the same id again after a reconnect, and a re-sent one replaces the old.
        stop(id, on: connection, parking: false)
        guard connection.subscriptions.withLock({ $0.count }) < configuration.maxSubscriptionsPerConnection else {
            refuse(
                id, method: false,
                HeraldFault(
                    code: 5008, kind: .rateLimited,
                    message:
                        "No permission to subscribe: the connection has its maximum of \(configuration.maxSubscriptionsPerConnection) subscriptions (rt.maxSubscriptionsPerConnection)"
                ), on: connection)
            return
        }
        let listener = RTListener(socket: connection.socket, subscriptionId: id, binary: connection.isBinary)
        let kind: RTConnection.Kind
        do {
            let channel = try RTRequest.channel(options)
            let key = RTChannels.Key(app: connection.app, channel: channel)
            switch type {
            case "PUB_SUB_CONNECT":
                kind = .connect(channel)
                channels.join(key, connection: connection.id, userId: connection.userId)
            case "PUB_SUB_MESSAGES":
                kind = try await listen(id: id, channel: channel, options: options, listener: listener, on: connection)
            case "PUB_SUB_COMMANDS":
                kind = .commands(channel)
                channels.listenCommands(key, .init(connection: connection.id, subscription: id), listener)
            case "PUB_SUB_USERS":
                kind = .users(channel)
            default:
                throw HeraldFault(
                    code: 404, kind: .notFound,
                    message:
                        "RT subscription '\(type.prefix(64))' is not served by Herald: it serves Messaging (PUB_SUB_CONNECT, PUB_SUB_MESSAGES, PUB_SUB_COMMANDS, PUB_SUB_USERS)"
                )
            }
            connection.subscriptions.withLock { $0[id] = kind }
            if case .users(let channel) = kind {
                channels.listenUsers(
                    .init(app: connection.app, channel: channel), .init(connection: connection.id, subscription: id), listener)
            }
        } catch {
            refuse(id, method: false, HeraldFault.answering(error, logger: logger, while: "RT request"), on: connection)
            return
        }
        metrics.rtSubscriptions(type: kind.type, 1)
        if case .connect = kind { listener.send("\"connected\"") }
    }

    /// Opens a message listener's stream on the hub, from where its earlier life got to or the feed's end.
    private func listen(id: String, channel: ChannelName, options: [String: JSONValue], listener: RTListener, on connection: RTConnection)
        async throws -> RTConnection.Kind
    {
        var selector: MessageSelector?
        switch options["selector"] {
        case nil, .null?: break
        case .string(let text)? where text.trimmingCharacters(in: .whitespaces).isEmpty: break
        case .string(let text)?:
            do {
                selector = try MessageSelector(parsing: text)
            } catch {
                throw HeraldFault.invalidParameter("selector", error.description)
            }
        case let other?: throw HeraldFault.invalidParameter("selector", "expected a text, got \(other.typeName)")
        }
        let resumeKey = connection.resumeKey(id)
        let now = clock.now.milliseconds
        let claimed = resumeKey.flatMap { resume.claim($0, channel: channel, owner: connection.id, now: now) }
        let start: Int64
        if let claimed {
            start = claimed
        } else {
            start = try await store.end(app: connection.app, channel: channel)
        }
        let subscription = Subscription(
            id: "rt:\(connection.id):\(id)", app: connection.app, channel: channel, subscriberId: connection.clientId, selector: selector,
            position: start)
        let sent = Locked(start)
        let sink = PubSubHub.Sink(
            rt: true,
            deliver: { event in
                guard case .message(let position, let encoding) = event, let data = encoding.rt else { return true }
                if listener.send(encoded: data) { sent.withLock { $0 = position } }
                // A connection that is not reading is closed by the engine; its subscriptions end with it.
                return true
            }, finish: {})
        guard let stream = hub.open(subscription, from: start, sink: sink) else { throw HeraldFault.streamsUnavailable }
        if let resumeKey {
            resume.live(resumeKey, channel: channel, owner: connection.id) { [weak self, weak connection] in
                guard let self, let connection else { return nil }
                return self.stop(id, on: connection, parking: false, handingOver: true)
            }
        }
        // The JS and Swift SDKs wait for it; the Java SDK does not listen for it.
        if !connection.isBinary { connection.socket.emit("[\"SUB_READY\",{\"id\":\(RTListener.string(id))}]") }
        return .messages(channel, stream: stream, subscription: subscription, sent: sent)
    }

    /// Ends a subscription; a message listener's position is parked for a reconnect when `parking`.
    /// Returns where a message listener got to.
    @discardableResult
    private func stop(_ id: String, on connection: RTConnection, parking: Bool, handingOver: Bool = false) -> Int64? {
        guard let kind = connection.subscriptions.withLock({ $0.removeValue(forKey: id) }) else { return nil }
        metrics.rtSubscriptions(type: kind.type, -1)
        let key = RTChannels.Key(app: connection.app, channel: kind.channel)
        switch kind {
        case .connect:
            channels.leave(key, connection: connection.id)
            return nil
        case .commands, .users:
            channels.stopListening(key, .init(connection: connection.id, subscription: id))
            return nil
        case .messages(let channel, let stream, let subscription, let sent):
            hub.close(subscription, id: stream)
            let position = sent.withLock { $0 }
            if !handingOver, let resumeKey = connection.resumeKey(id) {
                if parking {
                    let now = clock.now.milliseconds
                    resume.park(
                        resumeKey, channel: channel, owner: connection.id, position: position,
                        until: now + Int64(pubsub.retentionSeconds * 1000))
                    resume.pruneIfDue(now: now)
                } else {
                    resume.forget(resumeKey, owner: connection.id)
                }
            }
            return position
        }
    }
}
