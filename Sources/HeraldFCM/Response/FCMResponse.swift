/// What FCM answered with an error status for one message.
public struct FCMResponse: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The error code (nil if the body carried none).
    public var errorCode: FCMErrorCode?
    /// Google's own words (`error.message`): the only hint whether an INVALID_ARGUMENT is about the
    /// token or the message.
    public var message: String?
    /// The `Retry-After` header, in seconds, when it was given as a number.
    public var retryAfterSeconds: Int?

    public init(status: Int, errorCode: FCMErrorCode? = nil, message: String? = nil, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.errorCode = errorCode
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }
}
