/// AMF3 values (AMF 3 Specification, section 3), with its string and object reference tables.
extension AMFDecoder {
    /// A U29 header of a complex value: a reference into the object table (low bit 0) or, for an inline
    /// value, the bits above the low one.
    enum Header {
        case reference(AMFValue)
        case inline(Int)
    }

    /// Empties the three AMF3 tables: each switch from AMF0 to AMF3 starts them anew.
    mutating func startAMF3() {
        strings.removeAll(keepingCapacity: true)
        objects.removeAll(keepingCapacity: true)
        traits.removeAll(keepingCapacity: true)
    }

    mutating func readAMF3() throws(AMFDecodingError) -> AMFValue {
        let start = offset
        let marker = try readU8("an AMF3 value's type marker")
        try spendValues(1, at: start)
        switch marker {
        case AMF3Marker.undefined: return .undefined
        case AMF3Marker.null: return .null
        case AMF3Marker.false: return .bool(false)
        case AMF3Marker.true: return .bool(true)
        case AMF3Marker.integer:
            // 29 bits, two's complement: shift the sign bit (bit 28) up to bit 31 and back.
            let bits = try readU29("an AMF3 integer")
            return .int(Int32(bitPattern: bits << 3) >> 3)
        case AMF3Marker.double: return .double(try readDouble("an AMF3 double"))
        case AMF3Marker.string: return .string(try readAMF3String("an AMF3 string"))
        case AMF3Marker.xmlDocument, AMF3Marker.xml:
            switch try readHeader("an AMF3 XML value", at: start) {
            case .reference(let value): return value
            case .inline(let length):
                let text = try readUTF8(length, "an AMF3 XML text", at: start)
                return record(.xml(text))
            }
        case AMF3Marker.date:
            switch try readHeader("an AMF3 date", at: start) {
            case .reference(let value): return value
            case .inline: return record(.date(try readDouble("an AMF3 date's milliseconds")))
            }
        case AMF3Marker.byteArray:
            switch try readHeader("an AMF3 byte array", at: start) {
            case .reference(let value): return value
            case .inline(let length): return record(.bytes(try readRaw(length, "an AMF3 byte array", at: start)))
            }
        case AMF3Marker.array: return try readAMF3Array(at: start)
        case AMF3Marker.object: return try readAMF3Object(at: start)
        case AMF3Marker.vectorInt, AMF3Marker.vectorUInt, AMF3Marker.vectorDouble, AMF3Marker.vectorObject:
            return try readAMF3Vector(marker, at: start)
        case AMF3Marker.dictionary:
            throw failure(
                "AMF3 dictionaries (type 0x11) are not supported: ActionScript sends them, Java and the Backendless SDKs do not",
                at: start)
        default:
            throw failure("\(hexByte(marker)) is not an AMF3 type marker", at: start)
        }
    }

    /// A string: inline (and then added to the string table unless empty) or a reference to that table.
    mutating func readAMF3String(_ what: @autoclosure () -> String) throws(AMFDecodingError) -> String {
        let start = offset
        let header = Int(try readU29(what()))
        guard header & 1 == 1 else {
            let index = header >> 1
            guard index < strings.count else {
                throw failure(
                    "\(what()) is string reference \(index), out of range (\(strings.count) strings read so far)",
                    at: start)
            }
            return strings[index]
        }
        let length = header >> 1
        if length == 0 { return "" }
        let text = try readUTF8(length, what(), at: start)
        strings.append(text)
        return text
    }

    /// The U29 that starts a date, array, object, XML value, byte array or vector.
    mutating func readHeader(_ what: @autoclosure () -> String, at start: Int) throws(AMFDecodingError) -> Header {
        let bits = Int(try readU29(what()))
        guard bits & 1 == 1 else { return .reference(try resolve(objects, bits >> 1, "AMF3 object", at: start)) }
        return .inline(bits >> 1)
    }

    /// Adds a value that holds no other value (date, XML, bytes) to the object table.
    mutating func record(_ value: AMFValue) -> AMFValue {
        objects.append(Entry(value: value, count: 0, height: 0))
        return value
    }

    /// Holds a place in the object table for a container before its members are read (they may refer to
    /// the table too, and the specification numbers the container first).
    mutating func reserveObject() -> Int {
        objects.append(Entry(value: nil, count: 0, height: 0))
        return objects.count - 1
    }

    mutating func fillObject(_ slot: Int, _ value: AMFValue, _ entry: Entry) {
        objects[slot] = Entry(value: value, count: entry.count, height: entry.height)
    }

    /// An array: the associative part (name/value pairs ending with an empty name), then the dense part.
    mutating func readAMF3Array(at start: Int) throws(AMFDecodingError) -> AMFValue {
        let count: Int
        switch try readHeader("an AMF3 array", at: start) {
        case .reference(let value): return value
        case .inline(let inline): count = inline
        }
        try checkCount(count, minBytes: 1, "an AMF3 array's count", at: start)
        let slot = reserveObject()
        let mark = try descend(at: start)
        var associative: [AMFMember] = []
        while true {
            let nameStart = offset
            let name = try readAMF3String("an AMF3 array's member name")
            if name.isEmpty { break }
            try checkGrowth(associative.count, "an AMF3 array's associative part", at: nameStart)
            associative.append(AMFMember(name, try readAMF3()))
        }
        var dense: [AMFValue] = []
        dense.reserveCapacity(count)
        for _ in 0..<count { dense.append(try readAMF3()) }
        let value = AMFValue.array(dense, associative: associative)
        fillObject(slot, value, ascend(mark))
        return value
    }

    /// A vector (Flash 10's typed arrays), read as an array: int and uint elements as integers where they
    /// fit AMF3's 29 bits and as doubles otherwise, so that writing the array back keeps each value.
    mutating func readAMF3Vector(_ marker: UInt8, at start: Int) throws(AMFDecodingError) -> AMFValue {
        let count: Int
        switch try readHeader("an AMF3 vector", at: start) {
        case .reference(let value): return value
        case .inline(let inline): count = inline
        }
        _ = try readU8("an AMF3 vector's fixed-length flag")
        let slot = reserveObject()
        if marker == AMF3Marker.vectorObject { _ = try readAMF3String("an AMF3 vector's element type") }
        let width = marker == AMF3Marker.vectorObject ? 1 : marker == AMF3Marker.vectorDouble ? 8 : 4
        try checkCount(count, minBytes: width, "an AMF3 vector's count", at: start)
        let mark = try descend(at: start)
        var items: [AMFValue] = []
        items.reserveCapacity(count)
        if marker == AMF3Marker.vectorObject {
            for _ in 0..<count { items.append(try readAMF3()) }
        } else {
            try spendValues(count, at: start)
            for _ in 0..<count {
                let item: AMFValue
                switch marker {
                case AMF3Marker.vectorInt: item = Self.integer(Int64(Int32(bitPattern: try readU32("an int"))))
                case AMF3Marker.vectorUInt: item = Self.integer(Int64(try readU32("a uint")))
                default: item = .double(try readDouble("a double"))
                }
                items.append(item)
            }
        }
        let value = AMFValue.array(items)
        fillObject(slot, value, ascend(mark))
        return value
    }

    /// `.int` within AMF3's 29-bit range, `.double` beyond it: what the encoder writes either as.
    static func integer(_ value: Int64) -> AMFValue {
        (-(1 << 28)...(1 << 28) - 1).contains(value) ? .int(Int32(value)) : .double(Double(value))
    }
}
