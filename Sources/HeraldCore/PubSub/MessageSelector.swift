import Foundation

/// A subscription's `selector`: an SQL-92 style condition on a published message's headers, as
/// Backendless takes it (the form of JMS message selectors): `city = 'Tokyo' AND (priority > 3 OR
/// urgent = 'true')`. Parsed once, at subscribe time, by a recursive-descent parser that refuses a bad
/// selector with the position where it breaks; evaluated against each message's headers.
///
/// Grammar (keywords in any case):
///
///     condition := and ("OR" and)*
///     and       := not ("AND" not)*
///     not       := "NOT" not | "(" condition ")" | value predicate
///     predicate := ("=" | "<>" | "!=" | "<" | "<=" | ">" | ">=") value
///                | ["NOT"] "LIKE" string ["ESCAPE" string]
///                | ["NOT"] "IN" "(" literal ("," literal)* ")"
///                | ["NOT"] "BETWEEN" value "AND" value
///                | "IS" ["NOT"] "NULL"
///     value     := header | literal
///     literal   := 'string' ('' inside is a quote) | number | TRUE | FALSE
///     header    := a name of letters, digits, _ $ . - (not starting with a digit), or "any name"
///
/// Evaluation follows SQL's three-valued logic: a header the message does not have is NULL, and a
/// comparison with NULL is neither true nor false (so `NOT (a = 'x')` does not match a message without
/// `a`); a message is delivered only when the whole condition is true. A number literal compares with
/// a header's text read as a number (`priority > 3`); text compares with text as text.
public struct MessageSelector: Sendable, Equatable, CustomStringConvertible {
    /// The selector as given.
    public let text: String
    let condition: Condition

    /// Limits, so a subscription cannot make every publish expensive.
    public static let maxLength = 2048
    static let maxDepth = 32
    static let maxListLength = 256

    public init(parsing text: String) throws(SelectorError) {
        guard text.count <= Self.maxLength else {
            throw SelectorError(position: Self.maxLength + 1, "is longer than \(Self.maxLength) characters")
        }
        var parser = SelectorParser(text)
        condition = try parser.parseAll()
        self.text = text
    }

    private init(text: String, condition: Condition) {
        self.text = text
        self.condition = condition
    }

    /// A selector that takes no message: for one stored by another build that this one cannot parse,
    /// so that subscription gets nothing rather than everything.
    public static let nothing = MessageSelector(text: "FALSE", condition: .isNull(.literal(.boolean(false)), negated: false))

    /// Whether a message with these headers is delivered to the subscription.
    public func matches(_ headers: [String: String]) -> Bool { condition.evaluate(headers) == true }

    public var description: String { text }
}

/// Why a selector was refused: what was expected, and where (1-based, in characters).
public struct SelectorError: Error, Sendable, Equatable, CustomStringConvertible {
    public let position: Int
    public let message: String

    init(position: Int, _ message: String) {
        self.position = position
        self.message = message
    }

    public var description: String { "selector \(message) at position \(position)" }
}

/// A parsed condition.
indirect enum Condition: Sendable, Equatable {
    case or(Condition, Condition)
    case and(Condition, Condition)
    case not(Condition)
    case compare(SelectorValue, Comparison, SelectorValue)
    case like(SelectorValue, pattern: [LikeToken], negated: Bool)
    case `in`(SelectorValue, [SelectorValue.Literal], negated: Bool)
    case between(SelectorValue, SelectorValue, SelectorValue, negated: Bool)
    case isNull(SelectorValue, negated: Bool)

    enum Comparison: String, Sendable, Equatable {
        case equal = "="
        case notEqual = "<>"
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
    }

    enum LikeToken: Sendable, Equatable {
        case character(Character)
        /// `_`: any one character.
        case one
        /// `%`: any run of characters, none included.
        case any
    }

    /// true, false, or nil (SQL's unknown).
    func evaluate(_ headers: [String: String]) -> Bool? {
        switch self {
        case .or(let left, let right):
            let (a, b) = (left.evaluate(headers), right.evaluate(headers))
            if a == true || b == true { return true }
            return a == false && b == false ? false : nil
        case .and(let left, let right):
            let (a, b) = (left.evaluate(headers), right.evaluate(headers))
            if a == false || b == false { return false }
            return a == true && b == true ? true : nil
        case .not(let inner):
            return inner.evaluate(headers).map { !$0 }
        case .compare(let left, let comparison, let right):
            guard let a = left.resolve(headers), let b = right.resolve(headers) else { return nil }
            return SelectorValue.Literal.compare(a, b).map { order in
                switch comparison {
                case .equal: order == 0
                case .notEqual: order != 0
                case .less: order < 0
                case .lessOrEqual: order <= 0
                case .greater: order > 0
                case .greaterOrEqual: order >= 0
                }
            }
        case .like(let value, let pattern, let negated):
            guard let text = value.resolve(headers)?.text else { return nil }
            return Self.like(Array(text), pattern[...]) != negated
        case .in(let value, let list, let negated):
            guard let resolved = value.resolve(headers) else { return nil }
            return list.contains { SelectorValue.Literal.compare(resolved, $0) == 0 } != negated
        case .between(let value, let low, let high, let negated):
            guard let v = value.resolve(headers), let l = low.resolve(headers), let h = high.resolve(headers),
                let above = SelectorValue.Literal.compare(v, l), let below = SelectorValue.Literal.compare(v, h)
            else { return nil }
            return (above >= 0 && below <= 0) != negated
        case .isNull(let value, let negated):
            return (value.resolve(headers) == nil) != negated
        }
    }

    /// LIKE without backtracking blow-up: `%` runs are matched greedily from the first place the rest fits.
    static func like(_ text: [Character], _ pattern: ArraySlice<LikeToken>) -> Bool {
        var (t, p) = (0, pattern.startIndex)
        var star: (pattern: Int, text: Int)?
        while t < text.count {
            if p < pattern.endIndex {
                switch pattern[p] {
                case .any:
                    star = (p, t)
                    p += 1
                    continue
                case .one:
                    t += 1
                    p += 1
                    continue
                case .character(let c) where c == text[t]:
                    t += 1
                    p += 1
                    continue
                case .character: break
                }
            }
            guard let last = star else { return false }
            p = last.pattern + 1
            t = last.text + 1
            star = (last.pattern, last.text + 1)
        }
        while p < pattern.endIndex, pattern[p] == .any { p += 1 }
        return p == pattern.endIndex
    }
}

/// A side of a comparison: a header's value or a literal.
enum SelectorValue: Sendable, Equatable {
    case header(String)
    case literal(Literal)

    enum Literal: Sendable, Equatable {
        case text(String)
        case number(Double)
        case boolean(Bool)

        var text: String {
            switch self {
            case .text(let text): text
            case .number(let number): number.plainText
            case .boolean(let flag): String(flag)
            }
        }

        /// As a number, when it reads as one (a header's text included).
        var number: Double? {
            switch self {
            case .number(let number): number
            case .text(let text): Double(text.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? $0 : nil }
            case .boolean: nil
            }
        }

        private static func numeric(_ a: Literal, _ b: Literal) -> Int? {
            guard let x = a.number, let y = b.number else { return nil }
            return x < y ? -1 : (x > y ? 1 : 0)
        }

        /// -1, 0 or 1; nil when the two cannot be compared (a number with text that is not one, a boolean
        /// with a number). A number literal makes the comparison numeric; text with text compares as text
        /// (`zip = '01234'` does not match `1234`).
        static func compare(_ a: Literal, _ b: Literal) -> Int? {
            if case .number = a { return numeric(a, b) }
            if case .number = b { return numeric(a, b) }
            switch (a, b) {
            case (.boolean(let x), .boolean(let y)): return x == y ? 0 : (x ? 1 : -1)
            case (.boolean(let x), .text(let y)), (.text(let y), .boolean(let x)):
                guard y.lowercased() == "true" || y.lowercased() == "false" else { return nil }
                return x == (y.lowercased() == "true") ? 0 : 1
            case (.boolean, _), (_, .boolean): return nil
            default:
                let (x, y) = (a.text, b.text)
                return x < y ? -1 : (x > y ? 1 : 0)
            }
        }
    }

    func resolve(_ headers: [String: String]) -> Literal? {
        switch self {
        case .header(let name): headers[name].map(Literal.text)
        case .literal(let literal): literal
        }
    }
}
