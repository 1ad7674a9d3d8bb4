import Foundation

extension FCMResponse {
    /// The `@type` of the detail that carries FCM's own error code.
    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"

    /// Reads a Google API error body: `errorCode` from the `FcmError` detail, else `error.status`.
    /// A body that is not such JSON leaves code and message nil (the status still decides).
    init(status: Int, body: [UInt8], retryAfter: String?) {
        self.init(status: status, retryAfterSeconds: retryAfter.flatMap(Self.seconds))
        guard let parsed = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)) else { return }
        message = parsed.error.message
        let detail = parsed.error.details?.first { $0.type == Self.fcmErrorType && $0.errorCode != nil }?.errorCode
        errorCode = (detail ?? parsed.error.status).map(FCMErrorCode.init)
    }

    /// `Retry-After` as delta-seconds; the HTTP-date form (which FCM does not send) is ignored.
    static func seconds(_ value: String) -> Int? {
        guard let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
        return seconds
    }

    private struct ErrorBody: Decodable {
        var error: Content

        struct Content: Decodable {
            var code: Int?
            var message: String?
            var status: String?
            var details: [Detail]?
        }

        struct Detail: Decodable {
            var type: String?
            var errorCode: String?

            enum CodingKeys: String, CodingKey {
                case type = "@type"
                case errorCode
            }
        }
    }
}
