import HeraldCore

/// What to do after one APNs send: the provider-neutral decision every retry policy returns.
public typealias APNsDecision = DeliveryDecision
