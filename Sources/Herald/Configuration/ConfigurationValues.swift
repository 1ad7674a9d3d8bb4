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

/// The configuration's values as strings (flags over `HERALD_*` over the file), and each block's values
/// read through its declarations (`SettingValues`), with errors that name the block and the setting.
struct ConfigurationValues {
    let reader: ConfigReader
    /// Every setting read that was given, by key, a secret's value masked: the console's effective configuration.
    let given = Locked<[String: String]>([:])

    func string(_ key: String, secret: Bool = false) -> String? {
        let value = reader.string(forKey: ConfigKey(key), isSecret: secret)
        if let value, !value.isEmpty { given.withLock { $0[key] = secret ? EffectiveSetting.masked : value } }
        return value
    }

    /// A top-level block's values, read through its declarations.
    func block(_ key: String, _ declared: [Setting]) -> SettingValues {
        SettingValues(declared, path: key) { key, secret in string(key, secret: secret) }
    }

    /// Runs `read`, naming the block in its error (`configuration: history.days must be between 1 and 3650`).
    func checked(_ block: String, _ read: () throws(SettingError) -> Void) throws(ConfigurationError) {
        do {
            try read()
        } catch {
            throw ConfigurationError("configuration: \(block).\(error.message)")
        }
    }
}
