/// Registering the fleet through Herald's public API, as apps would: one POST per device.
extension DemoFleet {
    /// The part of a registration answer the demo reads.
    struct Registered: Decodable {
        let registrationId: String
    }

    /// Registers every device with `inFlight` requests at a time; the first failure stops it.
    func register(through http: DemoHTTP, app: String, clientKey: String, inFlight: Int) async throws {
        let path = "\(app)/\(clientKey)/messaging/registrations"
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                let device = devices[next]
                next += 1
                group.addTask {
                    _ = try await http.call("POST", path, json: [
                        "deviceId": device.id, "deviceToken": device.token, "os": "IOS", "channels": [device.channel],
                    ], as: Registered.self)
                }
            }
            while next < min(inFlight, devices.count) { add() }
            while try await group.next() != nil {
                if next < devices.count { add() }
            }
        }
    }
}
