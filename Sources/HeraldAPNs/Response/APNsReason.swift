/// Why APNs refused a notification, as its `reason` field says. `unknown` keeps a reason Apple adds
/// later, so decoding never fails.
public enum APNsReason: Sendable, Hashable, CustomStringConvertible {
    // 400
    case badCollapseId, badDeviceToken, badExpirationDate, badMessageId, badPriority, badTopic
    case deviceTokenNotForTopic, duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken
    case missingTopic, payloadEmpty, topicDisallowed
    // 403
    case badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden
    case invalidProviderToken, missingProviderToken, unrelatedKeyIdInToken
    // 404, 405
    case badPath, methodNotAllowed
    // 410
    case unregistered, expiredToken
    // 413
    case payloadTooLarge
    // 429
    case tooManyProviderTokenUpdates, tooManyRequests
    // 500, 503
    case internalServerError, serviceUnavailable, shutdown
    /// A reason this client does not know.
    case unknown(String)

    /// Every reason the APNs documentation lists, for exhaustive tests.
    public static let known: [APNsReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed, .badCertificate, .badCertificateEnvironment,
        .expiredProviderToken, .forbidden, .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken,
        .badPath, .methodNotAllowed, .unregistered, .expiredToken, .payloadTooLarge,
        .tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
    ]

    private static let byName: [String: APNsReason] = Dictionary(
        uniqueKeysWithValues: known.map { ($0.name, $0) }
    )

    public init(_ name: String) { self = Self.byName[name] ?? .unknown(name) }

    /// The name as APNs spells it.
    public var name: String {
        switch self {
        case .badCollapseId: "BadCollapseId"
        case .badDeviceToken: "BadDeviceToken"
        case .badExpirationDate: "BadExpirationDate"
        case .badMessageId: "BadMessageId"
        case .badPriority: "BadPriority"
        case .badTopic: "BadTopic"
        case .deviceTokenNotForTopic: "DeviceTokenNotForTopic"
        case .duplicateHeaders: "DuplicateHeaders"
        case .idleTimeout: "IdleTimeout"
        case .invalidPushType: "InvalidPushType"
        case .missingDeviceToken: "MissingDeviceToken"
        case .missingTopic: "MissingTopic"
        case .payloadEmpty: "PayloadEmpty"
        case .topicDisallowed: "TopicDisallowed"
        case .badCertificate: "BadCertificate"
        case .badCertificateEnvironment: "BadCertificateEnvironment"
        case .expiredProviderToken: "ExpiredProviderToken"
        case .forbidden: "Forbidden"
        case .invalidProviderToken: "InvalidProviderToken"
        case .missingProviderToken: "MissingProviderToken"
        case .unrelatedKeyIdInToken: "UnrelatedKeyIdInToken"
        case .badPath: "BadPath"
        case .methodNotAllowed: "MethodNotAllowed"
        case .unregistered: "Unregistered"
        case .expiredToken: "ExpiredToken"
        case .payloadTooLarge: "PayloadTooLarge"
        case .tooManyProviderTokenUpdates: "TooManyProviderTokenUpdates"
        case .tooManyRequests: "TooManyRequests"
        case .internalServerError: "InternalServerError"
        case .serviceUnavailable: "ServiceUnavailable"
        case .shutdown: "Shutdown"
        case .unknown(let name): name
        }
    }

    /// The HTTP status APNs answers this reason with (nil for unknown reasons).
    public var status: Int? {
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
        case .unknown: nil
        }
    }

    public var description: String { name }
}
