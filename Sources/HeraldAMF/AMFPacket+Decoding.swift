extension AMFPacket {
    /// Reads a whole packet (AMF0 framing, values in AMF0 or switched to AMF3), refusing anything cut short,
    /// malformed, left over after the last body, or past `limits`; never reads outside `bytes` and never
    /// allocates for a length the bytes cannot hold.
    public init(decoding bytes: [UInt8], limits: AMFLimits = AMFLimits()) throws(AMFDecodingError) {
        self = try bytes.withUnsafeBufferPointer { (buffer) throws(AMFDecodingError) -> AMFPacket in
            var decoder = AMFDecoder(bytes: buffer, limits: limits)
            return try decoder.readPacket()
        }
    }
}

extension AMFDecoder {
    /// The smallest header (name length, flag, value length, one marker) and body (two string lengths,
    /// value length, one marker), to refuse a count the bytes cannot hold before reserving for it.
    static let minimumHeaderBytes = 8
    static let minimumBodyBytes = 9

    mutating func readPacket() throws(AMFDecodingError) -> AMFPacket {
        let version = try readU16("the packet's version")
        var countStart = offset
        let headerCount = Int(try readU16("the packet's header count"))
        try checkCount(headerCount, minBytes: Self.minimumHeaderBytes, "the packet's header count", at: countStart)
        var headers: [AMFHeader] = []
        headers.reserveCapacity(headerCount)
        for _ in 0..<headerCount {
            let name = try readShortString("a header's name")
            let mustUnderstand = try readU8("a header's must-understand flag") != 0
            headers.append(AMFHeader(name: name, mustUnderstand: mustUnderstand, value: try readBodyValue("a header")))
        }
        countStart = offset
        let messageCount = Int(try readU16("the packet's body count"))
        try checkCount(messageCount, minBytes: Self.minimumBodyBytes, "the packet's body count", at: countStart)
        var messages: [AMFMessage] = []
        messages.reserveCapacity(messageCount)
        for _ in 0..<messageCount {
            let target = try readShortString("a body's target URI")
            let response = try readShortString("a body's response URI")
            messages.append(AMFMessage(targetURI: target, responseURI: response, value: try readBodyValue("a body")))
        }
        guard remaining == 0 else {
            let extra = remaining == 1 ? "1 byte follows" : "\(remaining) bytes follow"
            throw failure("\(extra) the last body (a packet ends with its last body)", at: offset)
        }
        return AMFPacket(version: version, headers: headers, messages: messages)
    }

    /// AMF0's UTF-8 string with a 16-bit length, as the packet's names and URIs are written.
    mutating func readShortString(_ what: @autoclosure () -> String) throws(AMFDecodingError) -> String {
        let start = offset
        return try readUTF8(Int(try readU16("\(what())'s length")), what(), at: start)
    }

    /// A header's or body's value after its 32-bit length, which is not checked: the Backendless SDKs send
    /// 0xFFFFFFFF (unknown), Py3AMF sends 0, and Flex's own server reads the value whatever it says. Each
    /// value has its own AMF0 reference table.
    mutating func readBodyValue(_ what: @autoclosure () -> String) throws(AMFDecodingError) -> AMFValue {
        _ = try readU32("\(what())'s value length")
        amf0Objects.removeAll(keepingCapacity: true)
        return try readAMF0()
    }
}
