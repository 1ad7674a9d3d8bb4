import Foundation
import HeraldCore
import Hummingbird
import NIOCore

/// Request and response bodies as JSON, the only format the Backendless API speaks.
enum JSONBody {
    /// Reads and parses the request body; over 64 KiB is 413/8000 naming "body", non-JSON is 8002.
    static func read(_ request: Request) async throws -> JSONValue {
        try parse(try await collect(request))
    }

    /// Like `read`, for routes whose body may be left out: nil when it is empty.
    static func readOptional(_ request: Request) async throws -> JSONValue? {
        try parseOptional(try await collect(request))
    }

    /// A collected body (`collect`) parsed as `read` parses it.
    static func parse(_ buffer: ByteBuffer) throws -> JSONValue {
        guard let value = try parseOptional(buffer) else {
            throw HeraldFault.unparsable("the body is empty; a JSON object is expected")
        }
        return value
    }

    /// A collected body parsed as `readOptional` parses it: nil when it is empty.
    static func parseOptional(_ buffer: ByteBuffer) throws -> JSONValue? {
        if buffer.readableBytes == 0 { return nil }
        return try JSONValue.parse(buffer.readableBytesView)
    }

    /// The whole request body, within `Limits.requestBodyBytes` (413/8000 naming "body" past it). A body
    /// declared larger than the limit is refused before it is read (a client that sent
    /// `Expect: 100-continue` is waiting for this answer), and the connection closes after the answer.
    static func collect(_ request: Request) async throws -> ByteBuffer {
        var request = request
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > Limits.requestBodyBytes {
            throw HeraldFault.bodyTooLarge(limit: Limits.requestBodyBytes)
        }
        do {
            return try await request.collectBody(upTo: Limits.requestBodyBytes)
        } catch is NIOTooManyBytesError {
            throw HeraldFault.bodyTooLarge(limit: Limits.requestBodyBytes)
        }
    }

    /// A typed answer, encoded as JSON with sorted keys.
    static func response(encoding value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONEncoder.herald.encode(value))))
    }

    /// A JSON response with the given status.
    static func response(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONEncoder.herald.encode(value)) ?? Data("null".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A JSON object body with no key outside `allowed` (a misspelt key is refused, not ignored).
    static func object(_ body: JSONValue, allowed: Set<String>) throws -> [String: JSONValue] {
        guard case .object(let members) = body else { throw HeraldFault.unparsable("the body must be a JSON object") }
        if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw HeraldFault.invalidParameter(
                String(unknown.prefix(Limits.headerName)), "not a key of this body (\(allowed.sorted().joined(separator: ", ")))")
        }
        return members
    }
}

extension JSONEncoder {
    /// Sorted keys: answers are stable, which keeps clients' caches and tests' diffs calm.
    /// Built once: encoding is read-only on the encoder, so every response shares it.
    static let herald: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

}
