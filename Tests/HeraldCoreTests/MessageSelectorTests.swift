import HeraldCore
import Testing

/// Publish-subscribe selectors (issue 24): SQL-92 style conditions on a message's headers, parsed with
/// the position of the first error, evaluated with SQL's three-valued logic.
@Suite struct MessageSelectorTests {
    static let headers = ["city": "Tokyo", "priority": "5", "zip": "01234", "urgent": "true", "x-kind": "sale", "name": "O'Hara"]

    static func matches(_ selector: String, _ headers: [String: String] = headers) throws -> Bool {
        try MessageSelector(parsing: selector).matches(headers)
    }

    @Test(arguments: [
        ("city = 'Tokyo'", true), ("city = 'tokyo'", false), ("city <> 'Paris'", true), ("city != 'Paris'", true),
        ("priority > 3", true), ("priority >= 5", true), ("priority < 5", false), ("priority <= 4.5", false),
        ("priority = 5.0", true), ("priority > '3'", true),
        // Text with text compares as text: a zip code keeps its leading zero.
        ("zip = '01234'", true), ("zip = '1234'", false), ("zip = 1234", true),
        ("urgent = TRUE", true), ("urgent = false", false),
        ("city = 'Tokyo' AND priority > 3", true), ("city = 'Paris' OR priority > 3", true),
        ("city = 'Paris' OR priority > 9", false), ("NOT city = 'Paris'", true),
        ("city = 'Tokyo' AND (priority > 9 OR urgent = 'true')", true),
        ("(city = 'Paris' OR city = 'Tokyo') AND NOT (priority < 1)", true),
        ("city LIKE 'To%'", true), ("city LIKE 'T_kyo'", true), ("city LIKE '%y_'", true), ("city LIKE 'Tok'", false),
        ("city NOT LIKE '%x%'", true), ("x-kind LIKE '50\\%' ESCAPE '\\'", false),
        ("city IN ('Paris', 'Tokyo')", true), ("city NOT IN ('Paris', 'Tokyo')", false), ("priority IN (1, 5, 9)", true),
        ("priority BETWEEN 1 AND 5", true), ("priority NOT BETWEEN 1 AND 5", false),
        ("missing IS NULL", true), ("city IS NOT NULL", true), ("city is not null", true),
        ("name = 'O''Hara'", true), ("x-kind = 'sale'", true), ("\"x-kind\" = 'sale'", true),
        ("city = 'Tokyo' and priority > 3 or missing = 1", true),
    ])
    func evaluates(_ selector: String, _ expected: Bool) throws {
        #expect(try Self.matches(selector) == expected, "\(selector)")
    }

    /// A header the message does not have is NULL: neither the comparison nor its negation matches.
    @Test func aMissingHeaderIsUnknownNotFalse() throws {
        #expect(try !Self.matches("missing = 'x'"))
        #expect(try !Self.matches("NOT missing = 'x'"))
        #expect(try !Self.matches("missing <> 'x'"))
        #expect(try Self.matches("missing = 'x' OR city = 'Tokyo'"), "unknown OR true is true")
        #expect(try !Self.matches("missing = 'x' AND city = 'Tokyo'"), "unknown AND true is unknown")
        #expect(try !Self.matches("priority > 3", [:]))
    }

    @Test func aNumberAgainstTextThatIsNotANumberIsUnknown() throws {
        #expect(try !Self.matches("city > 3"))
        #expect(try !Self.matches("NOT city > 3"))
    }

    /// LIKE with many `%` stays linear: no backtracking blow-up on a long header.
    @Test func likeHandlesLongValues() throws {
        let long = String(repeating: "a", count: 2000)
        #expect(try !Self.matches("v LIKE '%a%a%a%a%a%a%a%a%b'", ["v": long]))
        #expect(try Self.matches("v LIKE '%a%a%a%a%a%a%a%a%'", ["v": long]))
    }

    @Test(arguments: [
        ("", 1, "is empty"),
        ("city = ", 8, "ends where a header name or a value is expected"),
        ("city = 'Tokyo", 8, "has a string that is never closed"),
        ("city 'Tokyo'", 6, "expects a comparison"),
        ("(city = 'Tokyo'", 16, "ends where ')' is expected"),
        ("city = 'Tokyo' AND", 19, "ends where a header name or a value is expected"),
        ("city = 'Tokyo' priority", 16, "expects AND, OR or the end"),
        ("city LIKE 5", 11, "expects a quoted pattern after LIKE"),
        ("city IN ()", 10, "expects a quoted string, a number, TRUE or FALSE in the IN list"),
        ("city NOT = 'x'", 10, "expects LIKE, IN or BETWEEN after NOT"),
        ("priority BETWEEN 1 5", 20, "expects AND in BETWEEN"),
        ("city IS 'x'", 9, "expects NULL after IS"),
        ("AND = 1", 1, "expects a header name or a value"),
        ("a LIKE 'x\\' ESCAPE '\\'", 8, "pattern ends with its escape character"),
        ("\"x = 1", 1, "has a quoted header name that is never closed"),
    ])
    func refusesWithThePosition(_ selector: String, _ position: Int, _ message: String) {
        do {
            _ = try MessageSelector(parsing: selector)
            Issue.record("'\(selector)' was accepted")
        } catch {
            #expect(error.position == position, "\(selector): \(error)")
            #expect(error.message.hasPrefix(message), "\(selector): \(error)")
        }
    }

    @Test func limitsLengthDepthAndLists() {
        #expect(throws: SelectorError.self) { try MessageSelector(parsing: String(repeating: "a", count: MessageSelector.maxLength + 1)) }
        #expect(throws: SelectorError.self) {
            try MessageSelector(parsing: String(repeating: "(", count: 40) + "a = 1" + String(repeating: ")", count: 40))
        }
        #expect(throws: SelectorError.self) { try MessageSelector(parsing: String(repeating: "NOT ", count: 40) + "a = 1") }
        let list = (0...300).map(String.init).joined(separator: ", ")
        #expect(throws: SelectorError.self) { try MessageSelector(parsing: "a IN (\(list))") }
        #expect(throws: Never.self) { try MessageSelector(parsing: "a IN (1, 2, 3)") }
    }

    @Test func keepsItsText() throws {
        #expect(try MessageSelector(parsing: "city = 'Tokyo'").description == "city = 'Tokyo'")
    }
}
