/// What an app tells Herald about the install besides its token: all optional, each checked against
/// the contract (8000 over a limit, naming the property; 8008 for a wrong type or value).
///
/// A call sends some of them; `merged(over:)` keeps what an earlier call stored for the rest, so a
/// re-registration or a launch updates what it sends and nothing else. `null` means "not sent".
public struct DeviceMetadata: Sendable, Equatable {
    /// The app's own persistent id for this install.
    public var installId: String?
    /// A friendly name such as "John's iPhone".
    public var deviceName: String?
    public var deviceModel: String?
    public var appVersion: String?
    public var appBuild: String?
    /// A BCP 47 language tag (`en`, `de-CH`, `zh-Hant-TW`).
    public var locale: String?
    /// An IANA time zone name (`Europe/Zurich`).
    public var timeZone: String?
    public var location: DeviceLocation?

    public init(
        installId: String? = nil, deviceName: String? = nil, deviceModel: String? = nil, appVersion: String? = nil,
        appBuild: String? = nil, locale: String? = nil, timeZone: String? = nil, location: DeviceLocation? = nil
    ) {
        self.installId = installId
        self.deviceName = deviceName
        self.deviceModel = deviceModel
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.locale = locale
        self.timeZone = timeZone
        self.location = location
    }

    /// The contract's limits, in characters.
    public static let limits: [(name: String, limit: Int)] = [
        ("installId", 64), ("deviceName", 128), ("deviceModel", 64), ("appVersion", 32), ("appBuild", 32),
        ("locale", 35), ("timeZone", 64),
    ]

    /// Reads the metadata fields of a registration or launch body; other keys are not looked at.
    public init(json body: [String: JSONValue]) throws(HeraldFault) {
        var texts: [String: String] = [:]
        for (name, limit) in Self.limits {
            guard let text = try RegistrationRequest.optionalString(body, name) else { continue }
            try Limits.check(name, text, limit: limit)
            texts[name] = text
        }
        if let locale = texts["locale"], !Self.isLanguageTag(locale) {
            throw .invalidParameter("locale", "expected a BCP 47 language tag such as en-US")
        }
        if let zone = texts["timeZone"], !Self.isTimeZoneName(zone) {
            throw .invalidParameter("timeZone", "expected an IANA time zone name such as Europe/Zurich")
        }
        self.init(
            installId: texts["installId"], deviceName: texts["deviceName"], deviceModel: texts["deviceModel"],
            appVersion: texts["appVersion"], appBuild: texts["appBuild"], locale: texts["locale"],
            timeZone: texts["timeZone"], location: try DeviceLocation(json: body["location"]))
    }

    /// `appVersion`'s sort key (`AppVersion.key`), stored beside it so a segment compares versions in SQL;
    /// nil when there is no version or it does not start with a number.
    public var appVersionKey: String? { appVersion.flatMap(AppVersion.init)?.key }

    /// This call's values where it sent them, `stored` where it did not. A location is one value.
    public func merged(over stored: DeviceMetadata) -> DeviceMetadata {
        DeviceMetadata(
            installId: installId ?? stored.installId, deviceName: deviceName ?? stored.deviceName,
            deviceModel: deviceModel ?? stored.deviceModel, appVersion: appVersion ?? stored.appVersion,
            appBuild: appBuild ?? stored.appBuild, locale: locale ?? stored.locale, timeZone: timeZone ?? stored.timeZone,
            location: location ?? stored.location)
    }

    /// Letters for the language, then `-` and letters or digits, each part 1 to 8 long (RFC 5646's shape,
    /// without its registry: Herald stores the tag, it does not interpret it beyond prefix matching).
    static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// `Area/Location` names as the tz database writes them (`America/Argentina/Buenos_Aires`, `UTC`, `Etc/GMT+5`).
    static func isTimeZoneName(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_+-".contains($0)) }
        }
    }
}

/// Where the device was, as the app reported it.
public struct DeviceLocation: Sendable, Equatable {
    /// Degrees, -90…90.
    public var lat: Double
    /// Degrees, -180…180.
    public var lon: Double
    /// Metres, 0 or more; nil when the app did not say.
    public var accuracy: Double?

    public init(lat: Double, lon: Double, accuracy: Double? = nil) {
        self.lat = lat
        self.lon = lon
        self.accuracy = accuracy
    }

    /// nil for an absent or null `location`; 8008 for anything but an object with numbers in range.
    init?(json: JSONValue?) throws(HeraldFault) {
        guard let json, json != .null else { return nil }
        guard case .object(let fields) = json else {
            throw .invalidParameter("location", "expected an object {\"lat\", \"lon\", \"accuracy\"}, got \(json.typeName)")
        }
        func number(_ name: String, _ range: ClosedRange<Double>, required: Bool) throws(HeraldFault) -> Double? {
            let value: Double
            switch fields[name] {
            case nil, .null?:
                guard !required else { throw .invalidParameter("location", "\(name) is required") }
                return nil
            case .integer(let number)?: value = Double(number)
            case .number(let number)?: value = number
            case let other?: throw .invalidParameter("location", "\(name) must be a number, got \(other.typeName)")
            }
            guard range.contains(value) else {
                throw .invalidParameter("location", "\(name) must be between \(range.lowerBound) and \(range.upperBound)")
            }
            return value
        }
        for key in fields.keys where !["lat", "lon", "accuracy"].contains(key) {
            throw .invalidParameter("location", "unknown field '\(key)' (expected lat, lon, accuracy)")
        }
        guard let lat = try number("lat", -90...90, required: true), let lon = try number("lon", -180...180, required: true) else {
            return nil
        }
        self.init(lat: lat, lon: lon, accuracy: try number("accuracy", 0...Double.greatestFiniteMagnitude, required: false))
    }
}
