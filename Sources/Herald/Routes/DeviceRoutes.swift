import Foundation
import HeraldCore
import HeraldStore
import Hummingbird

/// The device registry's routes (`/{appId}/{apiKey}/devices/…`): launches now; the admin's listing,
/// record, switch and erasure as they land.
struct DeviceRoutes {
    let registry: any DeviceRegistryStore
    let apps: AppDirectory
    let clock: any WallClock

    func add(to router: Router<some RequestContext>) {
        router.post("/{appId}/{apiKey}/devices/{deviceId}/launches") { request, context in try await launch(request, context) }
    }

    /// Records a launch and answers whether the app may run. The body is optional: no body, or one with
    /// any of the registration's metadata fields.
    func launch(_ request: Request, _ context: some RequestContext) async throws -> Response {
        let scope = try AppScope(context, apps: apps, requires: .client)
        let deviceId = try DeviceID(validating: try AppScope.parameter("deviceId", context))
        let metadata: DeviceMetadata
        switch try await JSONBody.readOptional(request) {
        case nil: metadata = DeviceMetadata()
        case .object(let body)?: metadata = try DeviceMetadata(json: body)
        case let other?: throw HeraldFault.unparsable("the body must be a JSON object, not \(other.typeName)")
        }
        let record = try await registry.recordLaunch(app: scope.appId, deviceId: deviceId, metadata: metadata, now: clock.now)
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
