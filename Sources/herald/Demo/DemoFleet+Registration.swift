import HeraldCore
import HeraldStore

/// Registering the fleet: a sample through Herald's public API, as apps would (one POST per device), and
/// the rest straight through Herald's store, the call the route makes once a body is validated.
extension DemoFleet {
    /// The part of a registration answer the demo reads.
    struct Registered: Decodable {
        let registrationId: String
    }

    /// Every `sampleEvery`th device goes through HTTP; the others through the store.
    static let sampleEvery = 100

    var overHTTP: [Device] { devices.enumerated().filter { $0.offset % Self.sampleEvery == 0 }.map(\.element) }
    var throughStore: [Device] { devices.enumerated().filter { $0.offset % Self.sampleEvery != 0 }.map(\.element) }

    /// Registers `devices` with `inFlight` requests at a time; the first failure stops it.
    func register(_ devices: [Device], through http: DemoHTTP, app: String, clientKey: String, inFlight: Int) async throws {
        let path = "\(app)/\(clientKey)/messaging/registrations"
        try await Self.forEach(devices, inFlight: inFlight) { device in
            _ = try await http.call(
                "POST", path,
                json: [
                    "deviceId": device.id, "deviceToken": device.token, "os": device.os.rawValue, "channels": [device.channel],
                ], as: Registered.self)
        }
    }

    /// The checks the demo app's tokens get: its `webPush` block allows private hosts, since the mock Web
    /// Push service that the browsers' subscriptions name listens on 127.0.0.1.
    static let tokenRules = DeviceToken.Rules(webPushHosts: .init(allowPrivateHosts: true))

    /// Registers `devices` with `SQLRegistrationStore.register` on Herald's own database file (a second
    /// connection beside the running server's; SQLite serialises the writers), `inFlight` at a time.
    func register(_ devices: [Device], into store: SQLRegistrationStore, app: String, inFlight: Int) async throws {
        try await Self.forEach(devices, inFlight: inFlight) { device in
            let request = RegistrationRequest(
                deviceId: try DeviceID(validating: device.id),
                deviceToken: try DeviceToken(validating: device.token, os: device.os, rules: Self.tokenRules),
                os: device.os, osVersion: nil, channels: [try ChannelName(validating: device.channel)], expiration: nil)
            let now = SystemClock().now
            _ = try await store.register(app: app, request, now: now)
        }
    }

    /// Runs `body` for every device with at most `inFlight` running at once; the first failure stops it.
    private static func forEach(
        _ devices: [Device], inFlight: Int,
        _ body: @escaping @Sendable (Device) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                let device = devices[next]
                next += 1
                group.addTask { try await body(device) }
            }
            while next < min(inFlight, devices.count) { add() }
            while try await group.next() != nil {
                if next < devices.count { add() }
            }
        }
    }
}
