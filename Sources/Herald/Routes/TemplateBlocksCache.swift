import HeraldCore

/// The app's push templates as an SDK reads them, kept for a second: the Java/Android SDK's binary
/// registration answers them with every registration, and reading them from the database each time
/// cost that call a fifth of its rate (BENCHMARKS.md section 35). A change through this instance's admin
/// routes drops the app's entries at once; one made elsewhere (the console, another instance) shows
/// within `lifetime`.
final class TemplateBlocksCache: Sendable {
    static let lifetime = Duration.seconds(1)

    private struct Entry {
        let loaded: ContinuousClock.Instant
        let blocks: [String: JSONValue]
    }

    private let entries = Locked<[String: Entry]>([:])

    /// The cached blocks of `app` for `os`, or `load`'s answer (then kept).
    func blocks(app: String, os: DeviceOS, load: () async throws -> [String: JSONValue]) async throws -> [String: JSONValue] {
        let key = app + "\u{0}" + os.rawValue
        let now = ContinuousClock.now
        if let entry = entries.withLock({ $0[key] }), now - entry.loaded < Self.lifetime { return entry.blocks }
        let blocks = try await load()
        entries.withLock { $0[key] = Entry(loaded: now, blocks: blocks) }
        return blocks
    }

    /// Forgets the app's blocks (its templates changed).
    func invalidate(app: String) {
        let prefix = app + "\u{0}"
        entries.withLock { entries in entries = entries.filter { !$0.key.hasPrefix(prefix) } }
    }
}
