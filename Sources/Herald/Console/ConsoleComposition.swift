import Foundation
import HeraldCore

/// The Send form's values, and the publish body they make.
struct Composition {
    /// The form as posted (a single value per name).
    var values: [String: String]

    init(values: [String: String]) { self.values = values }

    init(form: QueryParameters) { values = form.all }

    func value(_ name: String) -> String { values[name] ?? "" }

    func checked(_ name: String) -> Bool { values[name] == "on" }

    /// Whether any of the folded options is set (the form then shows them open).
    var hasOptions: Bool {
        Self.headerFields.contains { !value($0).isEmpty } || !value("headers").isEmpty
            || ["ios-content-available", "ios-mutable-content"].contains(where: checked)
            || !["", "PUSH"].contains(value("publishPolicy"))
    }

    static let numericHeaders: Set<String> = ["apns-priority", "android-ttl", "web-ttl"]

    /// Form fields that are publish headers of the same name.
    static let headerFields = [
        "ios-category", "ios-thread-id", "apns-priority", "apns-collapse-id", "android-channel-id", "android-icon", "android-priority",
        "android-ttl", "android-collapse-key", "web-icon", "web-url", "web-urgency", "web-ttl", "web-topic",
    ]

    /// The publish body, and the channels it goes to (the first is the message's channel). Errors name the
    /// form's field as the API names its property.
    func body(now: Timestamp) throws(HeraldFault) -> (JSONValue, [ChannelName]) {
        var body: [String: JSONValue] = [
            "message": .string(value("message")), "publisherId": .string("herald-console"),
            "publishPolicy": .string(value("publishPolicy").isEmpty ? "PUSH" : value("publishPolicy")),
        ]
        if value("message").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw .invalidPushMessage("'message' is required: write the notification's text")
        }
        var headers: [String: JSONValue] = [:]
        for line in value("headers").split(whereSeparator: \.isNewline) where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                throw .invalidParameter("headers", "write each header as name: value, got '\(line.prefix(64))'")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw .invalidParameter("headers", "a header needs a name before ':'") }
            headers[name] = .string(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        func text(_ name: String) -> String? {
            let text = value(name).trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : text
        }
        if let title = text("title") {
            headers["ios-alert-title"] = .string(title)
            headers["android-content-title"] = .string(title)
        }
        if let subtitle = text("subtitle") { headers["ios-alert-subtitle"] = .string(subtitle) }
        if let badge = text("badge") {
            guard let number = Int64(badge), number >= 0 else { throw .invalidParameter("ios-badge", "a whole number, 0 or more") }
            headers["ios-badge"] = .integer(number)
        }
        if let sound = text("sound") {
            headers["ios-sound"] = .string(sound)
            headers["android-sound"] = .string(sound)
        }
        for name in Self.headerFields {
            guard let text = text(name) else { continue }
            // Numbers only where the API takes a number; a thread or collapse id "007" stays as written.
            headers[name] = Self.numericHeaders.contains(name) ? Int64(text).map(JSONValue.integer) ?? .string(text) : .string(text)
        }
        for name in ["ios-content-available", "ios-mutable-content"] where checked(name) { headers[name] = .bool(true) }
        if !headers.isEmpty { body["headers"] = .object(headers) }

        // Each ticked platform by its broadcast name (FOR_IOS, …).
        let platforms = DeviceOS.served.filter { checked(ConsoleRoutes.platformField($0)) }.map { "FOR_\($0.rawValue)" }
        if !platforms.isEmpty { body["pushBroadcast"] = .string(platforms.joined(separator: "|")) }

        if let segment = try segment(now: now) { body["segment"] = segment }

        var channels: [ChannelName] = []
        if value("audience") == "devices" {
            body["pushSinglecast"] = try singlecast()
            channels = [.default]
        } else {
            for name in Self.list(value("channels").isEmpty ? "default" : value("channels")) {
                let channel = try ChannelName(validating: name, property: "channelName")
                if !channels.contains(channel) { channels.append(channel) }
            }
            if channels.isEmpty { channels = [.default] }
            if channels.count > 100 { throw .tooManyValues(property: "channels", limit: 100) }
        }

        switch value("when") {
        case "at", "repeat":
            guard let first = try time("publishAt") else {
                throw .invalidPublishDate("give the time of the first push ('publishAt')")
            }
            body["publishAt"] = .integer(first.milliseconds)
            if value("when") == "repeat" {
                // Checked here as minutes (the API checks the seconds): a huge number must not overflow × 60.
                let most = PublishSchedule.maximumRepeatSeconds / 60
                guard let minutes = text("repeatMinutes").flatMap({ Int64($0) }), (1...most).contains(minutes) else {
                    throw .invalidParameter("repeatEvery", "give the minutes between pushes, from 1 to \(most)")
                }
                body["repeatEvery"] = .integer(minutes * 60)
                if let until = try time("repeatUntil") { body["repeatExpiresAt"] = .integer(until.milliseconds) }
            }
        default: break
        }
        return (.object(body), channels)
    }

    /// The segment fields as a publish's `segment` (nil: none given); the fields are the same on the Send
    /// page's two composers.
    func segment(now: Timestamp) throws(HeraldFault) -> JSONValue? {
        func text(_ name: String) -> String? {
            let text = value(name).trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : text
        }
        var segment: [String: JSONValue] = [:]
        if let version = text("appVersionAtLeast") { segment["appVersionAtLeast"] = .string(version) }
        if let version = text("appVersionBelow") { segment["appVersionBelow"] = .string(version) }
        if let locales = text("locales") { segment["locales"] = .array(Self.list(locales).map(JSONValue.string)) }
        if let models = text("deviceModels") {
            segment["deviceModels"] = .array(models.split(whereSeparator: \.isWhitespace).map { JSONValue.string(String($0)) })
        }
        if let days = text("seenWithinDays") {
            guard let number = Int64(days), (1...3660).contains(number) else {
                throw .invalidParameter("segment.seenSince", "days from 1 to 3660, got '\(days.prefix(16))'")
            }
            segment["seenSince"] = .integer(now.milliseconds - number * 86_400_000)
        }
        return segment.isEmpty ? nil : .object(segment)
    }

    /// The device ids field as a publish's `pushSinglecast`.
    func singlecast() throws(HeraldFault) -> JSONValue {
        let ids = value("devices").split(whereSeparator: { $0.isWhitespace || $0 == "," }).map { JSONValue.string(String($0)) }
        guard !ids.isEmpty else { throw .invalidParameter("pushSinglecast", "name at least one device id") }
        return .array(ids)
    }

    /// A time field: the epoch milliseconds console.js put beside it (the browser's zone), or else its
    /// `yyyy-MM-ddTHH:mm` value read as UTC. An error names `property` (by default the publish's for the field).
    func time(_ name: String, property: String? = nil) throws(HeraldFault) -> Timestamp? {
        if let milliseconds = Int64(value("\(name)Ms")), milliseconds > 0 { return Timestamp(milliseconds: milliseconds) }
        let text = value(name).trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        var parser = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().dateSeparator(.dash).time(
            includingFractionalSeconds: false
        )
        .timeSeparator(.colon)
        parser.timeZone = .gmt
        let padded = text.count == 16 ? text + ":00" : text
        guard let date = try? parser.parse(padded) else {
            throw .invalidParameter(
                property ?? (name == "publishAt" ? "publishAt" : "repeatExpiresAt"), "expected a date and time, got '\(text.prefix(32))'")
        }
        return Timestamp(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    /// Comma- or space-separated values.
    static func list(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
    }
}
