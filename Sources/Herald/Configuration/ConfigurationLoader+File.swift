import Configuration
import Foundation
import HeraldCore

/// The configuration file: read as strict JSON and flattened into the keys swift-configuration reads.
extension ConfigurationLoader {
    static func readJSON(_ path: String) throws(ConfigurationError) -> JSONValue {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError("configuration file '\(path)' cannot be read: \(Self.reason(error))")
        }
        let document: JSONValue
        do {
            document = try JSONValue.parseDocument(data)
        } catch {
            throw ConfigurationError(
                error.duplicateKey == nil
                    ? "configuration file '\(path)' is not valid JSON: it breaks at \(error)" : "configuration file '\(path)': \(error)")
        }
        do {
            try ConfigurationSchema.file.check(document)
        } catch {
            throw ConfigurationError("configuration file '\(path)': \(error.text)")
        }
        return document
    }

    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain {
            switch nsError.code {
            case NSFileReadNoSuchFileError: return "no such file"
            case NSFileReadNoPermissionError: return "permission denied"
            default: break
            }
        }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }

    /// Turns the JSON document into `herald.`-prefixed keys with string values.
    static func flatten(_ document: JSONValue) throws(ConfigurationError) -> [AbsoluteConfigKey: ConfigValue] {
        guard case .object(let root) = document else {
            throw ConfigurationError("configuration file must hold a JSON object")
        }
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        var pending: [([String], JSONValue)] = root.filter { !ConfigurationSchema.isComment($0.key) }.map {
            (["herald", $0.key], $0.value)
        }
        while let (path, value) = pending.popLast() {
            let text: String
            switch value {
            case .object(let object):
                pending.append(contentsOf: object.filter { !ConfigurationSchema.isComment($0.key) }.map { (path + [$0.key], $0.value) })
                continue
            case .array(let array):
                pending.append(contentsOf: array.enumerated().map { (path + [String($0.offset)], $0.element) })
                continue
            case .null: continue
            case .string(let string): text = string
            case .integer(let number): text = String(number)
            case .number(let number): text = String(number)
            case .bool(let flag): text = String(flag)
            }
            values[AbsoluteConfigKey(path)] = ConfigValue(.string(text), isSecret: path.last == "key")
        }
        return values
    }
}
