import HeraldCurl

/// An APNs notification's JSON body: one buffer that curl sends without a copy, shared by every
/// notification of a fan-out.
public typealias APNsPayload = CurlBody
