/// The recursive-descent parser of `MessageSelector`'s grammar, over the selector's characters; every
/// error names the 1-based position of the character (or the end) where the selector breaks.
struct SelectorParser {
    private let characters: [Character]
    private var index = 0
    private var depth = 0

    init(_ text: String) { characters = Array(text) }

    /// The whole text as one condition; anything left after it is an error.
    mutating func parseAll() throws(SelectorError) -> Condition {
        skipSpaces()
        guard index < characters.count else { throw SelectorError(position: 1, "is empty") }
        let condition = try parseOr()
        skipSpaces()
        guard index == characters.count else { throw error("expects AND, OR or the end, not '\(rest)'") }
        return condition
    }

    // MARK: conditions

    private mutating func parseOr() throws(SelectorError) -> Condition {
        var condition = try parseAnd()
        while keyword("OR") { condition = .or(condition, try parseAnd()) }
        return condition
    }

    private mutating func parseAnd() throws(SelectorError) -> Condition {
        var condition = try parseNot()
        while keyword("AND") { condition = .and(condition, try parseNot()) }
        return condition
    }

    private mutating func parseNot() throws(SelectorError) -> Condition {
        depth += 1
        defer { depth -= 1 }
        guard depth <= MessageSelector.maxDepth else { throw error("nests deeper than \(MessageSelector.maxDepth) levels") }
        if keyword("NOT") { return .not(try parseNot()) }
        skipSpaces()
        if peek == "(" {
            index += 1
            let inner = try parseOr()
            try expect(")")
            return inner
        }
        return try parsePredicate(try parseValue())
    }

    private mutating func parsePredicate(_ value: SelectorValue) throws(SelectorError) -> Condition {
        skipSpaces()
        if let comparison = comparison() { return .compare(value, comparison, try parseValue()) }
        if keyword("IS") {
            let negated = keyword("NOT")
            guard keyword("NULL") else { throw error("expects NULL after IS") }
            return .isNull(value, negated: negated)
        }
        let negated = keyword("NOT")
        if keyword("LIKE") { return try parseLike(value, negated: negated) }
        if keyword("IN") { return try parseIn(value, negated: negated) }
        if keyword("BETWEEN") {
            let low = try parseValue()
            guard keyword("AND") else { throw error("expects AND in BETWEEN … AND …") }
            return .between(value, low, try parseValue(), negated: negated)
        }
        throw error(
            negated
                ? "expects LIKE, IN or BETWEEN after NOT"
                : "expects a comparison (=, <>, <, <=, >, >=, LIKE, IN, BETWEEN or IS NULL)\(atEnd ? "" : ", not '\(rest)'")")
    }

    private mutating func parseLike(_ value: SelectorValue, negated: Bool) throws(SelectorError) -> Condition {
        skipSpaces()
        let start = index
        guard case .text(let pattern)? = try literal() else {
            index = start
            throw error("expects a quoted pattern after LIKE")
        }
        var escape: Character?
        if keyword("ESCAPE") {
            skipSpaces()
            let at = index
            guard case .text(let text)? = try literal(), text.count == 1 else {
                index = at
                throw error("expects one quoted character after ESCAPE")
            }
            escape = text.first
        }
        var tokens: [Condition.LikeToken] = []
        var escaped = false
        for character in pattern {
            if escaped {
                tokens.append(.character(character))
                escaped = false
            } else if character == escape {
                escaped = true
            } else {
                tokens.append(character == "%" ? .any : character == "_" ? .one : .character(character))
            }
        }
        if escaped { throw SelectorError(position: start + 1, "pattern ends with its escape character") }
        return .like(value, pattern: tokens, negated: negated)
    }

    private mutating func parseIn(_ value: SelectorValue, negated: Bool) throws(SelectorError) -> Condition {
        try expect("(")
        var list: [SelectorValue.Literal] = []
        repeat {
            skipSpaces()
            guard let item = try literal() else { throw error("expects a quoted string, a number, TRUE or FALSE in the IN list") }
            list.append(item)
            guard list.count <= MessageSelector.maxListLength else {
                throw error("has more than \(MessageSelector.maxListLength) values in one IN list")
            }
            skipSpaces()
        } while consume(",")
        try expect(")")
        return .in(value, list, negated: negated)
    }

    // MARK: values

    private mutating func parseValue() throws(SelectorError) -> SelectorValue {
        skipSpaces()
        if let literal = try literal() { return .literal(literal) }
        if let name = try header() { return .header(name) }
        throw error(atEnd ? "ends where a header name or a value is expected" : "expects a header name or a value, not '\(rest)'")
    }

    /// A quoted string, a number, TRUE or FALSE; nil (nothing consumed) when none starts here.
    private mutating func literal() throws(SelectorError) -> SelectorValue.Literal? {
        guard let first = peek else { return nil }
        if first == "'" {
            let start = index
            index += 1
            var text = ""
            while true {
                guard let character = peek else { throw SelectorError(position: start + 1, "has a string that is never closed") }
                index += 1
                if character == "'" {
                    guard peek == "'" else { break }
                    index += 1
                }
                text.append(character)
            }
            return .text(text)
        }
        if first.isNumber || ((first == "-" || first == "+" || first == ".") && next?.isNumber == true) {
            let start = index
            index += 1
            while let character = peek,
                character.isNumber || character == "." || character == "e" || character == "E"
                    || ((character == "-" || character == "+") && (characters[index - 1] == "e" || characters[index - 1] == "E"))
            {
                index += 1
            }
            let text = String(characters[start..<index])
            guard let number = Double(text), number.isFinite else {
                throw SelectorError(position: start + 1, "has '\(text)', which is not a number")
            }
            return .number(number)
        }
        if keyword("TRUE") { return .boolean(true) }
        if keyword("FALSE") { return .boolean(false) }
        return nil
    }

    /// A header name, bare or in double quotes; nil (nothing consumed) when none starts here. A keyword
    /// is not a header name (`"and"` in quotes is).
    private mutating func header() throws(SelectorError) -> String? {
        guard let first = peek else { return nil }
        if first == "\"" {
            let start = index
            index += 1
            var name = ""
            while let character = peek, character != "\"" {
                name.append(character)
                index += 1
            }
            guard peek == "\"" else { throw SelectorError(position: start + 1, "has a quoted header name that is never closed") }
            index += 1
            guard !name.isEmpty else { throw SelectorError(position: start + 1, "has an empty header name") }
            return name
        }
        guard first.isLetter || first == "_" || first == "$" else { return nil }
        var end = index
        while end < characters.count, Self.isNameCharacter(characters[end]) { end += 1 }
        let name = String(characters[index..<end])
        guard !Self.keywords.contains(name.uppercased()) else { return nil }
        index = end
        return name
    }

    private static let keywords: Set<String> = ["AND", "OR", "NOT", "LIKE", "IN", "BETWEEN", "IS", "NULL", "ESCAPE", "TRUE", "FALSE"]

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "$" || character == "." || character == "-"
    }

    // MARK: characters

    private var peek: Character? { index < characters.count ? characters[index] : nil }
    private var next: Character? { index + 1 < characters.count ? characters[index + 1] : nil }
    private var atEnd: Bool { index >= characters.count }
    /// What is left from here, shortened for a message.
    private var rest: String {
        let tail = characters[index...].prefix(20)
        return String(tail) + (characters.count - index > 20 ? "…" : "")
    }

    private mutating func skipSpaces() {
        while let character = peek, character.isWhitespace { index += 1 }
    }

    private func error(_ message: String) -> SelectorError {
        SelectorError(position: min(index, characters.count) + 1, message)
    }

    /// Consumes `keyword` (any case) when it stands here as a whole word.
    private mutating func keyword(_ word: String) -> Bool {
        skipSpaces()
        let end = index + word.count
        guard end <= characters.count, String(characters[index..<end]).uppercased() == word else { return false }
        if end < characters.count, Self.isNameCharacter(characters[end]) { return false }
        index = end
        return true
    }

    private mutating func consume(_ character: Character) -> Bool {
        skipSpaces()
        guard peek == character else { return false }
        index += 1
        return true
    }

    private mutating func expect(_ character: Character) throws(SelectorError) {
        guard consume(character) else {
            throw error(atEnd ? "ends where '\(character)' is expected" : "expects '\(character)', not '\(rest)'")
        }
    }

    private mutating func comparison() -> Condition.Comparison? {
        skipSpaces()
        for (symbol, comparison) in Self.comparisons where characters[index...].starts(with: symbol) {
            index += symbol.count
            return comparison
        }
        return nil
    }

    /// Longest first, so `<=` is not read as `<`.
    private static let comparisons: [(String, Condition.Comparison)] = [
        ("<>", .notEqual), ("!=", .notEqual), ("<=", .lessOrEqual), (">=", .greaterOrEqual), ("=", .equal), ("<", .less),
        (">", .greater),
    ]
}
