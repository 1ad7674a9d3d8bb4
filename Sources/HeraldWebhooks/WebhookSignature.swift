import Crypto

/// The `Herald-Signature` header: `t=<epoch ms>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the secret>`.
/// The receiver recomputes it over the raw body and compares in constant time; the time in it lets the
/// receiver refuse an old request replayed.
public enum WebhookSignature {
    public static let headerName = "Herald-Signature"

    public static func header(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        "t=\(timestamp),v1=\(hex(secret: secret, timestamp: timestamp, body: body))"
    }

    public static func hex(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        var signed = Array("\(timestamp).".utf8)
        signed.append(contentsOf: body)
        let code = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Array(secret.utf8)))
        return code.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    /// Whether `header` signs `body` under `secret` (what a receiver does; the tests use it).
    public static func verify(header: String, secret: String, body: [UInt8]) -> Bool {
        var timestamp: Int64?
        var signature: String?
        for part in header.split(separator: ",") {
            if part.hasPrefix("t=") { timestamp = Int64(part.dropFirst(2)) }
            if part.hasPrefix("v1=") { signature = String(part.dropFirst(3)) }
        }
        guard let timestamp, let signature else { return false }
        let expected = Array(hex(secret: secret, timestamp: timestamp, body: body).utf8)
        let given = Array(signature.utf8)
        guard expected.count == given.count else { return false }
        return zip(expected, given).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
