import Foundation

/// A parsed JSON document that keeps numbers, booleans and strings apart, so request parsing can tell
/// a wrong type (8008) from a missing value (8007) exactly as Backendless does.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses a request body; anything that is not JSON becomes fault 8002.
    public static func parse(_ bytes: some Collection<UInt8>) throws(HeraldFault) -> JSONValue {
        do {
            return try JSONParser.parse(Array(bytes))
        } catch {
            if let key = error.duplicateKey {
                throw .invalidParameter(String(key.prefix(Limits.headerName)), "given twice in one object; send each key once")
            }
            throw .unparsable("the body is not valid JSON")
        }
    }

    /// A scalar as text, as headers and placeholder values are read: a string as it is, a number as a
    /// person writes it (`30`, `0.25`), true/false; nil for null, an array or an object.
    public var scalarText: String? {
        switch self {
        case .string(let text): text
        case .integer(let number): String(number)
        case .number(let number): number.plainText
        case .bool(let flag): flag ? "true" : "false"
        case .null, .array, .object: nil
        }
    }

    /// A short name of the JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
