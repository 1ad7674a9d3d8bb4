extension AMFPacket {
    /// The packet's bytes: AMF0 framing, each header and body value written as the AMF3 switch (0x11) and
    /// AMF3, the form the Backendless SDKs read, with each value's real length. Decoding them gives this
    /// packet back, except that an `.int` outside AMF3's 29 bits comes back as `.double` (written so) and
    /// an array's associative members named `""` are left out (AMF3 cannot write that name there).
    ///
    /// Names, URIs and counts past 65,535 bytes or entries, and strings, arrays or byte arrays past
    /// 2^28 − 1 bytes or elements, cannot be written in AMF and stop the program: no answer comes near.
    public func encoded() -> [UInt8] {
        var encoder = AMF3Encoder()
        encoder.writeU16(version)
        encoder.writeU16(headers.count)
        for header in headers {
            encoder.writeShortString(header.name)
            encoder.bytes.append(header.mustUnderstand ? 1 : 0)
            encoder.writeBodyValue(header.value)
        }
        encoder.writeU16(messages.count)
        for message in messages {
            encoder.writeShortString(message.targetURI)
            encoder.writeShortString(message.responseURI)
            encoder.writeBodyValue(message.value)
        }
        return encoder.bytes
    }
}

extension AMF3Encoder {
    mutating func writeU16<Value: BinaryInteger>(_ value: Value) {
        precondition(value >= 0 && value <= 0xFFFF, "AMF0 cannot write \(value) in 16 bits")
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    mutating func writeShortString(_ text: String) {
        writeU16(text.utf8.count)
        bytes.append(contentsOf: text.utf8)
    }

    /// The value's length, its switch to AMF3 with fresh reference tables, then the value; the length is
    /// filled in once the value is written.
    mutating func writeBodyValue(_ value: AMFValue) {
        let lengthAt = bytes.count
        bytes.append(contentsOf: [0, 0, 0, 0])
        startValue()
        bytes.append(AMF0Marker.switchToAMF3)
        write(value)
        let length = UInt32(bytes.count - lengthAt - 4)
        for index in 0..<4 { bytes[lengthAt + index] = UInt8(truncatingIfNeeded: length >> (24 - 8 * index)) }
    }
}
