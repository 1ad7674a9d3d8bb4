import HeraldCore
import HeraldStore
import Hummingbird

/// The app's side of Live Activities (client key): a device's push-to-start token per ActivityKit
/// attributes type, and each running activity's update token; the admin's view of a device's tokens.
struct LiveActivityTokenRoutes {
    let store: any RegistrationStore
    let apps: AppDirectory
    let clock: any WallClock

    func add(to router: Router<HeraldRequestContext>) {
        let device = "/{appId}/{apiKey}/devices/{deviceId}"
        let client = router.requiring(.client, apps: apps)
        client.put(RouterPath(device + "/activity-start-tokens/{attributesType}")) { request, context in
            try await setStartToken(request, context)
        }
        client.delete(RouterPath(device + "/activity-start-tokens/{attributesType}")) { _, context in
            try await removeStartToken(context)
        }
        client.put(RouterPath(device + "/live-activities/{activityId}")) { request, context in try await putActivity(request, context) }
        client.delete(RouterPath(device + "/live-activities/{activityId}")) { _, context in try await removeActivity(context) }
        router.requiring(.admin, apps: apps).get(RouterPath(device + "/live-activities")) { _, context in try await list(context) }
    }

    /// `{"token": "<hex>"}`: stores or rotates the device's push-to-start token for the type.
    func setStartToken(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let (app, deviceId) = (try context.appId(), try AppScope.parameter("deviceId", context))
        let type = try Self.attributesType(try AppScope.parameter("attributesType", context))
        let body = try JSONBody.object(try await JSONBody.read(request), allowed: ["token"])
        let token = try Self.token(body)
        try Self.check(try await store.setStartToken(app: app, deviceId: deviceId, attributesType: type, token: token, now: clock.now))
        return JSONBody.response(.object(["result": .bool(true)]))
    }

    func removeStartToken(_ context: HeraldRequestContext) async throws -> Response {
        let (app, deviceId) = (try context.appId(), try AppScope.parameter("deviceId", context))
        let type = try Self.attributesType(try AppScope.parameter("attributesType", context))
        guard try await store.removeStartToken(app: app, deviceId: deviceId, attributesType: type) else {
            throw HeraldFault.unknownLiveActivity
        }
        return JSONBody.response(.object(["result": .bool(true)]))
    }

    /// `{"attributesType": "…", "token": "<hex>"}`: stores a running activity's update token, or rotates it.
    func putActivity(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let (app, deviceId) = (try context.appId(), try AppScope.parameter("deviceId", context))
        let activityId = try AppScope.parameter("activityId", context)
        try LiveActivityID.check(activityId)
        let body = try JSONBody.object(try await JSONBody.read(request), allowed: ["attributesType", "token"])
        guard let typeText = try RegistrationRequest.optionalString(body, "attributesType") else {
            throw HeraldFault.missingParameter("attributesType")
        }
        let type = try Self.attributesType(typeText)
        let token = try Self.token(body)
        let written = try await store.putActivity(
            app: app, deviceId: deviceId, activityId: activityId, attributesType: type, token: token, now: clock.now)
        try Self.check(written)
        guard case .stored(let expiresAt) = written else { throw HeraldFault.internalError }
        return JSONBody.response(.object(["result": .bool(true), "expiresAt": expiresAt.map { .integer($0.milliseconds) } ?? .null]))
    }

    func removeActivity(_ context: HeraldRequestContext) async throws -> Response {
        let (app, deviceId) = (try context.appId(), try AppScope.parameter("deviceId", context))
        guard try await store.removeActivity(app: app, deviceId: deviceId, activityId: try AppScope.parameter("activityId", context))
        else { throw HeraldFault.unknownLiveActivity }
        return JSONBody.response(.object(["result": .bool(true)]))
    }

    /// The device's push-to-start tokens and activities (admin).
    func list(_ context: HeraldRequestContext) async throws -> Response {
        let (app, deviceId) = (try context.appId(), try AppScope.parameter("deviceId", context))
        guard let found = try await store.liveActivities(app: app, deviceId: deviceId, now: clock.now) else {
            throw HeraldFault.unknownDevice
        }
        return JSONBody.response(found.json)
    }

    static func check(_ written: LiveActivityWrite) throws {
        switch written {
        case .stored: return
        case .unknownDevice: throw HeraldFault.unknownDevice
        case .notIOS(let os): throw HeraldFault.liveActivitiesNeedIOS(os)
        }
    }

    /// An APNs token (hex, as a device token is) from the body's `token`.
    static func token(_ body: [String: JSONValue]) throws -> String {
        guard let token = try RegistrationRequest.optionalString(body, "token"), !token.isEmpty else {
            throw HeraldFault.missingParameter("token")
        }
        return try DeviceToken(validating: token, os: .ios, property: "token").rawValue
    }

    static func attributesType(_ text: String) throws -> String {
        guard !text.isEmpty else { throw HeraldFault.missingParameter("attributesType") }
        try Limits.check("attributesType", text, limit: LiveActivityEvent.attributesTypeLimit)
        try Limits.checkPrintable("attributesType", text)
        return text
    }
}

extension DeviceLiveActivities {
    /// The admin's listing.
    var json: JSONValue {
        .object([
            "startTokens": .array(
                startTokens.map { start in
                    .object([
                        "attributesType": .string(start.attributesType), "token": .string(start.token),
                        "updatedAt": .integer(start.updatedAt.milliseconds),
                    ])
                }),
            "activities": .array(
                activities.map { activity in
                    .object([
                        "activityId": .string(activity.activityId), "attributesType": .string(activity.attributesType),
                        "token": .string(activity.token), "startedAt": .integer(activity.startedAt.milliseconds),
                        "updatedAt": .integer(activity.updatedAt.milliseconds),
                        "endedAt": activity.endedAt.map { .integer($0.milliseconds) } ?? .null,
                        "expiresAt": .integer(activity.expiresAt.milliseconds),
                    ])
                }),
        ])
    }
}
