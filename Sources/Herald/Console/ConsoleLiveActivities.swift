import HeraldCore
import HeraldStore

/// A device page's "Live Activities" section (issue 51): the push-to-start tokens and the activities the
/// store holds for an iOS device, as the admin route `GET …/devices/{deviceId}/live-activities` lists them.
/// Types and activity ids are the app's own text, so they go in escaped; tokens go in cut short.
extension ConsoleRoutes {
    /// The section for `record`'s device of `app`: its tables for an iOS device, a one-line note otherwise.
    func liveActivitiesSection(app: String, record: DeviceRecord) async throws -> HTML {
        guard record.os == .ios else { return Self.liveActivities(nil, os: record.os) }
        // Nil only when the device went between reading its record and this: shown as having none.
        let found = try await store.liveActivities(app: app, deviceId: record.deviceId, now: clock.now)
        return Self.liveActivities(found ?? DeviceLiveActivities(startTokens: [], activities: []), os: record.os)
    }

    /// The section's markup (a pure function of what the store returned, for the device's `os`).
    static func liveActivities(_ found: DeviceLiveActivities?, os: DeviceOS?) -> HTML {
        guard os == .ios, let found else {
            return """
                <h2>Live Activities</h2>
                <p class="muted">Live Activities are iOS only (ActivityKit, on iPhone and iPad): none for this \(os.map { $0.displayName + " " } ?? "")device.</p>
                """
        }
        let startRows = found.startTokens.map { start -> HTML in
            """
            <tr><td>\(start.attributesType)</td><td><code>\(ConsolePage.shortToken(start.token))</code></td>\
            <td>\(ConsolePage.time(start.updatedAt))</td></tr>
            """
        }
        let activityRows = found.activities.map { activity -> HTML in
            let ended: HTML = activity.endedAt.map { ConsolePage.time($0) } ?? "<span class=\"state state-running\">running</span>"
            return """
                <tr><td><code>\(activity.activityId)</code></td><td>\(activity.attributesType)</td>\
                <td><code>\(ConsolePage.shortToken(activity.token))</code></td><td>\(ConsolePage.time(activity.startedAt))</td>\
                <td>\(ended)</td><td>\(ConsolePage.time(activity.expiresAt))</td></tr>
                """
        }
        let starts = ConsolePage.table(
            caption: "Push-to-start tokens, one per attributes type",
            headers: #"<th scope="col">Attributes type</th><th scope="col">Token</th><th scope="col">Updated</th>"#,
            rows: startRows,
            empty: """
                No push-to-start tokens. The app registers one per ActivityKit attributes type with \
                PUT /{appId}/{apiKey}/devices/{deviceId}/activity-start-tokens/{attributesType} and {"token": "…"}.
                """)
        let activities = ConsolePage.table(
            caption: "Activities, newest start first",
            headers: """
                <th scope="col">Activity id</th><th scope="col">Attributes type</th><th scope="col">Token</th>\
                <th scope="col">Started</th><th scope="col">Ended</th><th scope="col">Shown until</th>
                """,
            rows: activityRows,
            empty: """
                No activities. The app registers each running activity's update token with \
                PUT /{appId}/{apiKey}/devices/{deviceId}/live-activities/{activityId} and {"attributesType": "…", "token": "…"}.
                """)
        return """
            <section class="live-activities">
            <h2>Live Activities</h2>
            \(starts)
            \(activities)
            </section>
            """
    }
}

extension ConsolePage {
    /// A Live Activity token cut short: its first 8 characters and an ellipsis (a token too short to cut
    /// shows as dots), so a page never holds a whole token.
    static func shortToken(_ token: String) -> String {
        token.count <= 12 ? String(repeating: "•", count: token.count) : "\(token.prefix(8))…"
    }
}
