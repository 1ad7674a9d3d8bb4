import HeraldSigning

/// APNs's names for the shared Apple signer (HeraldSigning): token auth signs provider tokens with it.
public typealias APNsSigningKey = AppleSigningKey
public typealias APNsProviderToken = AppleBearerToken
