/// AMF0's type markers (AMF 0 Specification, section 2.1).
enum AMF0Marker {
    static let number: UInt8 = 0x00
    static let boolean: UInt8 = 0x01
    static let string: UInt8 = 0x02
    static let object: UInt8 = 0x03
    static let movieClip: UInt8 = 0x04
    static let null: UInt8 = 0x05
    static let undefined: UInt8 = 0x06
    static let reference: UInt8 = 0x07
    static let ecmaArray: UInt8 = 0x08
    static let objectEnd: UInt8 = 0x09
    static let strictArray: UInt8 = 0x0A
    static let date: UInt8 = 0x0B
    static let longString: UInt8 = 0x0C
    static let unsupported: UInt8 = 0x0D
    static let recordSet: UInt8 = 0x0E
    static let xmlDocument: UInt8 = 0x0F
    static let typedObject: UInt8 = 0x10
    /// "avmplus-object": the value that follows is AMF3.
    static let switchToAMF3: UInt8 = 0x11
}

/// AMF3's type markers (AMF 3 Specification, section 3.1).
enum AMF3Marker {
    static let undefined: UInt8 = 0x00
    static let null: UInt8 = 0x01
    static let `false`: UInt8 = 0x02
    static let `true`: UInt8 = 0x03
    static let integer: UInt8 = 0x04
    static let double: UInt8 = 0x05
    static let string: UInt8 = 0x06
    static let xmlDocument: UInt8 = 0x07
    static let date: UInt8 = 0x08
    static let array: UInt8 = 0x09
    static let object: UInt8 = 0x0A
    static let xml: UInt8 = 0x0B
    static let byteArray: UInt8 = 0x0C
    static let vectorInt: UInt8 = 0x0D
    static let vectorUInt: UInt8 = 0x0E
    static let vectorDouble: UInt8 = 0x0F
    static let vectorObject: UInt8 = 0x10
    static let dictionary: UInt8 = 0x11
}

/// A byte as `0x0A`, for error reasons.
func hexByte(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return byte < 0x10 ? "0x0" + digits : "0x" + digits
}
