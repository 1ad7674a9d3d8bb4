import Foundation

/// What a published message gives its channel's subscribers (`PUBSUB` and `BOTH`): the message as given
/// and its headers, stored with the message so each occurrence of a repeating one reaches them too.
public struct PubSubContent: Sendable, Equatable, Codable {
    public var data: JSONValue
    public var headers: [String: JSONValue]

    public init(data: JSONValue, headers: [String: JSONValue]) {
        self.data = data
        self.headers = headers
    }

    /// The JSON the store keeps.
    public func encoded() -> String { SortedJSON.text(self) }

    public init(decoding text: String) throws {
        self = try JSONDecoder().decode(PubSubContent.self, from: Data(text.utf8))
    }

    /// The headers as a selector reads them: text, a number or true/false as its text; others left out.
    public var selectorHeaders: [String: String] { headers.compactMapValues(\.scalarText) }
}
