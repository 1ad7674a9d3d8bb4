import HeraldAMF
import HeraldCore
import HeraldStore

/// `DeviceRegistrationService`: what an Android app's `Backendless.Messaging.registerDevice` and its
/// relatives call.
extension BackendlessBinary {
    static let registrationClass = "com.backendless.management.DeviceRegistrationDto"
    /// The marker the SDK's JSON reader types a template by; without it Android 8+ apps fail to read them.
    static let androidTemplateClass = "com.backendless.messaging.AndroidPushTemplate"

    func registration(_ call: RemotingCall, _ arguments: BinaryArguments, app: String) async throws -> AMFValue {
        switch call.operation {
        case "registerDevice":
            guard let dto = try arguments.object(0, "deviceRegistration") else { throw HeraldFault.missingParameter("deviceRegistration") }
            let body = try Self.registrationBody(dto)
            let receipt = try await registrations.register(app: app, body: body)
            // Read again only for the answer: the registration above has refused an unknown one.
            let os = dto["os"]?.string.flatMap { try? DeviceOS(parsing: $0) } ?? .ios
            return .string(try await registrationAnswer(receipt, app: app, os: os))
        case "getDeviceRegistrationByDeviceId":
            let device = try await registrations.device(app: app, deviceId: try arguments.string(0, "deviceId"))
            return Self.registrationObject(device)
        case "unregisterDevice" where arguments.values.count < 2:
            try await registrations.unregister(app: app, deviceId: try arguments.string(0, "deviceId"))
            return .bool(true)
        case "unregisterDevice":
            let deviceId = try arguments.string(0, "deviceId")
            guard let channels = try arguments.strings(1, "channels") else {
                // Android's `unregisterDevice()` sends null: every channel, and nothing is left.
                try await registrations.unregister(app: app, deviceId: deviceId)
                return .int(0)
            }
            return AMFValue.integer(Int64(try await registrations.unregister(app: app, deviceId: deviceId, channels: channels)))
        case "refreshDeviceToken":
            try await registrations.replaceToken(
                app: app, deviceId: try arguments.string(0, "deviceId"), token: try arguments.string(1, "deviceToken"))
            return .bool(true)
        default:
            throw Self.notServed(call)
        }
    }

    /// The REST registration body for the SDK's `DeviceRegistrationDto` (its `id` is ignored, as REST ignores it).
    static func registrationBody(_ dto: AMFObject) throws(HeraldFault) -> JSONValue {
        var body: [String: JSONValue] = [:]
        for field in ["deviceToken", "deviceId", "os", "osVersion", "expiration", "channels"] {
            if let value = dto[field] { body[field] = try value.json(property: field) }
        }
        return .object(body)
    }

    /// The string the SDK parses: a JSON array of `"<id>::<channel>,…"` (channel name → registration id,
    /// as REST's `channels`) and the app's push templates for the device's platform.
    func registrationAnswer(_ receipt: RegistrationReceipt, app: String, os: DeviceOS) async throws -> String {
        let pairs = receipt.channelRegistrationIds.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { "\($0.value)::\($0.key.rawValue)" }.joined(separator: ",")
        let templates = try await self.templates.blockCache.text(app: app, os: os) { try await templatesText(app: app, os: os) }
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(pairs.utf8.count + templates.utf8.count + 8)
        JSONText.appendString(pairs, to: &out)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: templates.utf8)
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The app's push templates for the device's platform as JSON text: each Android one marked for the SDK's
    /// reader, the iOS ones as they download, none for other platforms.
    func templatesText(app: String, os: DeviceOS) async throws -> String {
        var blocks: [String: JSONValue] = [:]
        switch os {
        case .android:
            for (name, block) in try await templates.sdkBlocks(app: app, os: .android) {
                guard case .object(var fields) = block else { continue }
                fields["___jsonclass"] = .string(Self.androidTemplateClass)
                blocks[name] = .object(fields)
            }
        case .ios, .osx:
            blocks = try await templates.sdkBlocks(app: app, os: .ios)
        case .wp, .web:
            break
        }
        return SortedJSON.text(JSONValue.object(blocks))
    }

    /// A device as the SDK's `DeviceRegistration` reads it: one object (REST answers an array of one).
    static func registrationObject(_ device: DeviceRegistration) -> AMFValue {
        .object(
            AMFObject(
                className: registrationClass,
                members: [
                    AMFMember("id", .string(device.registrationId)),
                    AMFMember("deviceToken", .string(device.deviceToken)),
                    AMFMember("deviceId", .string(device.deviceId)),
                    AMFMember("os", .string(device.os.rawValue)),
                    AMFMember("osVersion", device.osVersion.map(AMFValue.string) ?? .null),
                    AMFMember("expiration", device.expiration.map { .date(Double($0.milliseconds)) } ?? .null),
                    AMFMember("channels", .array(device.channels.map { .string($0.rawValue) })),
                ]))
    }
}
