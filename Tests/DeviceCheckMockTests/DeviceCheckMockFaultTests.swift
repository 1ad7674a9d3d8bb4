import DeviceCheckMock
import Foundation
import HeraldCurl
import HeraldTestSupport
import Testing

/// Scripts, pending failures, faults, HTTP/1.1 and the control port.
@Suite struct DeviceCheckMockFaultTests {
    static let device = "c2NyaXB0ZWQ="

    @Test func aScripted429ThenSuccess() async throws {
        let harness = try await DeviceCheckMockHarness.start()
        harness.mock.script(token: Self.device, .reject(status: 429), times: 1)
        let body = DeviceCheckMockHarness.body(token: Self.device, extra: #""bit0":true"#)
        let limited = try await harness.call(.updateTwoBits, body)
        #expect(limited.status == 429 && text(limited) == "Too Many Requests")
        #expect(harness.mock.bits(token: Self.device) == nil, "a refused update changes nothing")
        let retried = try await harness.call(.updateTwoBits, body)
        #expect(retried.status == 200)
        #expect(harness.mock.bits(token: Self.device)?.bit0 == true)
        // Other tokens were never scripted.
        #expect(try await harness.call(.queryTwoBits, DeviceCheckMockHarness.body(token: "QUFB")).status == 200)
        #expect(harness.mock.stats().byStatus == ["429": 1, "200": 2])
        try await harness.shutdown()
    }

    @Test func scriptsQueueAndCanDelay() async throws {
        let harness = try await DeviceCheckMockHarness.start()
        harness.mock.script(token: Self.device, .reject(status: 503, text: "Down for maintenance"), times: 1)
        harness.mock.script(token: Self.device, .delay(milliseconds: 300, then: .accept), times: 1)
        let body = DeviceCheckMockHarness.body(token: Self.device)
        let down = try await harness.call(.validateDeviceToken, body)
        #expect(down.status == 503 && text(down) == "Down for maintenance")
        let started = ContinuousClock.now
        #expect(try await harness.call(.validateDeviceToken, body).status == 200)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        try await harness.shutdown()
    }

    @Test func failNextAnswers500WhateverTheToken() async throws {
        let harness = try await DeviceCheckMockHarness.start()
        harness.mock.failNext(2, status: 500)
        for token in ["QUFB", "QkJC"] {
            let response = try await harness.call(.queryTwoBits, DeviceCheckMockHarness.body(token: token))
            #expect(response.status == 500 && text(response) == "Internal Server Error")
        }
        #expect(try await harness.call(.queryTwoBits, DeviceCheckMockHarness.body(token: "QUFB")).status == 200)
        harness.mock.setFaults(DeviceCheckMockFaults(errorRate: 1))
        #expect(try await harness.call(.queryTwoBits, DeviceCheckMockHarness.body(token: "QUFB")).status == 500)
        harness.mock.reset()
        #expect(try await harness.call(.queryTwoBits, DeviceCheckMockHarness.body(token: "QUFB")).status == 200)
        #expect(harness.mock.stats().requests == 1)
        try await harness.shutdown()
    }

    @Test func servesHTTP1Too() async throws {
        let harness = try await DeviceCheckMockHarness.start()
        let jwt = try harness.jwt()
        let update = try Self.curlHTTP1(
            harness.mock.baseURL + DeviceCheckEndpoint.updateTwoBits.path, jwt: jwt,
            body: DeviceCheckMockHarness.body(token: Self.device, extra: #""bit1":true"#))
        #expect(update.status == 200 && update.version == "1.1" && update.body.isEmpty)
        let query = try Self.curlHTTP1(
            harness.mock.baseURL + DeviceCheckEndpoint.queryTwoBits.path, jwt: jwt,
            body: DeviceCheckMockHarness.body(token: Self.device))
        #expect(query.status == 200 && query.version == "1.1")
        #expect(query.body.hasPrefix(#"{"bit0":false,"bit1":true,"last_update_time":""#))
        let refused = try Self.curlHTTP1(
            harness.mock.baseURL + DeviceCheckEndpoint.queryTwoBits.path, jwt: try harness.jwt(iss: "OTHERTEAM1"),
            body: DeviceCheckMockHarness.body(token: Self.device))
        #expect(refused.status == 401 && refused.body == "Unable to verify authorization token")
        try await harness.shutdown()
    }

    @Test func theControlPortScriptsAndReads() async throws {
        let harness = try await DeviceCheckMockHarness.start(controlPort: 0)
        let control = URL(string: "http://127.0.0.1:\(try #require(harness.mock.controlPort))")!
        let script = try await HTTP.send(
            "POST", control.appendingPathComponent("control/script"), json: #"{"token":"\#(Self.device)","status":429,"times":1}"#)
        #expect(script.status == 200)
        let failNext = try await HTTP.send(
            "POST", control.appendingPathComponent("control/fail-next"), json: #"{"count":1,"status":503}"#)
        #expect(failNext.status == 200)
        let setBits = try await HTTP.send(
            "POST", control.appendingPathComponent("control/bits"),
            json: #"{"token":"\#(Self.device)","bit0":true,"bit1":false,"month":"2020-01"}"#)
        #expect(setBits.status == 200)
        let body = DeviceCheckMockHarness.body(token: Self.device)
        #expect(try await harness.call(.queryTwoBits, body).status == 429)
        #expect(try await harness.call(.queryTwoBits, body).status == 503)
        let query = try await harness.call(.queryTwoBits, body)
        #expect(text(query) == #"{"bit0":true,"bit1":false,"last_update_time":"2020-01"}"#)
        let bits = try await HTTP.send("GET", URL(string: "\(control)/control/bits?token=\(Self.device)")!)
        #expect(bits.status == 200 && bits.body == #"{"bit0":true,"bit1":false,"last_update_time":"2020-01"}"#)
        let stats = try await HTTP.send("GET", control.appendingPathComponent("control/stats"))
        #expect(stats.body.contains(#""byStatus":{"#) && stats.body.contains(#""requests":3"#))
        let records = try await HTTP.send("GET", URL(string: "\(control)/control/requests?endpoint=query_two_bits")!)
        #expect(records.body.contains(#""deviceToken":"\#(Self.device)""#))
        let bad = try await HTTP.send("POST", control.appendingPathComponent("control/fail-next"), json: #"{"count":1,"status":200}"#)
        #expect(bad.status == 400)
        #expect(try await HTTP.send("POST", control.appendingPathComponent("control/reset")).status == 200)
        #expect(harness.mock.bits(token: Self.device) == nil && harness.mock.stats().requests == 0)
        try await harness.shutdown()
    }

    /// The curl tool with `--http1.1` (HeraldCurl's transfer lets ALPN pick h2): status, HTTP
    /// version and body.
    static func curlHTTP1(_ url: String, jwt: String, body: String) throws -> (status: Int, version: String, body: String) {
        let printed = try ChildProcess.run(
            "/usr/bin/env",
            [
                "curl", "-sS", "-m", "10", "--http1.1", "--noproxy", "*", "--cacert", FixtureFiles.caFile,
                "-H", "authorization: Bearer \(jwt)", "-H", "content-type: application/json", "--data-binary", body,
                "-w", "\n%{http_code} %{http_version}", url,
            ]
        ).stdout
        guard let newline = printed.lastIndex(of: "\n") else { return (0, "", printed) }
        let status = printed[printed.index(after: newline)...].split(separator: " ")
        return (Int(status.first ?? "") ?? 0, status.count > 1 ? String(status[1]) : "", String(printed[..<newline]))
    }
}
