import Foundation

/// Compact JSON with sorted keys, so equal values give equal bytes: what Herald stores and sends to the
/// push services and subscribers.
public enum SortedJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    public static func bytes(_ value: some Encodable) throws -> Data { try encoder.encode(value) }

    /// For values made of strings, numbers, optionals and JSON values, whose encoding cannot fail.
    public static func text(_ value: some Encodable) -> String {
        String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
