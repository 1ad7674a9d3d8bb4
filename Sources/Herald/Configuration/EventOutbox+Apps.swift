import HeraldStore

extension EventOutbox {
    /// The apps of `apps` that have a webhook: changes in them write events.
    public static func forApps(_ apps: [AppConfiguration]) -> EventOutbox {
        EventOutbox(apps: Set(apps.filter { $0.webhook != nil }.map(\.id)))
    }
}
