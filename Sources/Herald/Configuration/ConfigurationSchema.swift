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
    /// Known keys, and those an entry must have (an app without `id`, a key without `role`).
    case object([String: ConfigurationSchema], required: Set<String> = [])
    /// Every element must be there: a `null` in a list would make the loader stop reading at it.
    case list(of: ConfigurationSchema)

    /// Everything `ConfigurationLoader` reads, from the blocks' declarations (`ConfigurationDeclarations`
    /// for Herald's own, `ConfigurationLoader.appBlocks` for the modules'); only the apps' `id` and `keys`
    /// are stated here.
    static let file: ConfigurationSchema = {
        var apps: [String: ConfigurationSchema] = [
            "id": .value,
            "keys": .list(of: .object(["key": .value, "role": .value], required: ["key", "role"])),
        ]
        for (key, settings) in ConfigurationDeclarations.appBlocks { apps[key] = block(settings) }
        for module in ConfigurationLoader.appBlocks { apps[module.key] = block(module.settings) }
        var root = Dictionary(uniqueKeysWithValues: ConfigurationDeclarations.blocks.map { ($0.key, block($0.settings)) })
        root["apps"] = .list(of: .object(apps, required: ["id", "keys"]))
        return .object(root)
    }()

    /// A block of declared settings: a list setting holds values, any other is one value.
    static func block(_ settings: [Setting]) -> ConfigurationSchema {
        .object(Dictionary(uniqueKeysWithValues: settings.map { ($0.key, $0.kind == .list ? .list(of: .value) : .value) }))
    }

    /// A comment (`//…`), or the file's `$schema` (which an editor reads; `herald schema` writes it).
    static func isComment(_ key: String) -> Bool { key.hasPrefix("//") || key == "$schema" }

    /// `HERALD_*` variables that are not settings: read by the build,
    /// the tests and the benchmarks.
    static let otherEnvironmentVariables: Set<String> = ["HERALD_WARNINGS_AS_ERRORS"]
    static let otherEnvironmentPrefixes = ["HERALD_TEST_", "HERALD_BENCH"]

    /// Refuses a `HERALD_*` variable that names no setting (`HERALD_HTTP_PROT`): like an unknown key in
    /// the file, it would otherwise be ignored while the operator believes it is in force.
    func checkEnvironment(_ environment: [String: String]) throws(Problem) {
        let known = environmentNames(prefix: "HERALD")
        for name in environment.keys.sorted() where name.hasPrefix("HERALD_") {
            guard !Self.otherEnvironmentVariables.contains(name),
                !Self.otherEnvironmentPrefixes.contains(where: { name.hasPrefix($0) })
            else { continue }
            // List indices are numbers: HERALD_APPS_0_KEYS_1_ROLE is HERALD_APPS_N_KEYS_N_ROLE.
            let shape = name.split(separator: "_", omittingEmptySubsequences: false)
                .map { $0.allSatisfy(\.isNumber) && !$0.isEmpty ? "N" : String($0) }.joined(separator: "_")
            guard !known.contains(shape) else { continue }
            let hint = KeySuggestion.nearest(to: shape, among: known.sorted()).map { " (did you mean \($0)?)" } ?? ""
            throw Problem("environment variable \(name) is not a Herald setting\(hint)")
        }
    }

    /// Every setting's environment name: the path in upper case, words and levels joined by `_`
    /// (`sweeper.intervalSeconds` → `HERALD_SWEEPER_INTERVAL_SECONDS`), `N` for a list index.
    func environmentNames(prefix: String) -> Set<String> {
        switch self {
        case .value: return [prefix]
        case .list(let element): return element.environmentNames(prefix: prefix + "_N")
        case .object(let known, _):
            var names: Set<String> = []
            for (key, schema) in known { names.formUnion(schema.environmentNames(prefix: prefix + "_" + Self.upperSnake(key))) }
            return names
        }
    }

    /// `intervalSeconds` → `INTERVAL_SECONDS`, `publicURL` → `PUBLIC_URL`, as swift-configuration spells
    /// environment names: a word starts at an upper-case letter that follows a lower-case one.
    static func upperSnake(_ key: String) -> String {
        var result = ""
        var previous: Character?
        for character in key {
            if character.isUppercase, previous?.isLowercase == true { result += "_" }
            result += character.uppercased()
            previous = character
        }
        return result
    }

    /// Checks `document` against this schema; the problem names the key by its path (`apps[0].apns.teamId`).
    /// `null` means "not set", for a key; a list element must not be null.
    func check(_ document: JSONValue, path: String = "") throws(Problem) {
        if case .null = document { return }
        switch (self, document) {
        case (.value, .object), (.value, .array):
            throw Problem("'\(path)' must be a single value, not \(Self.article(document))")
        case (.value, _):
            return
        case (.object(let known, let required), .object(let members)):
            for (key, value) in members.sorted(by: { $0.key < $1.key }) where !Self.isComment(key) {
                let child = path.isEmpty ? key : "\(path).\(key)"
                guard let schema = known[key] else {
                    throw Problem(Self.unknown(key, at: child, known: known.keys.sorted()))
                }
                try schema.check(value, path: child)
            }
            // After the unknown keys: `roles` for `role` is a typo to name, not a missing role.
            for key in required.sorted() where members[key] == nil || members[key] == .null {
                throw Problem("'\(path)' has no '\(key)'")
            }
        case (.object, _):
            throw Problem("'\(path.isEmpty ? "the file" : path)' must be an object ({…}), not \(Self.article(document))")
        case (.list(let element), .array(let elements)):
            for (index, value) in elements.enumerated() {
                if case .null = value { throw Problem("'\(path)[\(index)]' is null; leave it out of the list instead") }
                try element.check(value, path: "\(path)[\(index)]")
            }
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
public enum KeySuggestion {
    public static func nearest(to key: String, among known: [String]) -> String? {
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
