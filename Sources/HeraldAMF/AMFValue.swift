/// One value as AMF0 and AMF3 carry it, with no distinction between the two encodings: the codec reads
/// either into this and writes AMF3 (the form the Backendless SDKs send and read inside a packet body).
///
/// Values, not references: an AMF3 object reference decodes to a copy of the object it names, so a
/// packet whose references form a cycle is refused rather than represented.
public enum AMFValue: Sendable, Equatable {
    case undefined
    case null
    case bool(Bool)
    /// An AMF3 integer (29-bit signed) as read; a number written as a double stays `.double`.
    case int(Int32)
    case double(Double)
    case string(String)
    /// Milliseconds since 1970-01-01 UTC, as both AMF0 and AMF3 dates hold them.
    case date(Double)
    /// An array: the dense part in order, and the associative (string-keyed) part, empty when absent.
    case array([AMFValue], associative: [AMFMember] = [])
    case object(AMFObject)
    case bytes([UInt8])
    /// An XML document (AMF0 XML, AMF3 XML or XMLDocument), kept as its text.
    case xml(String)
}

/// One named member of an object or of an array's associative part, in the order it was read.
public struct AMFMember: Sendable, Equatable {
    public var name: String
    public var value: AMFValue

    public init(_ name: String, _ value: AMFValue) {
        self.name = name
        self.value = value
    }
}

/// A typed (class alias) or anonymous object. Java's maps arrive as anonymous objects with sealed
/// traits, one member per key; the codec keeps members in order and does not merge duplicates.
public struct AMFObject: Sendable, Equatable {
    /// The class alias, `""` for an anonymous object.
    public var className: String
    /// Sealed members first (the traits' order), then dynamic ones.
    public var members: [AMFMember]
    /// Written with dynamic traits (members after the sealed ones) instead of sealed ones only.
    public var isDynamic: Bool

    public init(className: String = "", members: [AMFMember] = [], isDynamic: Bool = false) {
        self.className = className
        self.members = members
        self.isDynamic = isDynamic
    }

    /// The first member with this name.
    public subscript(name: String) -> AMFValue? {
        members.first { $0.name == name }?.value
    }
}
