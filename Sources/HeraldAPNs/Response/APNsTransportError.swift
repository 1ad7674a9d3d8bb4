import HeraldCurl

/// A send that got no answer from APNs, or never went out because no provider token could be signed
/// (`.credentials`); the shared curl layer's type.
public typealias APNsTransportError = ProviderTransportError
