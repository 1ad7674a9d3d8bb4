/// AMF0 values (AMF 0 Specification, section 2), the packet's own encoding, from which a value switches to
/// AMF3 with the avmplus marker.
extension AMFDecoder {
    mutating func readAMF0() throws(AMFDecodingError) -> AMFValue {
        let start = offset
        let marker = try readU8("an AMF0 value's type marker")
        if marker == AMF0Marker.switchToAMF3 {
            startAMF3()
            return try readAMF3()
        }
        try spendValues(1, at: start)
        switch marker {
        case AMF0Marker.number: return .double(try readDouble("an AMF0 number"))
        case AMF0Marker.boolean: return .bool(try readU8("an AMF0 boolean") != 0)
        case AMF0Marker.string:
            return .string(try readUTF8(Int(try readU16("an AMF0 string's length")), "an AMF0 string", at: start))
        case AMF0Marker.longString:
            return .string(try readUTF8(Int(try readU32("an AMF0 long string's length")), "an AMF0 long string", at: start))
        case AMF0Marker.xmlDocument:
            return .xml(try readUTF8(Int(try readU32("an AMF0 XML text's length")), "an AMF0 XML text", at: start))
        case AMF0Marker.null: return .null
        case AMF0Marker.undefined: return .undefined
        case AMF0Marker.date:
            let milliseconds = try readDouble("an AMF0 date")
            _ = try readU16("an AMF0 date's time zone")  // reserved: always 0, dates are UTC
            return .date(milliseconds)
        case AMF0Marker.reference:
            return try resolve(amf0Objects, Int(try readU16("an AMF0 reference")), "AMF0 object", at: start)
        case AMF0Marker.object:
            return try readAMF0Object(className: "", isDynamic: true, at: start)
        case AMF0Marker.typedObject:
            let className = try readUTF8(Int(try readU16("a class name's length")), "a class name", at: offset - 2)
            return try readAMF0Object(className: className, isDynamic: false, at: start)
        case AMF0Marker.ecmaArray:
            _ = try readU32("an AMF0 ECMA array's count")  // a hint only: the members end with the end marker
            return try readAMF0Members(at: start) { .array([], associative: $0) }
        case AMF0Marker.strictArray: return try readAMF0StrictArray(at: start)
        case AMF0Marker.objectEnd:
            throw failure("an AMF0 object-end marker (0x09) stands where a value was expected", at: start)
        case AMF0Marker.movieClip, AMF0Marker.recordSet, AMF0Marker.unsupported:
            throw failure(
                "AMF0 type \(hexByte(marker)) (movie clip, record set or unsupported) is reserved and carries no value",
                at: start)
        default:
            throw failure("\(hexByte(marker)) is not an AMF0 type marker", at: start)
        }
    }

    /// An anonymous object reads as dynamic (its members are whatever the sender had); a typed object as
    /// sealed (a class's fields).
    mutating func readAMF0Object(
        className: String, isDynamic: Bool, at start: Int
    ) throws(AMFDecodingError) -> AMFValue {
        try readAMF0Members(at: start) {
            .object(AMFObject(className: className, members: $0, isDynamic: isDynamic))
        }
    }

    /// Name/value pairs up to an empty name and the object-end marker, as one entry of the AMF0 table.
    mutating func readAMF0Members(
        at start: Int, _ make: ([AMFMember]) -> AMFValue
    ) throws(AMFDecodingError) -> AMFValue {
        let slot = amf0Objects.count
        amf0Objects.append(Entry(value: nil, count: 0, height: 0))
        let mark = try descend(at: start)
        var members: [AMFMember] = []
        while true {
            let nameStart = offset
            let length = Int(try readU16("an AMF0 member name's length"))
            if length == 0 {
                guard try readU8("an AMF0 object-end marker") == AMF0Marker.objectEnd else {
                    throw failure("an empty AMF0 member name is not followed by the object-end marker 0x09", at: nameStart)
                }
                break
            }
            let name = try readUTF8(length, "an AMF0 member name", at: nameStart)
            try checkGrowth(members.count, "an AMF0 object or ECMA array", at: nameStart)
            members.append(AMFMember(name, try readAMF0()))
        }
        let value = make(members)
        let entry = ascend(mark)
        amf0Objects[slot] = Entry(value: value, count: entry.count, height: entry.height)
        return value
    }

    mutating func readAMF0StrictArray(at start: Int) throws(AMFDecodingError) -> AMFValue {
        let count = Int(try readU32("an AMF0 strict array's count"))
        try checkCount(count, minBytes: 1, "an AMF0 strict array's count", at: start)
        let slot = amf0Objects.count
        amf0Objects.append(Entry(value: nil, count: 0, height: 0))
        let mark = try descend(at: start)
        var items: [AMFValue] = []
        items.reserveCapacity(count)
        for _ in 0..<count { items.append(try readAMF0()) }
        let value = AMFValue.array(items)
        let entry = ascend(mark)
        amf0Objects[slot] = Entry(value: value, count: entry.count, height: entry.height)
        return value
    }
}
