import HeraldCore
import HeraldCurl

/// The dispatcher's broadcast seam on APNs: a Live Activity event to a broadcast channel of the app's bundle.
extension APNsPushClient: ChannelBroadcasting {
    public func broadcast(_ broadcast: ChannelBroadcast) async -> BroadcastAnswer {
        let request = APNsBroadcast(
            bundleID: topic, channelID: broadcast.channelId, payload: APNsPayload(broadcast.payload),
            storagePolicy: APNsChannelStoragePolicy(rawValue: broadcast.storagePolicy) ?? .noMessageStored,
            priority: APNsPriority(rawValue: broadcast.priority) ?? .powerConsiderate)
        switch await client.broadcast(request) {
        case .sent(_, let uniqueID):
            return .sent(uniqueId: uniqueID)
        case .rejected(let status, let reason, _):
            return .rejected(reason: reason.name, retryable: status == 429 || status >= 500)
        case .failed(let error):
            return .failed("\(error)")
        }
    }
}
