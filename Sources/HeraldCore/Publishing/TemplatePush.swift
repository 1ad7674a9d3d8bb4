/// A push sent with a stored template (`POST …/messaging/push/{templateName}`): the template's texts
/// filled with the publish's values, in the shape the Backendless SDKs recognise on the device
/// (docs/design/issue-24-research.md, section 1.5).
///
/// The SDKs render a template push on the device from the template they downloaded; the push names it
/// (`template_name`) and carries what the values changed: the message and the titles. On iOS the
/// app's Notification Service Extension does the merging, so the push has `mutable-content: 1` and,
/// for a device without the extension, an alert of its own. On Android it is a data message (the SDK's
/// service builds the notification, on the template's channel `<appId>:<templateName>`).
public struct TemplatePush: Sendable, Equatable {
    public let template: PushTemplate
    /// `{name}` placeholder values, as text.
    public let values: [String: String]

    public static let maxValues = 100
    public static let maxValueLength = 1024

    /// Reads the publish body: `{"templateValues": {…}}` as the Swift and JS SDKs send it, a bare map of
    /// values as the Flutter SDK sends it, or nothing. A value is text, a number or true/false.
    public init(template: PushTemplate, body: JSONValue?) throws(HeraldFault) {
        self.template = template
        let given: [String: JSONValue]
        switch body {
        case nil, .null?: given = [:]
        case .object(let fields)?:
            switch fields["templateValues"] {
            case nil: given = fields
            case .null?: given = [:]
            case .object(let values)?: given = values
            case let other?: throw .invalidParameter("templateValues", "expected an object, got \(other.typeName)")
            }
        case let other?: throw .invalidParameter("body", "expected a JSON object, got \(other.typeName)")
        }
        guard given.count <= Self.maxValues else { throw .tooManyValues(property: "templateValues", limit: Self.maxValues) }
        var values: [String: String] = [:]
        for (key, value) in given {
            try Limits.check("templateValues", key, limit: Limits.headerName)
            if value == .null { continue }
            guard let text = value.scalarText else {
                throw .invalidParameter("templateValues.\(key.prefix(64))", "expected text, a number or true/false")
            }
            try Limits.check("templateValues.\(key.prefix(64))", text, limit: Self.maxValueLength)
            values[key] = text
        }
        self.values = values
    }

    /// The platforms the template's audience names (every one when it names none).
    public var broadcast: PushBroadcast {
        guard let systems = template.audience.systems else { return .all }
        return PushBroadcast(systems)
    }

    func fill(_ text: String) -> String { PushTemplate.fill(text, with: values) }

    func text(_ block: [String: JSONValue], _ field: String) -> String? {
        if case .string(let text)? = block[field] { return text }
        return nil
    }

    /// The filled message, which both platforms carry as `message`.
    var message: String? { template.message.map(fill) }

    /// The template's custom headers with their values filled, except the keys the push itself sets.
    func customHeaders(_ block: [String: JSONValue], reserved: Set<String>) -> [String: JSONValue] {
        guard case .object(let headers)? = block["customHeaders"] else { return [:] }
        var filled: [String: JSONValue] = [:]
        for (key, value) in headers where !reserved.contains(key) {
            if case .string(let text) = value { filled[key] = .string(fill(text)) }
        }
        return filled
    }

    /// What each push service receives: APNs when the audience has Apple devices, FCM when it has Android
    /// ones, Web Push when it has browsers. 5041 when a platform's push would have nothing to show, 8000
    /// over a service's size limit.
    public func contents() throws(HeraldFault) -> MessageContents {
        let broadcast = broadcast
        return MessageContents(
            apns: broadcast.includes(.ios) || broadcast.includes(.osx) ? try apns() : nil,
            fcm: broadcast.includes(.android) ? try fcm() : nil,
            webPush: broadcast.includes(.web) ? try webPush() : nil)
    }

    /// The Web Push plaintext: the filled title (the web block's, else Android's or iOS's), the message as
    /// its body, the web block's icon, badge, image, tag and page, and `template_name` with the filled
    /// custom headers under `data`. 5041 when there is neither a title nor a message to show.
    func webPush() throws(HeraldFault) -> WebPushContent {
        let web = template.web
        var notification: [String: JSONValue] = [:]
        let title = text(web, "title") ?? text(template.android, "contentTitle") ?? text(template.ios, "alertTitle")
        if let title { notification["title"] = .string(fill(title)) }
        if let message { notification["body"] = .string(message) }
        guard !notification.isEmpty else {
            throw .invalidPushMessage("template '\(template.name)' has nothing to show in a browser: give it a message or web.title")
        }
        for field in ["icon", "badge", "image", "tag", "url"] {
            if let value = text(web, field) { notification[field] = .string(fill(value)) }
        }
        var data = customHeaders(web, reserved: ["template_name"])
        data["template_name"] = .string(template.name)
        notification["data"] = .object(data)
        let payload = try APNsContent.encode(.object(notification))
        if payload.count > WebPushContent.maxPayloadBytes {
            throw .tooLong(property: "payload", length: payload.count, limit: WebPushContent.maxPayloadBytes)
        }
        return WebPushContent(payload: payload)
    }

    /// The APNs push: `template_name`, `message` and the filled titles as top-level keys (where the
    /// SDK's extension reads them), an alert for devices without it, `mutable-content: 1`; a silent push
    /// (`contentAvailable: 1`) wakes the app instead.
    func apns() throws(HeraldFault) -> APNsContent {
        let ios = template.ios
        var root = customHeaders(
            ios, reserved: ["aps", "template_name", "message", "ios-alert-title", "ios-alert-subtitle", "attachment-url"])
        root["template_name"] = .string(template.name)
        var alert: [String: JSONValue] = [:]
        if let message {
            root["message"] = .string(message)
            alert["body"] = .string(message)
        }
        if let title = text(ios, "alertTitle").map(fill) {
            root["ios-alert-title"] = .string(title)
            alert["title"] = .string(title)
        }
        if let subtitle = text(ios, "alertSubtitle").map(fill) {
            root["ios-alert-subtitle"] = .string(subtitle)
            alert["subtitle"] = .string(subtitle)
        }
        if let url = text(ios, "attachmentUrl") { root["attachment-url"] = .string(url) }
        var aps: [String: JSONValue] = [:]
        let silent = ios["contentAvailable"] == .integer(1)
        if silent {
            aps["content-available"] = .integer(1)
        } else {
            guard !alert.isEmpty || ios["badge"] != nil || ios["sound"] != nil else {
                throw .invalidPushMessage("template '\(template.name)' has nothing to show on iOS: give it a message or ios.alertTitle")
            }
            if !alert.isEmpty { aps["alert"] = .object(alert) }
            aps["mutable-content"] = .integer(1)
            if let badge = ios["badge"], badge != .null { aps["badge"] = badge }
            if let sound = text(ios, "sound") { aps["sound"] = .string(sound) }
        }
        if let thread = text(ios, "threadId") { aps["thread-id"] = .string(thread) }
        root["aps"] = .object(aps)
        let payload = try APNsContent.encode(.object(root))
        if payload.count > 4096 { throw .tooLong(property: "payload", length: payload.count, limit: 4096) }
        return APNsContent(
            payload: payload, pushType: silent ? "background" : "alert", priority: silent ? 5 : nil, expiration: nil, collapseId: nil)
    }

    /// The FCM push: a data message (the Android SDK's service shows it through the template), always
    /// with `message` (the SDK reads its length), and the filled titles under the keys that override the
    /// template's. Priority high when the template's is 4 or 5 (Android's high importance).
    func fcm() throws(HeraldFault) -> FCMContent {
        let android = template.android
        var data: [String: JSONValue] = [:]
        for (key, value) in customHeaders(
            android, reserved: ["template_name", "message", "android-content-title", "android-summary-subtext"])
        where !FCMContent.isReservedDataKey(key) {
            data[key] = value
        }
        data["template_name"] = .string(template.name)
        data["message"] = .string(message ?? "")
        if let title = text(android, "contentTitle").map(fill) { data["android-content-title"] = .string(title) }
        if let subtext = text(android, "summarySubText").map(fill) { data["android-summary-subtext"] = .string(subtext) }
        var object: [String: JSONValue] = ["data": .object(data)]
        if case .integer(let priority)? = android["priority"], priority >= 4 {
            object["android"] = .object(["priority": .string("HIGH")])
        }
        let encoded = try APNsContent.encode(.object(object))
        if encoded.count > FCMContent.maxPayloadBytes {
            throw .tooLong(property: "payload", length: encoded.count, limit: FCMContent.maxPayloadBytes)
        }
        return FCMContent(encodedMessage: encoded)
    }
}
