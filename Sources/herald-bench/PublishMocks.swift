import APNsMock
import FCMMock
import Foundation

/// The provider mocks `publish` runs in this process: the mock APNs always, the mock FCM with `--fcm`;
/// both over TLS with the repository's test certificate, nothing recorded (counts only).
struct PublishMocks: Sendable {
    let apns: APNsMock
    let fcm: FCMMock?

    /// Notifications each mock has accepted (answered 200) so far.
    struct Accepted: Sendable {
        var apns: Int
        var fcm: Int
        var total: Int { apns + fcm }

        static func - (after: Accepted, before: Accepted) -> Accepted {
            Accepted(apns: after.apns - before.apns, fcm: after.fcm - before.fcm)
        }
    }

    var accepted: Accepted { Accepted(apns: apns.stats().accepted, fcm: fcm?.stats().accepted ?? 0) }

    /// Requests the mock APNs has answered so far (the latency probe waits for the next one).
    var apnsRequests: Int { apns.stats().requests }

    static func start(fixtures: String, fcm: Bool) async throws -> PublishMocks {
        let tls = (certificate: fixtures + "/tls/server.crt", key: fixtures + "/tls/server.key")
        var apnsConfiguration = APNsMockConfiguration(
            transport: .tls(certificateChainFile: tls.certificate, privateKeyFile: tls.key),
            authentication: .token([
                try APNsMockSigningKey(
                    keyId: "TESTKEY001", teamId: "TESTTEAM01",
                    p8File: fixtures + "/keys/AuthKey_TESTKEY001.p8")
            ]))
        apnsConfiguration.topics = ["com.example.herald"]
        apnsConfiguration.recordNotifications = false
        let apns = try await APNsMock.start(apnsConfiguration)
        guard fcm else { return PublishMocks(apns: apns, fcm: nil) }
        do {
            var fcmConfiguration = FCMMockConfiguration(
                transport: .tls(certificateChainFile: tls.certificate, privateKeyFile: tls.key),
                serviceAccounts: [try FCMServiceAccount(keyFile: fixtures + "/fcm/service-account.json")])
            fcmConfiguration.recordMessages = false
            return PublishMocks(apns: apns, fcm: try await FCMMock.start(fcmConfiguration))
        } catch {
            try? await apns.shutdown()
            throw error
        }
    }

    /// The app's `fcm` block (JSON members) for the mock FCM: a copy of the test service account whose
    /// `token_uri` is the mock's token endpoint, written into `directory`. Nil without the mock.
    func fcmBlock(fixtures: String, directory: URL, connections: Int, streams: Int) throws -> String? {
        guard let fcm else { return nil }
        let file = try fcm.serviceAccountFile(
            copying: fixtures + "/fcm/service-account.json", to: directory.appendingPathComponent("service-account.json").path)
        let root = FileManager.default.currentDirectoryPath + "/" + fixtures
        return """
            "fcm": {"serviceAccountFile": "\(file)", "url": "\(fcm.baseURL)", "caFile": "\(root)/tls/ca.crt",
                    "connections": \(connections), "streamsPerConnection": \(streams)}
            """
    }

    func shutdown() async throws {
        try await apns.shutdown()
        try await fcm?.shutdown()
    }
}
