/// Where a document stops being JSON, as a person finds it in an editor: line and column, both from 1.
/// Request bodies answer 8002 without it; a configuration file names the place.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    /// Counted in characters (Unicode scalars) from the start of the line.
    public let column: Int
    /// The document is JSON, but an object there names this key twice.
    public var duplicateKey: String?

    public init(line: Int, column: Int, duplicateKey: String? = nil) {
        self.line = line
        self.column = column
        self.duplicateKey = duplicateKey
    }

    /// The line and column of byte `offset` in `bytes` (UTF-8).
    init(offset: Int, in bytes: [UInt8]) {
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {  // a continuation byte belongs to the character before it
                column += 1
            }
        }
        self.init(line: line, column: column)
    }

    public var description: String {
        "line \(line), column \(column)" + (duplicateKey.map { ": the key '\($0.prefix(128))' appears twice in one object" } ?? "")
    }
}

extension JSONValue {
    /// Parses a whole document, saying where it is broken if it is not JSON.
    public static func parseDocument(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        let array = Array(bytes)
        do {
            return try JSONParser.parse(array)
        } catch {
            var syntaxError = JSONSyntaxError(offset: error.offset, in: array)
            syntaxError.duplicateKey = error.duplicateKey
            throw syntaxError
        }
    }
}
