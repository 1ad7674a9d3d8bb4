/// AMF3 objects: traits (inline or by reference), sealed and dynamic members, and the externalizable
/// Flex wrappers that are simple enough to read.
extension AMFDecoder {
    /// Flex's externalizable classes that wrap exactly one value (`readExternal` reads one object): read
    /// as that value. Any other externalizable class writes a format only its own code knows.
    static let wrapperClasses: Set<String> = [
        "flex.messaging.io.ArrayCollection", "flex.messaging.io.ArrayList", "flex.messaging.io.ObjectProxy",
    ]

    mutating func readAMF3Object(at start: Int) throws(AMFDecodingError) -> AMFValue {
        let bits: Int
        switch try readHeader("an AMF3 object", at: start) {
        case .reference(let value): return value
        case .inline(let inline): bits = inline
        }
        let slot = reserveObject()
        let shape = try readTraits(bits, at: start)
        if shape.isExternalizable { return try readExternalizable(shape.className, slot, at: start) }
        let mark = try descend(at: start)
        // Each sealed value takes at least its marker byte.
        try checkCount(shape.sealed.count, minBytes: 1, "an AMF3 object's sealed members", at: start)
        var members: [AMFMember] = []
        members.reserveCapacity(shape.sealed.count)
        for name in shape.sealed { members.append(AMFMember(name, try readAMF3())) }
        if shape.isDynamic {
            while true {
                let nameStart = offset
                let name = try readAMF3String("an AMF3 object's dynamic member name")
                if name.isEmpty { break }
                try checkGrowth(members.count, "an AMF3 object", at: nameStart)
                members.append(AMFMember(name, try readAMF3()))
            }
        }
        let value = AMFValue.object(
            AMFObject(className: shape.className, members: members, isDynamic: shape.isDynamic))
        fillObject(slot, value, ascend(mark))
        return value
    }

    /// The traits behind an inline object's header bits (the U29O without its low bit): a reference to the
    /// traits table, externalizable traits (a class name only), or a class name and sealed member names.
    mutating func readTraits(_ bits: Int, at start: Int) throws(AMFDecodingError) -> Traits {
        guard bits & 1 == 1 else {
            let index = bits >> 1
            guard index < traits.count else {
                throw failure(
                    "AMF3 traits reference \(index) is out of range (\(traits.count) traits read so far)", at: start)
            }
            return traits[index]
        }
        if bits & 2 == 2 {
            let className = try readAMF3String("an externalizable object's class name")
            let shape = Traits(className: className, sealed: [], isDynamic: false, isExternalizable: true)
            traits.append(shape)
            return shape
        }
        let count = bits >> 3
        let className = try readAMF3String("an AMF3 object's class name")
        try checkCount(count, minBytes: 1, "an AMF3 object's sealed member names", at: start)
        var sealed: [String] = []
        sealed.reserveCapacity(count)
        for _ in 0..<count { sealed.append(try readAMF3String("an AMF3 object's sealed member name")) }
        let shape = Traits(className: className, sealed: sealed, isDynamic: bits & 4 == 4, isExternalizable: false)
        traits.append(shape)
        return shape
    }

    /// An externalizable object: one of Flex's one-value wrappers is read as the value it wraps; any other
    /// class is refused, since its bytes follow a format only that class's code knows.
    mutating func readExternalizable(
        _ className: String, _ slot: Int, at start: Int
    ) throws(AMFDecodingError) -> AMFValue {
        guard Self.wrapperClasses.contains(className) else {
            let name = className.isEmpty ? "with no class name" : "of class \(className)"
            throw failure(
                "an externalizable AMF3 object \(name) writes its own format, which cannot be read without its code",
                at: start)
        }
        let mark = try descend(at: start)
        let value = try readAMF3()
        fillObject(slot, value, ascend(mark))
        return value
    }
}
