/// An AMF0 packet (Flash remoting's envelope): packet headers and message bodies, each body a value,
/// in the Backendless SDKs' case an AMF3 Flex message behind AMF0's switch-to-AMF3 marker.
public struct AMFPacket: Sendable, Equatable {
    /// 0 (AMF0 only) or 3 (AMF3 inside); the Backendless SDKs send and read 3.
    public var version: UInt16
    public var headers: [AMFHeader]
    public var messages: [AMFMessage]

    public init(version: UInt16 = 3, headers: [AMFHeader] = [], messages: [AMFMessage]) {
        self.version = version
        self.headers = headers
        self.messages = messages
    }
}

/// A packet-level header (the Backendless SDKs send none).
public struct AMFHeader: Sendable, Equatable {
    public var name: String
    public var mustUnderstand: Bool
    public var value: AMFValue

    public init(name: String, mustUnderstand: Bool = false, value: AMFValue) {
        self.name = name
        self.mustUnderstand = mustUnderstand
        self.value = value
    }
}

/// One message body: the target and response URIs (`"null"` in the SDKs' requests, `"/1/onResult"` or
/// `"/1/onStatus"` in answers) and its value.
public struct AMFMessage: Sendable, Equatable {
    public var targetURI: String
    public var responseURI: String
    public var value: AMFValue

    public init(targetURI: String, responseURI: String, value: AMFValue) {
        self.targetURI = targetURI
        self.responseURI = responseURI
        self.value = value
    }
}
