/// Why APNs refused a notification, as its `reason` field says: one Apple documents (`known`), or one
/// it adds later (`unknown`, kept by name, so decoding never fails).
public enum APNsReason: Sendable, Hashable, CustomStringConvertible {
    case known(Known)
    case unknown(String)

    /// Every reason the APNs documentation lists, each said once: the case and its name as APNs spells it.
    public enum Known: String, Sendable, Hashable, CaseIterable {
        // 400
        case badCollapseId = "BadCollapseId"
        case badDeviceToken = "BadDeviceToken"
        case badExpirationDate = "BadExpirationDate"
        case badMessageId = "BadMessageId"
        case badPriority = "BadPriority"
        case badTopic = "BadTopic"
        case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
        case duplicateHeaders = "DuplicateHeaders"
        case idleTimeout = "IdleTimeout"
        case invalidPushType = "InvalidPushType"
        case missingDeviceToken = "MissingDeviceToken"
        case missingTopic = "MissingTopic"
        case payloadEmpty = "PayloadEmpty"
        case topicDisallowed = "TopicDisallowed"
        // 403
        case badCertificate = "BadCertificate"
        case badCertificateEnvironment = "BadCertificateEnvironment"
        case expiredProviderToken = "ExpiredProviderToken"
        case forbidden = "Forbidden"
        case invalidProviderToken = "InvalidProviderToken"
        case missingProviderToken = "MissingProviderToken"
        case unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
        // 404, 405
        case badPath = "BadPath"
        case methodNotAllowed = "MethodNotAllowed"
        // 410
        case unregistered = "Unregistered"
        case expiredToken = "ExpiredToken"
        // 413
        case payloadTooLarge = "PayloadTooLarge"
        // 429
        case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
        case tooManyRequests = "TooManyRequests"
        // 500, 503
        case internalServerError = "InternalServerError"
        case serviceUnavailable = "ServiceUnavailable"
        case shutdown = "Shutdown"

        /// The HTTP status APNs answers this reason with.
        public var status: Int {
            switch self {
            case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
                .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
                .missingTopic, .payloadEmpty, .topicDisallowed:
                400
            case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
                .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken:
                403
            case .badPath: 404
            case .methodNotAllowed: 405
            case .unregistered, .expiredToken: 410
            case .payloadTooLarge: 413
            case .tooManyProviderTokenUpdates, .tooManyRequests: 429
            case .internalServerError: 500
            case .serviceUnavailable, .shutdown: 503
            }
        }
    }

    public init(_ name: String) { self = Known(rawValue: name).map(Self.known) ?? .unknown(name) }

    /// Every documented reason, for exhaustive tests.
    public static var allKnown: [APNsReason] { Known.allCases.map(Self.known) }

    /// The name as APNs spells it.
    public var name: String {
        switch self {
        case .known(let reason): reason.rawValue
        case .unknown(let name): name
        }
    }

    /// The HTTP status APNs answers this reason with (nil for unknown reasons).
    public var status: Int? {
        if case .known(let reason) = self { return reason.status }
        return nil
    }

    public var description: String { name }
}
