/// Why FCM refused a message: the `errorCode` of its `FcmError` detail, else the Google API
/// `status`. `unknown` keeps a code Google adds later, so parsing never fails.
public enum FCMErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// 404: the token is no longer valid (app uninstalled, token expired).
    case unregistered
    /// 400: a field of the request is wrong, the token or the message.
    case invalidArgument
    /// 403: the token belongs to another Firebase project.
    case senderIDMismatch
    /// 429: the project's, or one device's, sending rate is exceeded.
    case quotaExceeded
    /// 503: FCM is overloaded.
    case unavailable
    /// 500: FCM failed.
    case `internal`
    /// 401: the APNs (or web push) credentials held by Firebase were refused.
    case thirdPartyAuthError
    /// 401 status: the access token is missing, expired or invalid.
    case unauthenticated
    /// 403 status: the service account may not send for this project.
    case permissionDenied
    /// 404 status without an FCM detail: the project (the URL) is unknown.
    case notFound
    /// A code this client does not know.
    case unknown(String)

    /// Every code handled by name, for exhaustive tests.
    public static let known: [FCMErrorCode] = [
        .unregistered, .invalidArgument, .senderIDMismatch, .quotaExceeded, .unavailable, .internal,
        .thirdPartyAuthError, .unauthenticated, .permissionDenied, .notFound,
    ]

    private static let byName: [String: FCMErrorCode] = Dictionary(uniqueKeysWithValues: known.map { ($0.name, $0) })

    public init(_ name: String) { self = Self.byName[name] ?? .unknown(name) }

    /// The name as Google spells it.
    public var name: String {
        switch self {
        case .unregistered: "UNREGISTERED"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .senderIDMismatch: "SENDER_ID_MISMATCH"
        case .quotaExceeded: "QUOTA_EXCEEDED"
        case .unavailable: "UNAVAILABLE"
        case .internal: "INTERNAL"
        case .thirdPartyAuthError: "THIRD_PARTY_AUTH_ERROR"
        case .unauthenticated: "UNAUTHENTICATED"
        case .permissionDenied: "PERMISSION_DENIED"
        case .notFound: "NOT_FOUND"
        case .unknown(let name): name
        }
    }

    /// The HTTP status FCM answers this code with (nil for unknown codes).
    public var status: Int? {
        switch self {
        case .invalidArgument: 400
        case .thirdPartyAuthError, .unauthenticated: 401
        case .senderIDMismatch, .permissionDenied: 403
        case .unregistered, .notFound: 404
        case .quotaExceeded: 429
        case .internal: 500
        case .unavailable: 503
        case .unknown: nil
        }
    }

    public var description: String { name }
}
