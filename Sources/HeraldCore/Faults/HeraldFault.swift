/// A failure that Herald reports to a client, in Backendless's `{"code","message"}` shape.
///
/// `code` is the stable Backendless code an SDK switches on; `kind` picks the HTTP status,
/// which the HTTP layer decides (HeraldCore knows nothing of HTTP).
public struct HeraldFault: Error, Sendable, Equatable, CustomStringConvertible {
    /// How a fault maps onto an HTTP status class.
    public enum Kind: Sendable, Equatable {
        case validation
        case unauthenticated
        case forbidden
        case notFound
        case tooLarge
        case rateLimited
        /// Well-formed, but in conflict with what the server holds (HTTP 422): a reused idempotency key.
        case unprocessable
        /// An upstream service (Apple) refused what Herald sent on the caller's behalf.
        case badGateway
        /// A dependency (the database) is away for now; the client should retry.
        case unavailable
        case `internal`
    }

    public let code: Int
    public let kind: Kind
    public let message: String

    public init(code: Int, kind: Kind, message: String) {
        self.code = code
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

extension HeraldFault {
    /// 2002: the app id or API key is unknown.
    public static let unknownApplication = HeraldFault(
        code: 2002, kind: .unauthenticated,
        message: "Unable to find application. Check application id and/or API key.")

    /// 5007: the key is valid but its role is too small for the route.
    public static func permissionDenied(required: APIKeyRole) -> HeraldFault {
        HeraldFault(
            code: 5007, kind: .forbidden,
            message: "User has no permission for this operation: a key with role '\(required.rawValue)' is required")
    }

    /// 5007 on the publishing routes, in Backendless's words.
    public static let publishDenied = HeraldFault(
        code: 5007, kind: .forbidden, message: "User has no permission to publish message")

    /// 5040: cancel or status of a message that is unknown (in this app), finished or cancelled already.
    public static let messageNotCancellable = HeraldFault(
        code: 5040, kind: .notFound, message: "Message has already been canceled or does not exist")

    /// 5050 (Herald's; Backendless lists no code for it): the app has no push template of that name.
    public static func unknownTemplate(_ name: String) -> HeraldFault {
        HeraldFault(code: 5050, kind: .notFound, message: "Push template not found: '\(name.prefix(64))'")
    }

    /// 5020 (Herald's; Backendless lists no code for it): no live subscription of that id in the app's
    /// channel: never made, another channel's, or expired (not polled or streamed within its idle time).
    public static let unknownSubscription = HeraldFault(
        code: 5020, kind: .notFound, message: "Subscription not found or expired; subscribe again")

    /// 503: this instance serves `pubsub.maxStreams` streams already (or is shutting down).
    public static let streamsUnavailable = HeraldFault(
        code: 503, kind: .unavailable,
        message: "Service temporarily unavailable: this instance serves all the streams it may; retry shortly")

    /// 5008, no permission to subscribe: the app has as many live subscriptions as it may.
    public static func tooManySubscriptions(limit: Int) -> HeraldFault {
        HeraldFault(
            code: 5008, kind: .rateLimited,
            message: "No permission to subscribe: the app has its maximum of \(limit) live subscriptions (pubsub.maxSubscriptionsPerApp)")
    }

    public static let unknownDeviceOnGet = HeraldFault(
        code: 5000, kind: .notFound,
        message: "Unable to retrieve device registration - unknown device ID")

    /// The registry's admin routes: the app has no device of that id (registered or only launched).
    public static let unknownDevice = HeraldFault(code: 5000, kind: .notFound, message: "Unknown device ID")

    public static let unknownDeviceOnDelete = HeraldFault(
        code: 5001, kind: .notFound,
        message: "Unable to cancel device registration - unknown device ID")

    public static let expirationNotInFuture = HeraldFault(
        code: 5004, kind: .validation,
        message: "Invalid expiration date. The expiration date must be after the current time.")

    public static func unknownChannel(_ name: String) -> HeraldFault {
        HeraldFault(code: 5010, kind: .notFound, message: "Channel does not exist: '\(name)'")
    }

    public static let missingDeviceId = HeraldFault(
        code: 5011, kind: .validation, message: "Device ID cannot be null or empty")

    /// 5030: publishAt not in the future, or repeatExpiresAt before the first occurrence.
    public static func invalidPublishDate(_ detail: String) -> HeraldFault {
        HeraldFault(code: 5030, kind: .validation, message: "Invalid publish date: \(detail)")
    }

    /// 5041: the message is missing, null, or would make an empty push.
    public static func invalidPushMessage(_ detail: String) -> HeraldFault {
        HeraldFault(code: 5041, kind: .validation, message: "Invalid message for push: \(detail)")
    }

    public static func invalidChannelName(_ detail: String) -> HeraldFault {
        HeraldFault(code: 5044, kind: .validation, message: "Channel name is invalid: \(detail)")
    }

    /// 8000, naming the property, its length and the limit.
    public static func tooLong(property: String, length: Int, limit: Int) -> HeraldFault {
        HeraldFault(
            code: 8000, kind: .validation,
            message: "Property value exceeds the length limit: '\(property)' is \(length) long, the limit is \(limit)")
    }

    /// 8000 for a JSON value with more values in it than `limit`.
    public static func tooManyValues(property: String, limit: Int) -> HeraldFault {
        HeraldFault(
            code: 8000, kind: .validation,
            message: "Property value exceeds the length limit: '\(property)' holds more than \(limit) values, the limit is \(limit)")
    }

    /// 8000 for a request body over the limit (HTTP 413).
    public static func bodyTooLarge(limit: Int) -> HeraldFault {
        HeraldFault(
            code: 8000, kind: .tooLarge,
            message: "Property value exceeds the length limit: 'body' is over \(limit) bytes, the limit is \(limit)")
    }

    public static func unparsable(_ detail: String) -> HeraldFault {
        HeraldFault(code: 8002, kind: .validation, message: "Could not parse request with message: \(detail)")
    }

    public static func missingParameter(_ name: String) -> HeraldFault {
        HeraldFault(code: 8007, kind: .validation, message: "Missing parameter '\(name)'")
    }

    public static func invalidParameter(_ name: String, _ detail: String) -> HeraldFault {
        HeraldFault(code: 8008, kind: .validation, message: "Invalid parameter '\(name)': \(detail)")
    }

    /// 5070: a DeviceCheck route of an app whose configuration has no `deviceCheck` block.
    public static func deviceCheckNotConfigured(app: String) -> HeraldFault {
        HeraldFault(
            code: 5070, kind: .validation,
            message: "DeviceCheck is not configured for app '\(app)': its configuration has no apps[].deviceCheck block")
    }

    /// 5071: Apple's DeviceCheck refused the device token (400 there).
    public static func deviceCheckBadToken(_ apple: String) -> HeraldFault {
        HeraldFault(code: 5071, kind: .validation, message: "Apple DeviceCheck refused the device token: \(apple)")
    }

    /// 5072: Apple's DeviceCheck refused the app's key, key id or team (401/403 there).
    public static let deviceCheckCredentialsRefused = HeraldFault(
        code: 5072, kind: .badGateway, message: "Apple DeviceCheck refused the app's credentials")

    /// 5073: Apple's DeviceCheck did not answer, or answered 429 or 5xx, after Herald's retries.
    public static func deviceCheckUnavailable(_ detail: String) -> HeraldFault {
        HeraldFault(code: 5073, kind: .unavailable, message: "Apple DeviceCheck is unavailable; retry later (\(detail))")
    }

    /// 5074: Apple's DeviceCheck refused a request Herald built (a field other than the token).
    public static func deviceCheckRefused(_ apple: String) -> HeraldFault {
        HeraldFault(code: 5074, kind: .badGateway, message: "Apple DeviceCheck refused the request: \(apple)")
    }

    /// 404 for a route that does not exist; Backendless has no dedicated code, 8008-style text keeps clients' parsers happy.
    public static let noSuchRoute = HeraldFault(code: 404, kind: .notFound, message: "No such route")

    /// An internal failure; the message never carries details.
    /// The database cannot be reached or written right now; nothing of the request was kept.
    public static let storeUnavailable = HeraldFault(
        code: 503, kind: .unavailable, message: "Service temporarily unavailable: the database cannot be reached; retry shortly")

    public static let internalError = HeraldFault(code: 500, kind: .internal, message: "Internal server error")
}
