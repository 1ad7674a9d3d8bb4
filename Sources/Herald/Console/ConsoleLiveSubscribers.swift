import HeraldCore

/// Who listens to each of an app's channels live on this instance, for the Channels page: streams of
/// REST subscriptions (Server-Sent Events, WebSocket), and Backendless RT's message listeners, members
/// (connections that joined) and command and presence listeners.
struct ConsoleLiveSubscribers: Sendable {
    struct Counts: Sendable, Equatable {
        var streams = 0
        var rtListeners = 0
        var rtMembers = 0
        var rtOthers = 0
    }

    let counts: @Sendable (String) -> [ChannelName: Counts]

    init(hub: PubSubHub, rt: BackendlessRT?) {
        counts = { app in
            var counts: [ChannelName: Counts] = [:]
            for (channel, open) in hub.streamCounts(app: app) {
                counts[channel, default: Counts()].streams = open.streams
                counts[channel, default: Counts()].rtListeners = open.rt
            }
            for (channel, rtCounts) in rt?.channels.counts(app: app) ?? [:] {
                counts[channel, default: Counts()].rtMembers = rtCounts.members
                counts[channel, default: Counts()].rtOthers = rtCounts.listeners
            }
            return counts
        }
    }
}

extension ConsoleRoutes {
    /// The table of live subscribers under the channels (nothing when no one listens).
    func liveTable(app: String) -> HTML {
        guard let live else { return "" }
        let counts = live.counts(app).sorted { $0.key < $1.key }.prefix(Self.pageSize)
        let rows = counts.map { channel, count -> HTML in
            """
            <tr><td>\(channel.rawValue)</td><td class="number">\(Int64(count.rtListeners).grouped)</td>
            <td class="number">\(Int64(count.rtMembers).grouped)</td><td class="number">\(Int64(count.rtOthers).grouped)</td>
            <td class="number">\(Int64(count.streams).grouped)</td></tr>
            """
        }
        return "<h2>Live subscribers</h2>"
            + ConsolePage.table(
                caption: "Subscribers connected to this instance now, by channel",
                headers: """
                    <th scope="col">Channel</th><th scope="col" class="number">RT message listeners</th>
                    <th scope="col" class="number">RT members</th><th scope="col" class="number">RT command and presence listeners</th>
                    <th scope="col" class="number">Streams (SSE, WebSocket)</th>
                    """,
                rows: Array(rows),
                empty:
                    "No live subscribers on this instance. Apps on the Backendless SDKs subscribe with Messaging.subscribe (docs/pubsub.md); any client can stream a subscription."
            )
    }
}
