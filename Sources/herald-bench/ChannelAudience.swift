import HeraldCore
import HeraldStore
import SQLKit

/// The devices a fan-out of a populated channel must reach, by provider: active devices with a live
/// registration in the channel (the recipients Herald pages through), read from the database before
/// herald starts, so `publish` knows when the mocks have accepted the whole channel.
struct ChannelAudience: Sendable {
    /// IOS and OSX devices: sent through APNs.
    var apple: Int
    /// ANDROID devices: sent through FCM when the app has an `fcm` block, skipped otherwise.
    var android: Int

    static func read(_ database: DatabaseOption, app: String, channel: String) async throws -> ChannelAudience {
        let now = SystemClock().now.milliseconds
        let counts = try await withBackend(database) { backend in
            try await backend.read { db in
                try await db.raw(
                    """
                    SELECT d.os AS os, COUNT(*) AS n
                    FROM registrations r JOIN devices d ON d.id = r.device_id JOIN channels c ON c.id = r.channel_id
                    WHERE c.app_id = \(bind: app) AND c.name = \(bind: channel) AND d.is_active = \(bind: true)
                      AND (r.expires_at IS NULL OR r.expires_at > \(bind: now))
                    GROUP BY d.os
                    """
                ).all().map { (try $0.decode(column: "os", as: String.self), try $0.decode(column: "n", as: Int.self)) }
            }
        }
        var audience = ChannelAudience(apple: 0, android: 0)
        for (os, count) in counts {
            switch os {
            case "IOS", "OSX": audience.apple += count
            case "ANDROID": audience.android += count
            default: break
            }
        }
        return audience
    }
}
