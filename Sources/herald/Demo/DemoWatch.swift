/// Follows the published messages through Herald's status route, as a publisher would, printing a
/// progress line per poll until every message is published. A message that fails or is cancelled, or
/// a fan-out that takes longer than `timeout`, stops the demo.
struct DemoWatch {
    let http: DemoHTTP
    /// `{appId}/{serverKey}/messaging`
    let messaging: String
    var interval = Duration.milliseconds(250)
    var timeout = Duration.seconds(60)
    /// Without the progress lines (a message too small to watch).
    var quiet = false

    func follow(_ publications: inout [DemoPublication]) async throws {
        guard let start = publications.map(\.publishedAt).min() else { return }
        while publications.contains(where: { $0.finishedAt == nil }) {
            try await Task.sleep(for: interval)
            for index in publications.indices where publications[index].finishedAt == nil {
                let status = try await http.call("GET", "\(messaging)/\(publications[index].messageId)", as: DemoPublication.Status.self)
                publications[index].last = status
                switch status.status {
                case "published": publications[index].finishedAt = .now
                case "scheduled": break
                default:
                    throw DemoError(
                        "the message to '\(publications[index].channel)' ended \(status.status): \(status.errorMessage ?? "no reason given")"
                    )
                }
            }
            let elapsed = ContinuousClock.now - start
            if !quiet { DemoFormat.say(line(publications, elapsed: elapsed)) }
            if elapsed > timeout { throw DemoError("the fan-out did not finish within \(timeout)") }
        }
    }

    /// "  0.50 s  news 2,500/5,000  sports …  → 4,000 done, 8,000/s"; done = sent + failed, of the devices registered.
    private func line(_ publications: [DemoPublication], elapsed: Duration) -> String {
        let channels = publications.map { publication in
            let mark = publication.finishedAt == nil ? " " : "✓"
            return
                "\(publication.channel) \(DemoFormat.right(DemoFormat.count(publication.done), 6))/\(DemoFormat.count(publication.registered))\(mark)"
        }
        let done = publications.reduce(0) { $0 + $1.done }
        return "  \(DemoFormat.right(DemoFormat.seconds(elapsed, digits: 2), 7))  \(channels.joined(separator: "  "))"
            + "  → \(DemoFormat.right(DemoFormat.count(done), 6)) done, \(DemoFormat.rate(done, over: elapsed))/s"
    }
}
