/// Writes AMF3 values, with string and traits references (the same string or object shape written again
/// costs a byte or two). Objects are always written inline: values are copies, so there is no identity to
/// refer to.
struct AMF3Encoder {
    /// A string compared and hashed by its UTF-8 bytes, not by Unicode equivalence as `String` is: a
    /// reference must give back the very bytes, not an equivalent spelling.
    struct UTF8Key: Hashable {
        var text: String

        static func == (lhs: UTF8Key, rhs: UTF8Key) -> Bool {
            var left = lhs.text
            var right = rhs.text
            return left.withUTF8 { left in right.withUTF8 { right in left.elementsEqual(right) } }
        }

        func hash(into hasher: inout Hasher) {
            var text = text
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    /// An object's traits as written: an object of the same shape refers to them.
    struct TraitsKey: Hashable {
        var className: UTF8Key
        var sealed: [UTF8Key]
        var isDynamic: Bool
    }

    var bytes: [UInt8] = []
    var strings: [UTF8Key: Int] = [:]
    var traits: [TraitsKey: Int] = [:]
    init() {
        bytes.reserveCapacity(512)
        strings.reserveCapacity(64)
        traits.reserveCapacity(16)
    }

    /// Each value switched to AMF3 starts the reference tables anew, as a reader does.
    mutating func startValue() {
        strings.removeAll(keepingCapacity: true)
        traits.removeAll(keepingCapacity: true)
    }

    mutating func write(_ value: AMFValue) {
        switch value {
        case .undefined: bytes.append(AMF3Marker.undefined)
        case .null: bytes.append(AMF3Marker.null)
        case .bool(let flag): bytes.append(flag ? AMF3Marker.true : AMF3Marker.false)
        case .int(let number) where number >= -(1 << 28) && number < 1 << 28:
            bytes.append(AMF3Marker.integer)
            writeU29(Int(UInt32(bitPattern: number) & 0x1FFF_FFFF))
        case .int(let number): writeDouble(Double(number))
        case .double(let number): writeDouble(number)
        case .string(let text):
            bytes.append(AMF3Marker.string)
            writeString(text)
        case .date(let milliseconds):
            bytes.append(AMF3Marker.date)
            writeU29(1)
            writeRawDouble(milliseconds)
        case .xml(let text):
            bytes.append(AMF3Marker.xml)
            writeU29(text.utf8.count << 1 | 1)
            bytes.append(contentsOf: text.utf8)
        case .bytes(let data):
            bytes.append(AMF3Marker.byteArray)
            writeU29(data.count << 1 | 1)
            bytes.append(contentsOf: data)
        case .array(let dense, let associative):
            bytes.append(AMF3Marker.array)
            writeU29(dense.count << 1 | 1)
            for member in associative where !member.name.isEmpty {
                writeString(member.name)
                write(member.value)
            }
            writeString("")
            for item in dense { write(item) }
        case .object(let object): writeObject(object)
        }
    }

    /// Sealed traits with every member, or, for a dynamic object, dynamic traits whose members all follow
    /// as dynamic ones; except that a member named `""`, which would end the dynamic list, and the members
    /// before it are written as sealed ones, so the member order survives.
    mutating func writeObject(_ object: AMFObject) {
        bytes.append(AMF3Marker.object)
        let sealedCount =
            object.isDynamic
            ? (object.members.lastIndex { $0.name.isEmpty }.map { $0 + 1 } ?? 0) : object.members.count
        let sealed = object.members[..<sealedCount]
        let key = TraitsKey(
            className: UTF8Key(text: object.className), sealed: sealed.map { UTF8Key(text: $0.name) },
            isDynamic: object.isDynamic)
        if let index = traits[key] {
            writeU29(index << 2 | 0b01)
        } else {
            traits[key] = traits.count
            precondition(sealedCount < 1 << 25, "AMF3 cannot write \(sealedCount) sealed members")
            writeU29(sealedCount << 4 | (object.isDynamic ? 0b1000 : 0) | 0b011)
            writeString(object.className)
            for member in sealed { writeString(member.name) }
        }
        for member in sealed { write(member.value) }
        guard object.isDynamic else { return }
        for member in object.members[sealedCount...] {
            writeString(member.name)
            write(member.value)
        }
        writeString("")
    }

    /// A string inline (and remembered, unless empty: the specification never refers to "") or as a
    /// reference to the same bytes written before.
    mutating func writeString(_ text: String) {
        if text.isEmpty { return bytes.append(0x01) }
        let key = UTF8Key(text: text)
        if let index = strings[key] { return writeU29(index << 1) }
        strings[key] = strings.count
        writeU29(text.utf8.count << 1 | 1)
        bytes.append(contentsOf: text.utf8)
    }

    mutating func writeDouble(_ number: Double) {
        bytes.append(AMF3Marker.double)
        writeRawDouble(number)
    }

    mutating func writeRawDouble(_ number: Double) {
        let bits = number.bitPattern
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> shift)) }
    }

    /// AMF3's variable-length 29-bit integer: 7 bits a byte with a continuation bit, a fourth byte of 8.
    mutating func writeU29(_ value: Int) {
        precondition(value >= 0 && value < 1 << 29, "AMF3 cannot write \(value) in 29 bits")
        if value < 0x80 {
            bytes.append(UInt8(value))
        } else if value < 0x4000 {
            bytes.append(UInt8(value >> 7 | 0x80))
            bytes.append(UInt8(value & 0x7F))
        } else if value < 0x20_0000 {
            bytes.append(UInt8(value >> 14 | 0x80))
            bytes.append(UInt8(value >> 7 & 0x7F | 0x80))
            bytes.append(UInt8(value & 0x7F))
        } else {
            bytes.append(UInt8(value >> 22 | 0x80))
            bytes.append(UInt8(value >> 15 & 0x7F | 0x80))
            bytes.append(UInt8(value >> 8 & 0x7F | 0x80))
            bytes.append(UInt8(value & 0xFF))
        }
    }
}
