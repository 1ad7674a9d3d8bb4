/// What DeviceCheck answered to a call that succeeded.
public enum DeviceCheckResult: Sendable, Hashable {
    /// `validate`: the token is genuine.
    case valid
    /// `query`: the device's bits and the month they were last set (`YYYY-MM`).
    case bits(bit0: Bool, bit1: Bool, lastUpdateTime: String)
    /// `query`: Apple keeps no bits for this device (they were never set).
    case noBits
    /// `update`: the bits are set.
    case updated
}

/// Why a call did not succeed, in the terms Herald answers its caller with.
public enum DeviceCheckFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// 400 about the device token: it is not one DeviceCheck accepts (`text` is Apple's).
    case badDeviceToken(String)
    /// Another 400: Apple refused the request Herald built (a field it could not read).
    case badRequest(String)
    /// 401 or 403: Apple does not accept the app's key, key id or team.
    case credentialsRefused(String)
    /// 429, 5xx or no answer, still so after the retries.
    case unavailable(String)
    /// The app's key could not sign a token, or the client is shut down.
    case client(String)

    public var description: String {
        switch self {
        case .badDeviceToken(let text): "bad device token: \(text)"
        case .badRequest(let text): "request refused: \(text)"
        case .credentialsRefused(let text): "credentials refused: \(text)"
        case .unavailable(let text): "unavailable: \(text)"
        case .client(let text): text
        }
    }
}
