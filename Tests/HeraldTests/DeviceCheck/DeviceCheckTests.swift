import DeviceCheckMock
import Foundation
import Herald
import HeraldCore
import HeraldDeviceCheck
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Apple DeviceCheck through Herald, end to end over HTTP: Herald's routes, its DeviceCheck client on
/// the shared curl layer, and the mock DeviceCheck over TLS checking the ES256 token as Apple does.
@Suite struct DeviceCheckTests {
    /// Device tokens as DCDevice gives them: base64 of opaque bytes.
    static func token(_ index: Int) -> String {
        Data((0..<96).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }).base64EncodedString()
    }

    /// Starts the mock on Herald's test clock and runs `body` with shop's DeviceCheck pointed at it
    /// (`keyId` another than the mock knows, for a refused key); blog has no deviceCheck block.
    static func with(
        keyId: String = FixtureFiles.keyID, noStateText: String? = nil,
        _ body: @escaping @Sendable (TestHerald.Harness, DeviceCheckMock) async throws -> Void
    ) async throws {
        var configuration = DeviceCheckMockConfiguration(
            transport: .tls(certificateChainFile: FixtureFiles.serverCertificate, privateKeyFile: FixtureFiles.serverKey),
            signingKeys: [
                try DeviceCheckMockSigningKey(keyId: FixtureFiles.keyID, teamId: FixtureFiles.teamID, p8File: FixtureFiles.keyFile())
            ])
        configuration.threads = 1
        configuration.now = { Double(TestHerald.t0.milliseconds) / 1000 }
        if let noStateText { configuration.noStateText = noStateText }
        let mock = try await DeviceCheckMock.start(configuration)
        var apps = TestHerald.apps
        apps[0].deviceCheck = DeviceCheckAppConfiguration(
            environment: .custom(url: mock.baseURL, caFile: FixtureFiles.caFile), teamID: FixtureFiles.teamID, keyID: keyId,
            privateKeyFile: FixtureFiles.keyFile())
        do {
            try await TestHerald.with(setup: .live, apps: apps) { h in try await body(h, mock) }
        } catch {
            try? await mock.shutdown()
            throw error
        }
        try await mock.shutdown()
    }

    static let base = "/shop/k-server/devicecheck"

    @Test func validateQueryAndUpdateTheTwoBits() async throws {
        try await Self.with { h, mock in
            let token = Self.token(1)
            let valid = try await h.client.call(.post, Self.base + "/validate", json: #"{"deviceToken": "\#(token)"}"#)
            #expect(valid.status == .ok)
            #expect(valid.body == .object(["valid": .bool(true)]))

            // Never set: Apple answers plain text, which is no state whatever its words.
            let before = try await h.client.call(.post, Self.base + "/query", json: #"{"deviceToken": "\#(token)"}"#)
            #expect(before.status == .ok)
            #expect(before.body == .object(["bitsSet": .bool(false)]))

            let first = try await h.client.call(.post, Self.base + "/update", json: #"{"deviceToken": "\#(token)", "bit0": true}"#)
            #expect(first.status == .ok)
            #expect(first.body == .object(["result": .bool(true)]))
            let one = try await h.client.call(.post, Self.base + "/query", json: #"{"deviceToken": "\#(token)"}"#)
            #expect(
                one.body
                    == .object(["bitsSet": .bool(true), "bit0": .bool(true), "bit1": .bool(false), "lastUpdateTime": .string("2027-01")]))

            #expect(
                try await h.client.call(.post, Self.base + "/update", json: #"{"deviceToken": "\#(token)", "bit0": false, "bit1": true}"#)
                    .status == .ok)
            let both = try await h.client.call(.post, Self.base + "/query", json: #"{"deviceToken": "\#(token)"}"#)
            #expect(both.body["bit0"] == .bool(false))
            #expect(both.body["bit1"] == .bool(true))
            // Herald added a transaction id and a timestamp to each of Apple's requests.
            let requests = mock.requests()
            #expect(requests.count == 6)
            #expect(Set(requests.map(\.transactionId)).count == 6, "a transaction id of its own for each request")
            #expect(requests.allSatisfy { $0.timestamp == TestHerald.t0.milliseconds })
            #expect(mock.bits(token: token) == DeviceCheckMockBits(bit0: false, bit1: true, lastUpdateTime: "2027-01"))
        }
    }

    @Test func noStateIsToldByTheMissingJSONNotByAppleWords() async throws {
        try await Self.with(noStateText: "Failed to find bit state") { h, _ in
            let answer = try await h.client.call(.post, Self.base + "/query", json: #"{"deviceToken": "\#(Self.token(2))"}"#)
            #expect(answer.status == .ok)
            #expect(answer.body == .object(["bitsSet": .bool(false)]))
        }
    }

    @Test func badTokensAndBadBodiesGetTheirCodes() async throws {
        try await Self.with { h, mock in
            func code(_ path: String, _ json: String) async throws -> (HTTPResponse.Status, Int64?) {
                let answer = try await h.client.call(.post, Self.base + path, json: json)
                if case .integer(let code)? = answer.body["code"] { return (answer.status, code) }
                return (answer.status, nil)
            }
            #expect(try await code("/query", #"{"deviceToken": "not base64!"}"#) == (.badRequest, 8008))
            #expect(try await code("/query", #"{}"#) == (.badRequest, 8007))
            #expect(try await code("/query", #"{"deviceToken": 42}"#) == (.badRequest, 8008))
            #expect(try await code("/query", #"[1]"#) == (.badRequest, 8002))
            #expect(try await code("/update", #"{"deviceToken": "QUJD", "bit0": "yes"}"#) == (.badRequest, 8008))
            #expect(try await code("/update", #"{"deviceToken": "QUJD"}"#) == (.badRequest, 8008), "nothing to update")
            let long = String(repeating: "A", count: 8193)
            #expect(try await code("/query", #"{"deviceToken": "\#(long)"}"#) == (.badRequest, 8000))
            #expect(mock.stats().requests == 0, "none of these reached Apple")

            // A token Apple refuses: 400 5071 for a query or an update, and `valid: false` for validation.
            let refused = Self.token(3)
            mock.script(token: refused, .reject(status: 400), times: nil)
            #expect(try await code("/query", #"{"deviceToken": "\#(refused)"}"#) == (.badRequest, 5071))
            #expect(try await code("/update", #"{"deviceToken": "\#(refused)", "bit1": true}"#) == (.badRequest, 5071))
            let validation = try await h.client.call(.post, Self.base + "/validate", json: #"{"deviceToken": "\#(refused)"}"#)
            #expect(validation.status == .ok)
            #expect(validation.body["valid"] == .bool(false))
            #expect(validation.body["reason"] == .string("Missing or incorrectly formatted device token payload"))
        }
    }

    @Test func aKeyAppleDoesNotKnowIs502() async throws {
        try await Self.with(keyId: "WRONGKEY01") { h, mock in
            let answer = try await h.client.call(.post, Self.base + "/query", json: #"{"deviceToken": "\#(Self.token(4))"}"#)
            #expect(answer.status == .badGateway)
            #expect(answer.body["code"] == .integer(5072))
            #expect(answer.body["message"] == .string("Apple DeviceCheck refused the app's credentials"))
            #expect(mock.stats().requests == 2, "one new token is tried before giving up")
        }
    }

    @Test func throttlingIsRetriedAndAnOutageRunsOutOfRetries() async throws {
        try await Self.with { h, mock in
            let busy = Self.token(5)
            mock.script(token: busy, .reject(status: 429), times: 1)
            let answer = try await h.client.call(.post, Self.base + "/update", json: #"{"deviceToken": "\#(busy)", "bit0": true}"#)
            #expect(answer.status == .ok)
            #expect(answer.body == .object(["result": .bool(true)]))
            #expect(mock.bits(token: busy)?.bit0 == true)

            let down = Self.token(6)
            mock.script(token: down, .reject(status: 500), times: nil)
            let before = mock.stats().requests
            let failed = try await h.client.call(.post, Self.base + "/query", json: #"{"deviceToken": "\#(down)"}"#)
            #expect(failed.status == .serviceUnavailable)
            #expect(failed.body["code"] == .integer(5073))
            #expect(mock.stats().requests - before == 3, "three attempts in all")
            // Counted by operation and outcome, retries inside one call; no token in a label.
            let metrics = try await Exposition.read(h.client)
            #expect(metrics[#"herald_devicecheck_calls_total{operation="update",outcome="ok"}"#] == 1)
            #expect(metrics[#"herald_devicecheck_calls_total{operation="query",outcome="unavailable"}"#] == 1)
            #expect(metrics[#"herald_devicecheck_call_duration_seconds_count{operation="query"}"#] == 1)
            let text = try await h.client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(!text.contains(busy) && !text.contains(down))
        }
    }

    @Test func onlyTheAppsServerKeysReachItsDeviceCheck() async throws {
        try await Self.with { h, mock in
            let body = #"{"deviceToken": "\#(Self.token(7))"}"#
            let client = try await h.client.call(.post, "/shop/k-client/devicecheck/query", json: body)
            #expect(client.status == .forbidden)
            #expect(client.body["code"] == .integer(5007))
            // Another app's key is not one of shop's; and that app has no DeviceCheck of its own.
            let foreign = try await h.client.call(.post, "/shop/b-admin/devicecheck/query", json: body)
            #expect(foreign.status == .unauthorized)
            #expect(foreign.body["code"] == .integer(2002))
            let unconfigured = try await h.client.call(.post, "/blog/b-admin/devicecheck/query", json: body)
            #expect(unconfigured.status == .badRequest)
            #expect(unconfigured.body["code"] == .integer(5070))
            guard case .string(let message)? = unconfigured.body["message"] else {
                Issue.record("no message")
                return
            }
            #expect(message.contains("apps[].deviceCheck"))
            #expect(mock.stats().requests == 0)
        }
    }
}
