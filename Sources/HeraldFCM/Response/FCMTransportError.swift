import HeraldCurl

/// A send that got no answer from FCM, or never went out because no access token could be had:
/// `.credentials` when the token endpoint refused the account, `.tokenUnavailable` when it answered
/// 429 or 5xx; the shared curl layer's type.
public typealias FCMTransportError = ProviderTransportError
