import Foundation
import HeraldCore
import HeraldMetrics
import HeraldStore
import Hummingbird

/// The device registry's routes (`/{appId}/{apiKey}/devices/…`): launches now; the admin's listing,
/// record, switch and erasure as they land.
struct DeviceRoutes {
    let registry: any DeviceRegistryStore
    let apps: AppDirectory
    let clock: any WallClock
    let metrics: HeraldMetrics

    func add(to router: Router<HeraldRequestContext>) {
        let device = "/{appId}/{apiKey}/devices/{deviceId}"
        router.requiring(.client, apps: apps).post(RouterPath(device + "/launches")) { request, context in
            try await launch(request, context)
        }
        router.requiring(.server, apps: apps).get(RouterPath(device + "/deliveries")) { request, context in
            try await deliveries(request, context)
        }
        let admin = router.requiring(.admin, apps: apps)
        admin.get("/{appId}/{apiKey}/devices") { request, context in try await list(request, context) }
        admin.get(RouterPath(device + "/launches")) { request, context in try await launches(request, context) }
        admin.get(RouterPath(device)) { _, context in try await record(context) }
        admin.delete(RouterPath(device)) { _, context in try await erase(context) }
        admin.post(RouterPath(device + "/deactivate")) { request, context in try await deactivate(request, context) }
        admin.post(RouterPath(device + "/activate")) { _, context in try await activate(context) }
    }

    /// The app's devices that match the query's filters, a page at a time in key order (admin).
    func list(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let query = try QueryParameters(request)
        let filter = try DeviceFilter { name in query[name] }
        let page = try Page(request)
        let found = try await registry.devices(
            app: appId, filter: filter, after: page.cursor, limit: page.limit, scanLimit: Self.listingScanLimit, now: clock.now)
        return try JSONBody.response(
            encoding: DevicePage(
                devices: found.devices.map { DeviceRecordAnswer($0.record, channels: false) }, nextCursor: found.nextCursor.map(String.init)
            ))
    }

    /// The device's whole record (admin).
    func record(_ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let deviceId = try AppScope.parameter("deviceId", context)
        guard let record = try await registry.record(app: appId, deviceId: deviceId, now: clock.now) else {
            throw HeraldFault.unknownDevice
        }
        return try JSONBody.response(encoding: DeviceRecordAnswer(record))
    }

    /// Switches the device off (admin): no pushes, and its launches answer `allowed: false` with the reason.
    func deactivate(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let deviceId = try AppScope.parameter("deviceId", context)
        var reason: String?
        switch try await JSONBody.readOptional(request) {
        case nil: break
        case .object(let body)?:
            reason = try RegistrationRequest.optionalString(body, "reason")
            if let reason { try Limits.check("reason", reason, limit: Self.reasonLimit) }
        case let other?: throw HeraldFault.unparsable("the body must be a JSON object, not \(other.typeName)")
        }
        guard try await registry.setActive(app: appId, deviceId: deviceId, active: false, reason: reason, now: clock.now) else {
            throw HeraldFault.unknownDevice
        }
        metrics.deviceDeactivated()
        return JSONBody.response(.object(["result": .bool(true), "isActive": .bool(false)]))
    }

    /// Switches the device on again (admin), whoever switched it off.
    func activate(_ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let deviceId = try AppScope.parameter("deviceId", context)
        guard try await registry.setActive(app: appId, deviceId: deviceId, active: true, reason: nil, now: clock.now) else {
            throw HeraldFault.unknownDevice
        }
        return JSONBody.response(.object(["result": .bool(true), "isActive": .bool(true)]))
    }

    /// Erasure on request (admin): the device, its registrations and its launches.
    func erase(_ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let deviceId = try AppScope.parameter("deviceId", context)
        guard try await registry.erase(app: appId, deviceId: deviceId) else { throw HeraldFault.unknownDevice }
        return JSONBody.response(.object(["result": .bool(true)]))
    }

    /// The device's launches, newest first, a page at a time (admin).
    func launches(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let deviceId = try AppScope.parameter("deviceId", context)
        let page = try Page(request)
        guard let entries = try await registry.launches(app: appId, deviceId: deviceId, before: page.cursor, limit: page.limit + 1)
        else { throw HeraldFault.unknownDevice }
        let shown = entries.prefix(page.limit)
        let next = entries.count > page.limit ? shown.last.map { String($0.cursor) } : nil
        return try JSONBody.response(encoding: LaunchPage(launches: shown.map(LaunchPage.Entry.init), nextCursor: next))
    }

    /// The device's delivery history, newest first, a page at a time (admin, and server: a backend that
    /// publishes may look up what became of its messages).
    func deliveries(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let deviceId = try AppScope.parameter("deviceId", context)
        let page = try Page(request)
        guard let entries = try await registry.deliveries(app: appId, deviceId: deviceId, before: page.cursor, limit: page.limit + 1)
        else { throw HeraldFault.unknownDevice }
        let shown = entries.prefix(page.limit)
        let next = entries.count > page.limit ? shown.last.map { String($0.cursor) } : nil
        return try JSONBody.response(encoding: DeliveryPage(deliveries: shown.map(DeliveryPage.Entry.init), nextCursor: next))
    }

    /// Devices one filtered listing page looks at, at most: bounds a page's work (a few ms here) whatever the filter.
    static let listingScanLimit = 5_000

    /// Characters of an admin's deactivation reason at most.
    static let reasonLimit = 512

    /// Records a launch and answers whether the app may run. The body is optional: no body, or one with
    /// any of the registration's metadata fields.
    func launch(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let deviceId = try DeviceID(validating: try AppScope.parameter("deviceId", context))
        let metadata: DeviceMetadata
        switch try await JSONBody.readOptional(request) {
        case nil: metadata = DeviceMetadata()
        case .object(let body)?: metadata = try DeviceMetadata(json: body)
        case let other?: throw HeraldFault.unparsable("the body must be a JSON object, not \(other.typeName)")
        }
        let record = try await registry.recordLaunch(app: appId, deviceId: deviceId, metadata: metadata, now: clock.now)
        metrics.launched()
        return try JSONBody.response(encoding: LaunchAnswer(record))
    }
}

/// `POST …/launches`'s answer. `reason` is written as null, not left out, when there is none.
struct LaunchAnswer: Encodable {
    let record: LaunchRecord

    init(_ record: LaunchRecord) { self.record = record }

    enum CodingKeys: String, CodingKey { case allowed, reason, launchCount, firstLaunchAt, lastLaunchAt }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(record.allowed, forKey: .allowed)
        try container.encode(record.reason, forKey: .reason)
        try container.encode(record.launchCount, forKey: .launchCount)
        try container.encode(record.firstLaunchAt.milliseconds, forKey: .firstLaunchAt)
        try container.encode(record.lastLaunchAt.milliseconds, forKey: .lastLaunchAt)
    }
}

struct LaunchPage: Encodable {
    struct Entry: Encodable {
        let launchedAt: Int64
        let appVersion: String?
        let appBuild: String?

        init(_ entry: LaunchEntry) {
            launchedAt = entry.launchedAt.milliseconds
            appVersion = entry.appVersion
            appBuild = entry.appBuild
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(launchedAt, forKey: .launchedAt)
            try container.encode(appVersion, forKey: .appVersion)
            try container.encode(appBuild, forKey: .appBuild)
        }

        enum CodingKeys: String, CodingKey { case launchedAt, appVersion, appBuild }
    }

    let launches: [Entry]
    let nextCursor: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(launches, forKey: .launches)
        try container.encode(nextCursor, forKey: .nextCursor)
    }

    enum CodingKeys: String, CodingKey { case launches, nextCursor }
}

/// The admin's `GET …/devices/{deviceId}`: every field, null when unknown.
struct DeviceRecordAnswer: Encodable {
    let record: DeviceRecord
    /// The listing leaves channels out (one query per page, not per device).
    let channels: Bool

    init(_ record: DeviceRecord, channels: Bool = true) {
        self.record = record
        self.channels = channels
    }

    struct Key: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(record.deviceId, forKey: Key("deviceId"))
        try container.encode(record.deviceToken.isEmpty ? nil : record.deviceToken, forKey: Key("deviceToken"))
        try container.encode(record.os?.rawValue, forKey: Key("os"))
        try container.encode(record.osVersion, forKey: Key("osVersion"))
        for (name, value) in record.metadata.jsonFields { try container.encode(value, forKey: Key(name)) }
        if channels {
            try container.encode(
                record.channels.map { ChannelEntry(name: $0.name.rawValue, expiration: $0.expiration?.milliseconds) },
                forKey: Key("channels"))
        }
        try container.encode(record.isActive, forKey: Key("isActive"))
        try container.encode(record.inactiveReason, forKey: Key("inactiveReason"))
        try container.encode(record.deactivatedBy?.rawValue, forKey: Key("deactivatedBy"))
        try container.encode(record.launchCount, forKey: Key("launchCount"))
        try container.encode(record.firstLaunchAt?.milliseconds, forKey: Key("firstLaunchAt"))
        try container.encode(record.lastLaunchAt?.milliseconds, forKey: Key("lastLaunchAt"))
        try container.encode(record.createdAt.milliseconds, forKey: Key("createdAt"))
        try container.encode(record.lastSeenAt.milliseconds, forKey: Key("lastSeenAt"))
    }

    struct ChannelEntry: Encodable {
        let name: String
        let expiration: Int64?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(expiration, forKey: .expiration)
        }

        enum CodingKeys: String, CodingKey { case name, expiration }
    }
}

/// `GET …/devices`'s answer.
struct DevicePage: Encodable {
    let devices: [DeviceRecordAnswer]
    let nextCursor: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(devices, forKey: .devices)
        try container.encode(nextCursor, forKey: .nextCursor)
    }

    enum CodingKeys: String, CodingKey { case devices, nextCursor }
}

struct DeliveryPage: Encodable {
    struct Entry: Encodable {
        let entry: DeliveryEntry

        init(_ entry: DeliveryEntry) { self.entry = entry }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(entry.messageId, forKey: .messageId)
            try container.encode(entry.deliveredAt.milliseconds, forKey: .deliveredAt)
            try container.encode(entry.outcome, forKey: .outcome)
            try container.encode(entry.reason, forKey: .reason)
            try container.encode(entry.templateName, forKey: .templateName)
        }

        enum CodingKeys: String, CodingKey { case messageId, deliveredAt, outcome, reason, templateName }
    }

    let deliveries: [Entry]
    let nextCursor: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(deliveries, forKey: .deliveries)
        try container.encode(nextCursor, forKey: .nextCursor)
    }

    enum CodingKeys: String, CodingKey { case deliveries, nextCursor }
}
