import HeraldCharts
import HeraldCore

/// A device's recent history at a glance on its page: its newest deliveries (sent, failed, token removed or
/// deactivated) and launches on one time axis, a lane and a shape for each, above the tables that keep the
/// numbers. Drawn from what the page reads already; no query of its own.
extension ConsoleRoutes {
    static let timelineLanes = [
        Timeline.Lane(key: "sent", label: "Sent", mark: .circle, colour: "#1e7d3a"),
        Timeline.Lane(key: "failed", label: "Failed", mark: .cross, colour: "#b3261e"),
        Timeline.Lane(key: "removed", label: "Token off", mark: .square, colour: "#1c2430"),
        Timeline.Lane(key: "launch", label: "Launches", mark: .diamond, colour: "#1f5fbf"),
    ]

    /// The lane of a delivery's outcome.
    static func lane(_ outcome: String) -> Int {
        switch outcome {
        case "sent": 0
        case "tokenRemoved", "tokenDeactivated": 2
        default: 1
        }
    }

    static func deviceTimeline(_ deviceId: String, deliveries: [DeliveryEntry], launches: [LaunchEntry]) -> HTML {
        let times = deliveries.map(\.deliveredAt.milliseconds) + launches.map(\.launchedAt.milliseconds)
        guard let earliest = times.min(), let latest = times.max() else { return "" }
        // At least a minute wide, so events close together are not all at one end.
        let pad = max(0, 60_000 - (latest - earliest)) / 2
        let range = Double(earliest - pad)...Double(latest + pad)
        let events =
            deliveries.map { entry in
                Timeline.Event(
                    lane: lane(entry.outcome), at: Double(entry.deliveredAt.milliseconds),
                    label:
                        "\(UTCText(entry.deliveredAt).full): \(entry.outcome)\(entry.reason.map { " (\($0))" } ?? ""), \(entry.messageId)"
                )
            }
            + launches.map { launch in
                Timeline.Event(
                    lane: 3, at: Double(launch.launchedAt.milliseconds),
                    label: "\(UTCText(launch.launchedAt).full): launched\(launch.appVersion.map { ", version \($0)" } ?? "")")
            }
        let counts = timelineLanes.indices.map { lane in events.filter { $0.lane == lane }.count }
        let first = Timestamp(milliseconds: earliest)
        let last = Timestamp(milliseconds: latest)
        let summary =
            "From \(UTCText(first).full) to \(UTCText(last).full): \(counts[0]) sent, \(counts[1]) failed, "
            + "\(counts[2]) with the token removed or the device switched off, \(counts[3]) launches."
        let timeline = Timeline(
            id: "device-timeline", title: "The newest deliveries and launches of \(deviceId)", summary: summary, lanes: timelineLanes,
            events: events, range: range,
            axisLabels: Self.timelineAxis(range))
        return """
            <h2>History at a glance</h2>
            <figure class="timeline">
            \(HTML(trusted: timeline.svg()))
            <figcaption>\(summary) Times in UTC; the tables below list each one.</figcaption>
            </figure>
            """
    }

    /// The axis's labels: its two ends and its middle, as precise as its span needs ("14:05:09" within an
    /// hour, "7 Dec 14:05" within a few days, "7 Dec" beyond).
    static func timelineAxis(_ range: ClosedRange<Double>) -> [(at: Double, text: String)] {
        let span = range.upperBound - range.lowerBound
        return [range.lowerBound, (range.lowerBound + range.upperBound) / 2, range.upperBound].map { at in
            let time = UTCText(Timestamp(milliseconds: Int64(at)))
            let text = span <= 3_600_000 ? time.clockSeconds : span <= 4 * 86_400_000 ? "\(time.date) \(time.clock)" : time.date
            return (at, text)
        }
    }
}
