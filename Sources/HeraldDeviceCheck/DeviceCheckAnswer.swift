import Foundation
import HeraldCore

/// What one answer from DeviceCheck means, decided without I/O so every case is tested as a table.
public enum DeviceCheckVerdict: Sendable, Hashable {
    case done(DeviceCheckResult)
    /// Worth another attempt (429, 5xx, no answer); the reason, for the failure if none succeeds.
    case retry(String)
    /// 401: the provider token may be stale; sign a new one and try once more.
    case renewToken(String)
    case fail(DeviceCheckFailure)
}

extension DeviceCheckVerdict {
    /// Reads an answer to `operation`: `status` and `body` from Apple, or `curlCode` other than 0 when
    /// no answer arrived (`-1`: the client stopped). Apple's errors are plain text, quoted back (cut to
    /// 200 characters).
    public static func reading(
        _ operation: DeviceCheckOperation, curlCode: Int = 0, status: Int, body: [UInt8], errorText: String = ""
    ) -> DeviceCheckVerdict {
        if curlCode == -1 { return .fail(.client(errorText.isEmpty ? "the DeviceCheck client was shut down" : errorText)) }
        if curlCode != 0 { return .retry("no answer from DeviceCheck: \(errorText)") }
        let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        switch status {
        case 200:
            switch operation {
            case .validate: return .done(.valid)
            case .update: return .done(.updated)
            case .query: return .done(bits(body))
            }
        case 400:
            // "Missing or incorrectly formatted device token payload": the caller's token. Any other
            // field Apple cannot read is Herald's own request.
            return .fail(text.lowercased().contains("device token") ? .badDeviceToken(text) : .badRequest(text))
        case 401: return .renewToken(text.isEmpty ? "401" : text)
        case 403: return .fail(.credentialsRefused(text.isEmpty ? "403" : text))
        case 429, 500...599: return .retry("DeviceCheck answered \(status)\(text.isEmpty ? "" : ": \(text)")")
        default: return .fail(.unavailable("unexpected answer \(status) from DeviceCheck\(text.isEmpty ? "" : ": \(text)")"))
        }
    }

    /// A query's 200: the bits as JSON, or, when Apple has none for the device, plain text whose
    /// wording varies ("Bit State Not Found", "Failed to find bit state"), so it is recognised by the
    /// missing JSON object rather than by its words.
    static func bits(_ body: [UInt8]) -> DeviceCheckResult {
        guard case .object(let object)? = try? JSONValue.parse(body),
            case .bool(let bit0)? = object["bit0"], case .bool(let bit1)? = object["bit1"]
        else { return .noBits }
        guard case .string(let month)? = object["last_update_time"] else { return .bits(bit0: bit0, bit1: bit1, lastUpdateTime: "") }
        return .bits(bit0: bit0, bit1: bit1, lastUpdateTime: month)
    }
}
