import Configuration
import Foundation
import HeraldAPNs
import HeraldCore
import HeraldDeviceCheck
import HeraldDispatch
import HeraldFCM
import HeraldStore
import HeraldWebhooks
import Logging

/// Typed reads over string-valued settings, with errors that name the setting.
struct Settings {
    let reader: ConfigReader

    func string(_ key: String, secret: Bool = false) -> String? {
        reader.string(forKey: ConfigKey(key), isSecret: secret)
    }

    func integer(_ key: String) throws(ConfigurationError) -> Int? {
        guard let text = string(key) else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError("configuration: \(key) must be a whole number, not '\(text)'")
        }
        return value
    }

    /// A whole number that must lie in `range`; the error names the setting and the range.
    func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let value = try integer(key) else { return nil }
        guard range.contains(value) else {
            throw ConfigurationError("configuration: \(key) must be between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }

    /// A number that must lie in `range`; the error names the setting, the range and its `unit`.
    func number(_ key: String, in range: ClosedRange<Double>, unit: String = "") throws(ConfigurationError) -> Double? {
        guard let value = try number(key) else { return nil }
        guard range.contains(value) else {
            throw ConfigurationError("configuration: \(key) must be between \(range.lowerBound) and \(range.upperBound)\(unit)")
        }
        return value
    }

    func number(_ key: String) throws(ConfigurationError) -> Double? {
        guard let text = string(key) else { return nil }
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            throw ConfigurationError("configuration: \(key) must be a number, not '\(text)'")
        }
        return value
    }
}
