import HeraldCore

/// The keys a configuration file may hold, and where. A key Herald does not know is refused with the
/// nearest known one (`htttp` → `http`), because a setting that is silently ignored is one an
/// operator believes is in force: `"app": [...]` for `"apps"` would otherwise start with no apps.
///
/// Keys that start with `//` are comments at any level and are skipped whole, so a block can be kept
/// switched off (`"//apns": {...}`).
indirect enum ConfigurationSchema: Sendable {
    /// A string, number or boolean (read as text; the loader converts it and names the key when it cannot).
    case value
    case object([String: ConfigurationSchema])
    case list(of: ConfigurationSchema)

    /// Everything `ConfigurationLoader` reads. Add a key here when the loader learns to read it.
    static let file: ConfigurationSchema = .object([
        "http": .values("host", "port"),
        "database": .values("url", "poolSize", "password", "passwordFile"),
        "sweeper": .values("intervalSeconds", "batchSize"),
        "dispatcher": .values(
            "pageSize", "maxOpenPages", "maxConcurrentMessages", "pollIntervalSeconds",
            "leaseSeconds", "maxAttempts", "maxSlices", "sliceSize"),
        "apps": .list(
            of: .object([
                "id": .value,
                "keys": .list(of: .values("key", "role")),
                "apns": .values(
                    "environment", "topic", "url", "caFile", "teamId", "keyId", "privateKeyFile",
                    "certificateFile", "passphrase", "connections", "streamsPerConnection"),
            ])),
    ])

    static func values(_ names: String...) -> ConfigurationSchema {
        .object(Dictionary(uniqueKeysWithValues: names.map { ($0, .value) }))
    }

    static func isComment(_ key: String) -> Bool { key.hasPrefix("//") }

    /// Checks `document` against this schema; the problem names the key by its path (`apps[0].apns.teamId`).
    /// `null` is accepted anywhere and means "not set".
    func check(_ document: JSONValue, path: String = "") throws(Problem) {
        if case .null = document { return }
        switch (self, document) {
        case (.value, .object), (.value, .array):
            throw Problem("'\(path)' must be a single value, not \(Self.article(document))")
        case (.value, _):
            return
        case (.object(let known), .object(let members)):
            for (key, value) in members.sorted(by: { $0.key < $1.key }) where !Self.isComment(key) {
                let child = path.isEmpty ? key : "\(path).\(key)"
                guard let schema = known[key] else {
                    throw Problem(Self.unknown(key, at: child, known: known.keys.sorted()))
                }
                try schema.check(value, path: child)
            }
        case (.object, _):
            throw Problem("'\(path.isEmpty ? "the file" : path)' must be an object ({…}), not \(Self.article(document))")
        case (.list(let element), .array(let elements)):
            for (index, value) in elements.enumerated() { try element.check(value, path: "\(path)[\(index)]") }
        case (.list, _):
            throw Problem("'\(path)' must be a list ([…]), not \(Self.article(document))")
        }
    }

    /// What is wrong with a file, without the file's name (the loader adds it).
    struct Problem: Error, Equatable {
        let text: String
        init(_ text: String) { self.text = text }
    }

    private static func unknown(_ key: String, at path: String, known: [String]) -> String {
        if let nearest = KeySuggestion.nearest(to: key, among: known) {
            let suggested = path.dropLast(key.count) + nearest
            return "unknown key '\(path)' (did you mean '\(suggested)'?)"
        }
        return "unknown key '\(path)' (known keys there: \(known.joined(separator: ", ")))"
    }

    private static func article(_ value: JSONValue) -> String {
        switch value {
        case .object: "an object"
        case .array: "a list"
        case .string: "a string"
        case .integer, .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

/// The known key a mistyped one most likely meant: the same but for case, one a prefix of the other,
/// or within a small edit distance (about one edit in three characters).
enum KeySuggestion {
    static func nearest(to key: String, among known: [String]) -> String? {
        let typed = Array(key.lowercased())
        var best: (name: String, distance: Int)?
        for name in known {
            let candidate = Array(name.lowercased())
            let distance: Int
            if candidate == typed {
                distance = 0
            } else if min(typed.count, candidate.count) >= 3, candidate.starts(with: typed) || typed.starts(with: candidate) {
                distance = 1
            } else {
                distance = editDistance(typed, candidate)
                guard distance <= max(1, min(typed.count, candidate.count) / 3) else { continue }
            }
            if distance < (best?.distance ?? .max) { best = (name, distance) }
        }
        return best?.name
    }

    /// Edits (insert, delete, substitute, swap two neighbours) from one to the other: a swap counts one,
    /// as typists make them (`prot` → `port`). Keys are short, so the whole table is fine.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
