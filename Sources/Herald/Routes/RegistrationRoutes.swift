import Foundation
import HeraldCore
import HeraldMetrics
import HeraldStore
import Hummingbird

/// Device registration, as in the contract's "Device registration" section.
struct RegistrationRoutes {
    let store: any RegistrationStore
    let apps: AppDirectory
    let clock: any WallClock
    let metrics: HeraldMetrics

    func add(to router: Router<HeraldRequestContext>) {
        let path = "/{appId}/{apiKey}/messaging/registrations"
        let client = router.requiring(.client, apps: apps)
        client.post(RouterPath(path)) { request, context in try await register(request, context) }
        client.get(RouterPath(path + "/{deviceId}")) { _, context in try await get(context) }
        client.delete(RouterPath(path + "/{deviceId}")) { request, context in try await delete(request, context) }
    }

    func register(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let receipt = try await register(app: try context.appId(), body: try await JSONBody.read(request))
        let channelIds = receipt.channelRegistrationIds.map { ($0.key.rawValue, JSONValue.string($0.value)) }
        return JSONBody.response(
            .object([
                "registrationId": .string(receipt.registrationId),
                "channels": .object(Dictionary(uniqueKeysWithValues: channelIds)),
            ]))
    }

    /// Checks a registration body and stores it: the REST route and the SDK's binary call both register so.
    func register(app: String, body: JSONValue) async throws -> RegistrationReceipt {
        let now = clock.now
        let registration = try RegistrationRequest(json: body, now: now, rules: apps.tokenRules(app: app))
        let receipt = try await store.register(app: app, registration, now: now)
        metrics.registered()
        return receipt
    }

    func get(_ context: HeraldRequestContext) async throws -> Response {
        let device = try await device(app: try context.appId(), deviceId: try AppScope.parameter("deviceId", context))
        return JSONBody.response(.array([device.json]))
    }

    /// The device and its live channels; 5000 when it has none.
    func device(app: String, deviceId: String) async throws -> DeviceRegistration {
        guard let device = try await store.device(app: app, deviceId: deviceId, now: clock.now) else {
            throw HeraldFault.unknownDeviceOnGet
        }
        return device
    }

    func delete(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let deviceId = try AppScope.parameter("deviceId", context)
        guard let list = try QueryParameters(request)["channels"] else {
            try await unregister(app: appId, deviceId: deviceId)
            return JSONBody.response(.object(["result": .bool(true)]))
        }
        let names = list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let remaining = try await unregister(app: appId, deviceId: deviceId, channels: names)
        return JSONBody.response(.object(["result": .bool(true), "remainingChannels": .integer(Int64(remaining))]))
    }

    /// Removes the device from every channel; 5000 when it has none.
    func unregister(app: String, deviceId: String) async throws {
        guard try await store.unregister(app: app, deviceId: deviceId, now: clock.now) else {
            throw HeraldFault.unknownDeviceOnDelete
        }
    }

    /// Removes the device from the named channels; returns how many live ones it has left (5000 when it had none).
    func unregister(app: String, deviceId: String, channels names: [String]) async throws -> Int {
        guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty }) else {
            throw HeraldFault.invalidParameter("channels", "expected a comma-separated list of channel names")
        }
        if names.count > Limits.channelsPerRegistration {
            throw HeraldFault.tooLong(property: "channels", length: names.count, limit: Limits.channelsPerRegistration)
        }
        let channels = Array(Set(try names.map { name throws(HeraldFault) in try ChannelName(validating: name, property: "channels") }))
        guard let remaining = try await store.unregister(app: app, deviceId: deviceId, channels: channels, now: clock.now) else {
            throw HeraldFault.unknownDeviceOnDelete
        }
        return remaining
    }

    /// Gives a registered device a new push token, keeping its channels and their expirations (the Java
    /// SDK's `refreshDeviceToken`; REST has no such call). 5000 when the device has no live channel.
    func replaceToken(app: String, deviceId: String, token: String) async throws {
        let now = clock.now
        guard let device = try await store.device(app: app, deviceId: deviceId, now: now) else { throw HeraldFault.unknownDevice }
        try Limits.check("deviceToken", token, limit: DeviceToken.limit(for: device.os))
        let validated = try DeviceToken(validating: token, os: device.os, rules: apps.tokenRules(app: app))
        guard try await store.replaceToken(app: app, deviceId: deviceId, token: validated, now: now) else {
            throw HeraldFault.unknownDevice
        }
    }
}

extension DeviceRegistration {
    /// The Backendless GET shape, plus the registry fields Herald keeps.
    var json: JSONValue {
        .object(
            [
                "id": .string(registrationId),
                "deviceToken": .string(deviceToken),
                "deviceId": .string(deviceId),
                "os": .string(os.rawValue),
                "osVersion": osVersion.map(JSONValue.string) ?? .null,
                "channels": .array(channels.map { .string($0.rawValue) }),
                "expiration": expiration.map { .integer($0.milliseconds) } ?? .null,
                "createdAt": .integer(createdAt.milliseconds),
                "lastSeenAt": .integer(lastSeenAt.milliseconds),
                "isActive": .bool(isActive),
            ].merging(metadata.jsonFields) { field, _ in field })
    }
}

extension DeviceMetadata {
    /// Every metadata field, null when the app never sent it, so the answer always has the same keys.
    var jsonFields: [String: JSONValue] {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return [
            "installId": text(installId), "deviceName": text(deviceName), "deviceModel": text(deviceModel),
            "appVersion": text(appVersion), "appBuild": text(appBuild), "locale": text(locale), "timeZone": text(timeZone),
            "location": location.map { location in
                .object([
                    "lat": .number(location.lat), "lon": .number(location.lon),
                    "accuracy": location.accuracy.map(JSONValue.number) ?? .null,
                ])
            } ?? .null,
        ]
    }
}
