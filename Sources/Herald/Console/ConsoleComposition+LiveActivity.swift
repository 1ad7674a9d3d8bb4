import Foundation
import HeraldCore

/// The Send page's Live Activity composer: its form as the body of
/// `POST /{appId}/{apiKey}/messaging/{channel}/live-activity`, which the publish route's own code then
/// checks (`LiveActivityPublish`, `LiveActivityEvent`). The composer checks only what a form adds: that
/// the JSON fields are JSON, and how the audience and dates are written.
extension Composition {
    /// The body and the channel it is published to.
    func liveActivityBody(now: Timestamp) throws(HeraldFault) -> (JSONValue, ChannelName) {
        func text(_ name: String) -> String? {
            let text = value(name).trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : text
        }
        var body: [String: JSONValue] = ["event": .string(text("event") ?? "update")]
        if let type = text("attributesType") { body["attributesType"] = .string(type) }
        if let activity = text("activityId") { body["activityId"] = .string(activity) }
        if let state = try json("contentState") { body["contentState"] = state }
        if let attributes = try json("attributes") { body["attributes"] = attributes }
        var alert: [String: JSONValue] = [:]
        if let title = text("alertTitle") { alert["title"] = .string(title) }
        if let message = text("alertBody") { alert["body"] = .string(message) }
        if let sound = text("alertSound") { alert["sound"] = .string(sound) }
        if !alert.isEmpty { body["alert"] = .object(alert) }
        for name in ["staleDate", "dismissalDate"] {
            if let date = try time(name, property: name) { body[name] = .integer(date.milliseconds) }
        }
        if let score = text("relevanceScore") {
            // A number as the API takes one; anything else goes as text for the route's own check to name.
            body["relevanceScore"] = Int64(score).map(JSONValue.integer) ?? Double(score).map(JSONValue.number) ?? .string(score)
        }
        if let priority = text("priority") { body["priority"] = Int64(priority).map(JSONValue.integer) ?? .string(priority) }
        if checked("inputPushToken") { body["inputPushToken"] = .bool(true) }
        if let segment = try segment(now: now) { body["segment"] = segment }
        if value("audience") == "devices" {
            body["pushSinglecast"] = try singlecast()
            return (.object(body), .default)
        }
        return (.object(body), try ChannelName(validating: text("channel") ?? "default", property: "channel"))
    }

    /// A JSON field (`contentState`, `attributes`): nil when empty, 8008 naming the field and where the text
    /// stops being JSON.
    func json(_ name: String) throws(HeraldFault) -> JSONValue? {
        let text = value(name).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return nil }
        do {
            return try JSONValue.parseDocument(Array(text.utf8))
        } catch {
            throw .invalidParameter(name, "not JSON at \(error.description)")
        }
    }

    /// The composer's field that a fault of the publish names (its property, quoted in 8000, 8007 and 8008
    /// messages, or a channel name's 5044), so the page can show the error beside it; nil: the whole form's.
    static func liveActivityField(of fault: HeraldFault) -> String? {
        if fault.code == 5044 { return "channel" }
        let message = fault.message
        guard [8000, 8007, 8008].contains(fault.code), let open = message.firstIndex(of: "'") else { return nil }
        let rest = message[message.index(after: open)...]
        guard let close = rest.firstIndex(of: "'") else { return nil }
        let property = rest[..<close]
        let root = String(property.prefix { $0 != "." && $0 != "[" })
        switch root {
        case "event", "attributesType", "activityId", "contentState", "attributes", "staleDate", "dismissalDate", "relevanceScore",
            "priority", "inputPushToken", "channel":
            return root
        case "alert": return "alertTitle"
        case "channelName": return "channel"
        case "pushSinglecast": return "devices"
        case "segment":
            let key = property.dropFirst("segment.".count)
            return key == "seenSince"
                ? "seenWithinDays" : ["appVersionAtLeast", "appVersionBelow", "locales", "deviceModels"].first { $0 == key }
        default: return nil
        }
    }
}
