import HeraldCore

/// The app's push templates as the Java/Android SDK's binary registration answers them (JSON text, per
/// platform), kept for a second: that call answers them with every registration, and reading and
/// encoding them each time cost it about a fifth of its rate (BENCHMARKS.md section 36). A change through this instance's admin
/// routes drops the app's entries at once; one made elsewhere (the console, another instance) shows
/// within `lifetime`.
final class TemplateBlocksCache: Sendable {
    static let lifetime = Duration.seconds(1)

    private struct Entry {
        let loaded: ContinuousClock.Instant
        let text: String
    }

    private let entries = Locked<[String: Entry]>([:])

    /// The cached text for `app` and `os`, or `load`'s answer (then kept).
    func text(app: String, os: DeviceOS, load: () async throws -> String) async throws -> String {
        let key = app + "\u{0}" + os.rawValue
        let now = ContinuousClock.now
        if let entry = entries.withLock({ $0[key] }), now - entry.loaded < Self.lifetime { return entry.text }
        let text = try await load()
        entries.withLock { $0[key] = Entry(loaded: now, text: text) }
        return text
    }

    /// Forgets the app's blocks (its templates changed).
    func invalidate(app: String) {
        let prefix = app + "\u{0}"
        entries.withLock { entries in entries = entries.filter { !$0.key.hasPrefix(prefix) } }
    }
}
