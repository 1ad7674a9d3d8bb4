extension AMFValue {
    /// The text of a string, nil for anything else.
    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A number from either AMF3 numeric form (Java writes an int as an integer or, past 29 bits, a double).
    public var number: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// A whole number from either numeric form; nil for a fraction, a non-finite double or out of range.
    public var int64: Int64? {
        switch self {
        case .int(let value): return Int64(value)
        case .double(let value):
            guard value.isFinite, value.rounded() == value, abs(value) < 9.2e18 else { return nil }
            return Int64(value)
        default: return nil
        }
    }

    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The dense part of an array.
    public var array: [AMFValue]? {
        if case .array(let items, _) = self { return items }
        return nil
    }

    public var object: AMFObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// Null and undefined alike: Java's null arrives as either.
    public var isNull: Bool {
        switch self {
        case .null, .undefined: true
        default: false
        }
    }
}
