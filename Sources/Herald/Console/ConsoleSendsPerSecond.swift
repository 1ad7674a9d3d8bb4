import HeraldCharts
import HeraldCore
import HeraldStore

/// A finished message's sends per second (`MessageStore.sendsPerSecond`, from its checkpoints) as a
/// sparkline on its page, with the same in words: the peak and average rate and how long it took.
extension ConsoleRoutes {
    /// Sends and failures per second from the first second with any to the last, the seconds without any as 0
    /// (at most the last day's: a message repeating for weeks keeps its sparkline small).
    static func perSecond(_ seconds: [MessageSecond]) -> [Int64] {
        guard let last = seconds.last else { return [] }
        let seconds = seconds.filter { $0.at.milliseconds > last.at.milliseconds - 86_400_000 }
        guard let first = seconds.first else { return [] }
        let start = first.at.milliseconds / 1000
        var values = Array(repeating: Int64(0), count: Int(last.at.milliseconds / 1000 - start) + 1)
        for second in seconds { values[Int(second.at.milliseconds / 1000 - start)] += second.sent + second.failed }
        return values
    }

    /// The peak and average rate and the duration, in words; the peak's time as `when` writes it.
    static func rateSummary(_ values: [Int64], when: String) -> String {
        let total = values.reduce(0, +)
        let peak = values.max() ?? 0
        let average = values.isEmpty ? 0 : Double(total) / Double(values.count)
        return "\(total.grouped) sends in \(FanOutPace.duration(Double(values.count))): peak \(peak.grouped)/s at \(when), "
            + "average \(FanOutPace.rateText(average))/s."
    }

    func sendsPerSecondFigure(_ message: StoredMessage) async throws -> HTML {
        let seconds = try await messages.sendsPerSecond(app: message.app, messageId: message.id)
        let values = Self.perSecond(seconds)
        guard !values.isEmpty, let last = seconds.last,
            let first = seconds.first(where: { $0.at.milliseconds > last.at.milliseconds - 86_400_000 })
        else {
            return """
                <h2>Sends per second</h2>
                <p class="empty" id="sends-per-second">No sends were counted per second for this message (it sent nothing, or was
                sent before Herald counted them).</p>
                """
        }
        let peakIndex = values.firstIndex(of: values.max() ?? 0) ?? 0
        let peakAt = Timestamp(milliseconds: (first.at.milliseconds / 1000 + Int64(peakIndex)) * 1000)
        let summary = Self.rateSummary(values, when: "\(UTCText(peakAt).clockSeconds) UTC")
        let line = Sparkline(
            id: "sends-\(message.id)", values: values.map(Double.init), label: "Sends per second. \(summary)", width: 320, height: 48)
        return """
            <h2>Sends per second</h2>
            <figure class="spark" id="sends-per-second">
            \(HTML(trusted: line.svg()))
            <figcaption>\(HTML(trusted: Self.rateSummary(values, when: ConsolePage.time(peakAt).text)))
            From \(ConsolePage.time(first.at)) to \(ConsolePage.time(last.at)).</figcaption>
            </figure>
            """
    }
}
