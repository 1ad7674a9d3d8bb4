import HeraldCore

/// Who is in each channel on this instance, and who listens for its commands and its members: the
/// presence (`PUB_SUB_USERS`) and commands (`PUB_SUB_COMMANDS`) of Backendless RT. They live in this
/// process: members and commands of another instance are not seen (messages are, through the feeds).
final class RTChannels: Sendable {
    struct Key: Hashable {
        let app: String
        let channel: ChannelName
    }

    /// One listener of a connection: its connection's id and the subscription's.
    struct ListenerKey: Hashable {
        let connection: String
        let subscription: String
    }

    private struct Channel {
        /// Connection id → how many of its `PUB_SUB_CONNECT` subscriptions are live, and its user.
        var members: [String: (joins: Int, userId: String?)] = [:]
        var commands: [ListenerKey: RTListener] = [:]
        var users: [ListenerKey: RTListener] = [:]

        var isEmpty: Bool { members.isEmpty && commands.isEmpty && users.isEmpty }
    }

    private let channels = Locked([Key: Channel]())

    /// A connection joins; its presence is announced (`CONNECTED`) when it was not in the channel yet.
    func join(_ key: Key, connection: String, userId: String?) {
        let listeners: [RTListener] = channels.withLock { channels in
            var channel = channels[key] ?? Channel()
            let joins = channel.members[connection]?.joins ?? 0
            channel.members[connection] = (joins + 1, userId)
            channels[key] = channel
            return joins == 0 ? Array(channel.users.values) : []
        }
        announce("CONNECTED", connection: connection, userId: userId, to: listeners)
    }

    /// A connection leaves (one of its joins ends, or all of them when it closes): `DISCONNECTED` once it
    /// has no join left.
    func leave(_ key: Key, connection: String, all: Bool = false) {
        let (listeners, userId): ([RTListener], String?) = channels.withLock { channels in
            guard var channel = channels[key], let member = channel.members[connection] else { return ([], nil) }
            if member.joins > 1 && !all {
                channel.members[connection] = (member.joins - 1, member.userId)
                channels[key] = channel
                return ([], nil)
            }
            channel.members[connection] = nil
            channels[key] = channel.isEmpty ? nil : channel
            return (Array(channel.users.values), member.userId)
        }
        announce("DISCONNECTED", connection: connection, userId: userId, to: listeners)
    }

    /// A member's user changed (`SET_USER_TOKEN`): `USERUPDATE` in each channel it is in.
    func updateUser(app: String, connection: String, userId: String?) {
        let updates: [[RTListener]] = channels.withLock { channels in
            var updates: [[RTListener]] = []
            for (key, var channel) in channels where key.app == app {
                guard let member = channel.members[connection] else { continue }
                channel.members[connection] = (member.joins, userId)
                channels[key] = channel
                updates.append(Array(channel.users.values))
            }
            return updates
        }
        for listeners in updates { announce("USERUPDATE", connection: connection, userId: userId, to: listeners) }
    }

    /// Adds a presence listener and sends it the members (`LISTING`).
    func listenUsers(_ key: Key, _ listener: ListenerKey, _ output: RTListener) {
        let members: [JSONValue] = channels.withLock { channels in
            var channel = channels[key] ?? Channel()
            channel.users[listener] = output
            channels[key] = channel
            return channel.members.sorted { $0.key < $1.key }.map { Self.member($0.key, $0.value.userId) }
        }
        output.send(.object(["status": .string("LISTING"), "data": .array(members)]))
    }

    func listenCommands(_ key: Key, _ listener: ListenerKey, _ output: RTListener) {
        channels.withLock { channels in
            var channel = channels[key] ?? Channel()
            channel.commands[listener] = output
            channels[key] = channel
        }
    }

    /// Removes a presence or command listener.
    func stopListening(_ key: Key, _ listener: ListenerKey) {
        channels.withLock { channels in
            guard var channel = channels[key] else { return }
            channel.users[listener] = nil
            channel.commands[listener] = nil
            channels[key] = channel.isEmpty ? nil : channel
        }
    }

    /// Sends a command to every command listener of the channel, the sender's own included; returns how
    /// many it reached.
    @discardableResult
    func command(_ key: Key, type: JSONValue, data: JSONValue, connection: String, userId: String?) -> Int {
        let listeners = channels.withLock { Array(($0[key]?.commands ?? [:]).values) }
        let payload = SortedJSON.text(
            JSONValue.object([
                "type": type, "data": data, "connectionId": .string(connection), "userId": userId.map(JSONValue.string) ?? .null,
            ]))
        return listeners.reduce(0) { $0 + ($1.send(payload) ? 1 : 0) }
    }

    /// Members and listeners of each of an app's channels on this instance (for the console).
    func counts(app: String) -> [ChannelName: (members: Int, listeners: Int)] {
        channels.withLock { channels in
            var counts: [ChannelName: (members: Int, listeners: Int)] = [:]
            for (key, channel) in channels where key.app == app {
                counts[key.channel] = (channel.members.count, channel.commands.count + channel.users.count)
            }
            return counts
        }
    }

    private func announce(_ status: String, connection: String, userId: String?, to listeners: [RTListener]) {
        guard !listeners.isEmpty else { return }
        let payload = SortedJSON.text(JSONValue.object(["status": .string(status), "data": .array([Self.member(connection, userId)])]))
        for listener in listeners { listener.send(payload) }
    }

    private static func member(_ connection: String, _ userId: String?) -> JSONValue {
        .object(["connectionId": .string(connection), "userId": userId.map(JSONValue.string) ?? .null])
    }
}
