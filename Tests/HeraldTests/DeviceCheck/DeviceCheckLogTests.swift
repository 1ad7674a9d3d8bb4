import DeviceCheckMock
import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

/// The built binary at log level trace, its app's DeviceCheck pointed at the mock: calls that succeed,
/// that Apple refuses and that run out of retries are logged, and no log line holds a whole device
/// token or the key's JWT.
@Suite(.timeLimit(.minutes(1))) struct DeviceCheckLogTests {
    @Test func noWholeDeviceTokenReachesTheLog() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var configuration = DeviceCheckMockConfiguration(
            transport: .tls(certificateChainFile: FixtureFiles.serverCertificate, privateKeyFile: FixtureFiles.serverKey),
            signingKeys: [
                try DeviceCheckMockSigningKey(keyId: FixtureFiles.keyID, teamId: FixtureFiles.teamID, p8File: FixtureFiles.keyFile())
            ])
        configuration.threads = 1
        let mock = try await DeviceCheckMock.start(configuration)
        defer { Task { try? await mock.shutdown() } }
        let config = try scratch.write(
            "herald.json",
            """
            {"sweeper": {"intervalSeconds": 0}, "log": {"level": "trace"},
             "apps": [{"id": "shop", "keys": [{"key": "k-server-logs", "role": "server"}],
                       "deviceCheck": {"environment": "custom", "url": "\(mock.baseURL)", "caFile": "\(FixtureFiles.caFile)",
                                       "teamId": "\(FixtureFiles.teamID)", "keyId": "\(FixtureFiles.keyID)",
                                       "privateKeyFile": "\(FixtureFiles.keyFile())"}}]}
            """)
        let server = try HeraldProcess(
            ["serve", "--config", config, "--port", "0", "--database", "sqlite://" + scratch.path("h.sqlite")])
        let base = try await server.waitUntilListening()
        let tokens = (1...3).map { index in
            Data((0..<120).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ index) }).base64EncodedString()
        }
        mock.script(token: tokens[1], .reject(status: 400), times: nil)
        mock.script(token: tokens[2], .reject(status: 503), times: nil)
        var statuses: [Int] = []
        for token in tokens {
            let answer = try await HTTP.send(
                "POST", base.appendingPathComponent("shop/k-server-logs/devicecheck/query"), json: #"{"deviceToken": "\#(token)"}"#)
            statuses.append(answer.status)
        }
        #expect(statuses == [200, 400, 503])
        server.process.terminate()
        _ = try await server.waitForExit()
        // The pipe is read on its own thread: give it a moment to deliver the last lines.
        let drained = ContinuousClock.now + .seconds(5)
        while server.stderr.components(separatedBy: "DeviceCheck call failed").count < 3, ContinuousClock.now < drained {
            try await Task.sleep(for: .milliseconds(20))
        }
        let log = server.stderr
        #expect(log.contains("DeviceCheck call failed"), "the refusals are logged")
        #expect(log.contains(String(tokens[2].prefix(8))), "by their first characters")
        for token in tokens {
            #expect(!log.contains(token), "a whole device token in the log")
            #expect(!log.contains(String(token.prefix(16))), "more than 8 characters of a device token in the log")
        }
        #expect(!log.lowercased().contains("bearer "), "a bearer token in the log")
    }
}
