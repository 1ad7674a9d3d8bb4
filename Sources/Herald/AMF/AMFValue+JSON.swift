import HeraldAMF
import HeraldCore

extension AMFValue {
    /// The value as the REST routes' JSON reads it, so a binary call's arguments pass the same checks as a
    /// REST body: a date becomes epoch milliseconds, a whole double an integer (Java writes a long past
    /// 29 bits as a double), an object (typed or a Java map) its members, first name winning.
    func json(property: String) throws(HeraldFault) -> JSONValue {
        switch self {
        case .undefined, .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .integer(Int64(number))
        case .double(let number):
            if let whole = int64 { return .integer(whole) }
            guard number.isFinite else { throw .invalidParameter(property, "a number must be finite") }
            return .number(number)
        case .string(let text), .xml(let text): return .string(text)
        case .date(let milliseconds):
            guard let whole = AMFValue.double(milliseconds.rounded()).int64 else {
                throw .invalidParameter(property, "a date must be a finite time")
            }
            return .integer(whole)
        case .array(let items, let associative):
            if items.isEmpty, !associative.isEmpty {
                return try Self.object(associative, property: property)
            }
            var values: [JSONValue] = []
            values.reserveCapacity(items.count)
            for item in items { values.append(try item.json(property: property)) }
            return .array(values)
        case .object(let object): return try Self.object(object.members, property: property)
        case .bytes: throw .invalidParameter(property, "a byte array has no JSON form; send text or numbers")
        }
    }

    private static func object(_ members: [AMFMember], property: String) throws(HeraldFault) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        fields.reserveCapacity(members.count)
        for member in members where fields[member.name] == nil {
            fields[member.name] = try member.value.json(property: property)
        }
        return .object(fields)
    }

    /// A JSON value as the Java SDK reads it back: an object as an anonymous object (a `HashMap`), an
    /// integer as an AMF3 integer when it fits in 29 bits, else a double.
    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .integer(let number): self = AMFValue.integer(number)
        case .number(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .array(let items): self = .array(items.map(AMFValue.init(json:)))
        case .object(let fields):
            self = .object(
                AMFObject(members: fields.keys.sorted().map { AMFMember($0, AMFValue(json: fields[$0] ?? .null)) }))
        }
    }

    /// A whole number: an AMF3 integer within its 29 bits, a double beyond.
    static func integer(_ number: Int64) -> AMFValue {
        (-(1 << 28)..<(1 << 28)).contains(number) ? .int(Int32(number)) : .double(Double(number))
    }
}
