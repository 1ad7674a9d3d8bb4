import Foundation
import HeraldCore

/// The tour's Live Activities part: iPhones in a match channel register their push-to-start tokens, the
/// admin binds an APNs broadcast channel (made at the mock's channel management host) to that channel,
/// and the server starts the match's activity on every phone (one push per token, each carrying the
/// broadcast channel so the activities subscribe to it), updates the score and ends the match with one
/// broadcast request each. The mock APNs checks every payload as a device would.
extension DemoTour {
    static let matchChannel = "match-42"
    static let matchPhones = 20
    static let activityType = "MatchAttributes"

    func liveActivities(_ stack: DemoStack, _ http: DemoHTTP) async throws {
        DemoFormat.say("")
        DemoFormat.say(
            "Live Activities: \(Self.matchPhones) iPhones join '\(Self.matchChannel)' and register a push-to-start token for "
                + "\(Self.activityType) (PUT /demo/$CLIENT_KEY/devices/{deviceId}/activity-start-tokens/\(Self.activityType)).")
        for index in 0..<Self.matchPhones {
            let id = "demo-phone-\(index)"
            try await expectOK(
                http, "POST", "\(DemoStack.appId)/\(stack.clientKey)/messaging/registrations",
                ["deviceToken": RandomHex.make(bytes: 32), "deviceId": id, "os": "IOS", "channels": [Self.matchChannel]])
            try await expectOK(
                http, "PUT", "\(DemoStack.appId)/\(stack.clientKey)/devices/\(id)/activity-start-tokens/\(Self.activityType)",
                ["token": RandomHex.make(bytes: 32)])
        }
        let channel = try await http.call(
            "POST", "\(DemoStack.appId)/\(stack.adminKey)/live-activities/channels",
            json: ["storagePolicy": 0, "channel": Self.matchChannel], as: BroadcastChannel.self)
        DemoFormat.say(
            "Created APNs broadcast channel \(channel.channelId) (no stored message) at the mock's channel management host and "
                + "bound it to '\(Self.matchChannel)' (POST /demo/$ADMIN_KEY/live-activities/channels).")
        let before = stack.providers.liveActivitiesSeen()
        let events: [(name: String, body: [String: Any])] = [
            (
                "start",
                [
                    "event": "start", "attributesType": Self.activityType, "attributes": ["home": "Lyon", "away": "Nantes"],
                    "contentState": ["home": 0, "away": 0], "alert": ["title": "Kick-off", "body": "Lyon v Nantes"],
                ]
            ),
            ("update", ["event": "update", "attributesType": Self.activityType, "contentState": ["home": 1, "away": 0]]),
            (
                "end",
                [
                    "event": "end", "attributesType": Self.activityType, "contentState": ["home": 2, "away": 1],
                    "dismissalDate": Int(Date().timeIntervalSince1970) + 600,
                ]
            ),
        ]
        let watch = DemoWatch(http: http, messaging: "\(DemoStack.appId)/\(stack.serverKey)/messaging", quiet: true)
        for (name, body) in events {
            let at = ContinuousClock.now
            let answer = try await http.call(
                "POST", "\(DemoStack.appId)/\(stack.serverKey)/messaging/\(Self.matchChannel)/live-activity", json: body,
                as: DemoPublication.Published.self)
            var publication = [
                DemoPublication(channel: Self.matchChannel, messageId: answer.messageId, registered: Self.matchPhones, publishedAt: at)
            ]
            try await watch.follow(&publication)
            let deliveries = publication[0].last?.deliveries
            DemoFormat.say(
                "  \(DemoFormat.left(name, 6)) POST /demo/$SERVER_KEY/messaging/\(Self.matchChannel)/live-activity → \(answer.messageId) "
                    + "published in \(DemoFormat.seconds(publication[0].fanOutTime ?? .zero, digits: 2)): "
                    + "\(deliveries?.sent ?? 0) sent, \(deliveries?.failed ?? 0) failed"
                    + (name == "start" ? " (one per push-to-start token)" : " (the channel's one broadcast)"))
        }
        try check(stack.providers.liveActivitiesSeen().since(before), channel: channel.channelId)
    }

    /// The mock must have seen one start per phone, each with the broadcast channel, then exactly one
    /// update and one end on that channel, and no payload a device would drop.
    private func check(_ seen: DemoProviders.LiveActivitiesSeen, channel: String) throws {
        let starts = seen.tokenEvents.filter { $0.event == "start" }
        guard starts.count == Self.matchPhones, seen.tokenEvents.count == Self.matchPhones,
            Set(seen.tokenEvents.map(\.token)).count == Self.matchPhones,
            starts.allSatisfy({ $0.inputPushChannel == channel })
        else {
            throw DemoError(
                "the mock APNs saw \(seen.tokenEvents.count) Live Activity pushes to \(Set(seen.tokenEvents.map(\.token)).count) tokens (\(starts.count) starts, "
                    + "\(starts.filter { $0.inputPushChannel == channel }.count) with the channel); \(Self.matchPhones) starts expected")
        }
        guard seen.broadcasts.map(\.event) == ["update", "end"], seen.broadcasts.allSatisfy({ $0.channel == channel }) else {
            throw DemoError(
                "the mock APNs saw broadcasts \(seen.broadcasts.map(\.event)) where one update and one end on \(channel) were expected")
        }
        guard seen.problems.isEmpty else {
            throw DemoError("a device would drop a Live Activity payload: \(seen.problems.joined(separator: "; "))")
        }
        DemoFormat.say(
            "The mock APNs agrees: \(starts.count) push-to-start notifications to \(starts.count) tokens (POST /3/device/{token}), each "
                + "with input-push-channel \(channel); the update and the end as 1 broadcast request each "
                + "(POST /4/broadcasts/apps/\(DemoProviders.topic)); every payload passed a device's checks.")
    }

    private func expectOK(_ http: DemoHTTP, _ method: String, _ path: String, _ json: [String: Any]) async throws {
        let (status, body) = try await http.send(method, path, json: json)
        guard status == 200 else {
            throw DemoError("\(method) /\(http.redacted(path)) answered \(status): \(String(decoding: body.prefix(300), as: UTF8.self))")
        }
    }

    /// The part of a broadcast channel answer the tour reads.
    struct BroadcastChannel: Decodable {
        let channelId: String
    }
}
