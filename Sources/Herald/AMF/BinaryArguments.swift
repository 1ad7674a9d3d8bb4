import HeraldAMF
import HeraldCore

/// A binary call's positional arguments, read with the faults a REST body's fields get (8008 naming the
/// argument as the SDK's documentation names it).
struct BinaryArguments {
    let values: [AMFValue]

    /// The argument at `index`; nil when absent, null or undefined.
    subscript(index: Int) -> AMFValue? {
        guard values.indices.contains(index), !values[index].isNull else { return nil }
        return values[index]
    }

    /// A text argument that must be there.
    func string(_ index: Int, _ name: String) throws(HeraldFault) -> String {
        guard let value = self[index] else { throw .missingParameter(name) }
        guard let text = value.string else { throw .invalidParameter(name, "expected a string, got \(value.typeName)") }
        return text
    }

    /// An object argument of the SDK's class (any alias is taken: the iOS SDK names some differently);
    /// nil when absent or null.
    func object(_ index: Int, _ name: String) throws(HeraldFault) -> AMFObject? {
        guard let value = self[index] else { return nil }
        guard let object = value.object else { throw .invalidParameter(name, "expected an object, got \(value.typeName)") }
        return object
    }

    /// A list of text (channel names); nil when absent or null.
    func strings(_ index: Int, _ name: String) throws(HeraldFault) -> [String]? {
        guard let value = self[index] else { return nil }
        guard let items = value.array else { throw .invalidParameter(name, "expected an array of strings, got \(value.typeName)") }
        var texts: [String] = []
        for item in items {
            guard let text = item.string else { throw .invalidParameter(name, "expected an array of strings, got \(item.typeName) in it") }
            texts.append(text)
        }
        return texts
    }
}

extension AMFValue {
    /// The value's kind as an error names it.
    var typeName: String {
        switch self {
        case .undefined: "undefined"
        case .null: "null"
        case .bool: "boolean"
        case .int, .double: "number"
        case .string: "string"
        case .date: "date"
        case .array: "array"
        case .object(let object): object.className.isEmpty ? "object" : object.className
        case .bytes: "byte array"
        case .xml: "XML"
        }
    }
}
