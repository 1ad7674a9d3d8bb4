import Foundation

/// Why APNs refused a channel-management request or a broadcast, as its `reason` field says: one of
/// Apple's broadcast error table (`known`), or one it adds later (`unknown`, kept by name, so decoding
/// never fails). Apart from ``APNsReason`` because the table differs: `ChannelNotRegistered` and
/// `TopicMismatch` are broadcast's own, and `/3/device` reasons such as `BadDeviceToken` are not in it.
public enum APNsBroadcastReason: Sendable, Hashable, CustomStringConvertible {
    case known(Known)
    case unknown(String)

    /// Every reason Apple's broadcast error table lists, as APNs spells it.
    public enum Known: String, Sendable, Hashable, CaseIterable {
        // 400
        case featureNotEnabled = "FeatureNotEnabled"
        case missingChannelId = "MissingChannelId"
        case badChannelId = "BadChannelId"
        case channelNotRegistered = "ChannelNotRegistered"
        case badRequestParams = "BadRequestParams"
        case badRequestPayload = "BadRequestPayload"
        case payloadEmpty = "PayloadEmpty"
        case badMessageId = "BadMessageId"
        case missingPushType = "MissingPushType"
        case invalidPushType = "InvalidPushType"
        case cannotCreateChannelConfig = "CannotCreateChannelConfig"
        case badExpirationDate = "BadExpirationDate"
        case topicDisallowed = "TopicDisallowed"
        case badPriority = "BadPriority"
        // 403
        case badCertificate = "BadCertificate"
        case badCertificateEnvironment = "BadCertificateEnvironment"
        case topicMismatch = "TopicMismatch"
        case missingProviderToken = "MissingProviderToken"
        case expiredProviderToken = "ExpiredProviderToken"
        case invalidProviderToken = "InvalidProviderToken"
        // 404, 405, 413, 429
        case badPath = "BadPath"
        case methodNotAllowed = "MethodNotAllowed"
        case payloadTooLarge = "PayloadTooLarge"
        case tooManyRequests = "TooManyRequests"
        case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
        // 500, 503
        case internalServerError = "InternalServerError"
        case serviceUnavailable = "ServiceUnavailable"
        case shutdown = "Shutdown"
    }

    public init(_ name: String) { self = Known(rawValue: name).map(Self.known) ?? .unknown(name) }

    /// The name as APNs spells it.
    public var name: String {
        switch self {
        case .known(let reason): reason.rawValue
        case .unknown(let name): name
        }
    }

    public var description: String { name }

    /// The `reason` of an error answer's JSON body (`{"reason":"…"}`), if it has one.
    static func inErrorBody(_ body: [UInt8]) -> APNsBroadcastReason? {
        struct ErrorBody: Decodable { var reason: String? }
        return (try? JSONDecoder().decode(ErrorBody.self, from: Data(body)))?.reason.map(APNsBroadcastReason.init)
    }
}
