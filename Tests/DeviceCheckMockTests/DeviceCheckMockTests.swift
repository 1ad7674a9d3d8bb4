import DeviceCheckMock
import Foundation
import HeraldCurl
import Testing

/// The mock DeviceCheck over real sockets (TLS, curl): the two bits as a client sees them.
@Suite struct DeviceCheckMockTests {
    /// 2024-02-29T12:00:00Z.
    static let leapDay = 1_709_208_000.0
    static let device = "dGVzdC1kZXZpY2UtMQ=="

    @Test func aQueryBeforeAnyUpdateIsAPlainText200() async throws {
        let harness = try await DeviceCheckMockHarness.start()
        let response = try await harness.call(.queryTwoBits, DeviceCheckMockHarness.body(token: Self.device))
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/plain")
        #expect(text(response) == "Bit State Not Found")
        #expect(jsonObject(response) == nil)
        #expect(harness.mock.bits(token: Self.device) == nil)
        try await harness.shutdown()

        let other = try await DeviceCheckMockHarness.start(noStateText: "Failed to find bit state")
        let reworded = try await other.call(.queryTwoBits, DeviceCheckMockHarness.body(token: Self.device))
        #expect(reworded.status == 200 && text(reworded) == "Failed to find bit state")
        try await other.shutdown()
    }

    @Test func updatesSetTheBitsAndQueriesAnswerThemWithTheMonth() async throws {
        let harness = try await DeviceCheckMockHarness.start(now: Self.leapDay)
        let first = try await harness.call(
            .updateTwoBits, DeviceCheckMockHarness.body(token: Self.device, extra: #""bit0":true"#))
        #expect(first.status == 200 && first.body.isEmpty)
        let afterFirst = try await harness.call(.queryTwoBits, DeviceCheckMockHarness.body(token: Self.device))
        #expect(afterFirst.status == 200)
        #expect(afterFirst.headers["content-type"] == "application/json")
        #expect(jsonObject(afterFirst)?["bit0"] as? Bool == true)
        #expect(jsonObject(afterFirst)?["bit1"] as? Bool == false)
        #expect(jsonObject(afterFirst)?["last_update_time"] as? String == "2024-02")

        harness.clock.advance(by: 86_400 * 2)  // into March
        let both = try await harness.call(
            .updateTwoBits, DeviceCheckMockHarness.body(token: Self.device, extra: #""bit0":false,"bit1":true"#))
        #expect(both.status == 200)
        let afterBoth = try await harness.call(.queryTwoBits, DeviceCheckMockHarness.body(token: Self.device))
        #expect(text(afterBoth) == #"{"bit0":false,"bit1":true,"last_update_time":"2024-03"}"#)
        #expect(harness.mock.bits(token: Self.device) == DeviceCheckMockBits(bit0: false, bit1: true, lastUpdateTime: "2024-03"))
        try await harness.shutdown()
    }

    @Test func aPartialUpdateKeepsTheOtherBit() async throws {
        let harness = try await DeviceCheckMockHarness.start(now: Self.leapDay)
        harness.mock.setBits(token: Self.device, bit0: true, bit1: false, month: "2023-11")
        let update = try await harness.call(
            .updateTwoBits, DeviceCheckMockHarness.body(token: Self.device, transaction: "t-1", extra: #""bit1":true"#))
        #expect(update.status == 200)
        #expect(harness.mock.bits(token: Self.device) == DeviceCheckMockBits(bit0: true, bit1: true, lastUpdateTime: "2024-02"))
        let empty = try await harness.call(.updateTwoBits, DeviceCheckMockHarness.body(token: Self.device))
        #expect(empty.status == 200)
        #expect(harness.mock.bits(token: Self.device)?.bit0 == true && harness.mock.bits(token: Self.device)?.bit1 == true)
        let record = harness.mock.requests(endpoint: .updateTwoBits).first
        #expect(record?.transactionId == "t-1" && record?.bit0 == nil && record?.bit1 == true)
        #expect(record?.teamId == DeviceCheckMockHarness.teamId && record?.keyId == DeviceCheckMockHarness.keyId)
        try await harness.shutdown()
    }

    @Test func validateAnswersAnEmpty200AndEveryAcceptedRequestIsRecorded() async throws {
        let harness = try await DeviceCheckMockHarness.start()
        let response = try await harness.call(
            .validateDeviceToken, DeviceCheckMockHarness.body(token: Self.device, transaction: "v-1"))
        #expect(response.status == 200 && response.body.isEmpty)
        _ = try await harness.call(.queryTwoBits, DeviceCheckMockHarness.body(token: "AAAA"))
        let records = harness.mock.requests()
        #expect(records.map(\.endpoint) == [.validateDeviceToken, .queryTwoBits])
        #expect(records.map(\.deviceToken) == [Self.device, "AAAA"])
        #expect(harness.mock.requests(token: "AAAA").count == 1)
        let stats = harness.mock.stats()
        #expect(stats.requests == 2 && stats.accepted == 2)
        #expect(stats.byEndpoint == ["validate_device_token": 1, "query_two_bits": 1])
        #expect(stats.byStatus == ["200": 2])
        try await harness.shutdown()
    }

    @Test func refusesBadBodiesWithAppleWordsInOrder() async throws {
        let harness = try await DeviceCheckMockHarness.start()
        let token = "Missing or incorrectly formatted device token payload"
        let transaction = "Missing or incorrectly formatted transaction id"
        let timestamp = "Missing or incorrectly formatted time stamp"
        let bits = "Missing or incorrectly formatted bits"
        let cases: [(DeviceCheckEndpoint, String, String)] = [
            (.queryTwoBits, "not json", token),
            (.queryTwoBits, "[1]", token),
            (.queryTwoBits, #"{"transaction_id":"t","timestamp":1}"#, token),
            (.queryTwoBits, #"{"device_token":"","transaction_id":"t","timestamp":1}"#, token),
            (.queryTwoBits, #"{"device_token":"not base64!","transaction_id":"t","timestamp":1}"#, token),
            (.queryTwoBits, #"{"device_token":"QUJD=","transaction_id":"t","timestamp":1}"#, token),
            (.queryTwoBits, #"{"device_token":7,"timestamp":"x"}"#, token),
            (.queryTwoBits, #"{"device_token":"QUJD","timestamp":1}"#, transaction),
            (.queryTwoBits, #"{"device_token":"QUJD","transaction_id":"","timestamp":1}"#, transaction),
            (.queryTwoBits, #"{"device_token":"QUJD","transaction_id":"t"}"#, timestamp),
            (.queryTwoBits, #"{"device_token":"QUJD","transaction_id":"t","timestamp":"1"}"#, timestamp),
            (.queryTwoBits, #"{"device_token":"QUJD","transaction_id":"t","timestamp":1.5}"#, timestamp),
            (.updateTwoBits, #"{"device_token":"QUJD","transaction_id":"t","timestamp":1,"bit0":"yes"}"#, bits),
            (.updateTwoBits, #"{"device_token":"QUJD","transaction_id":"t","timestamp":1,"bit1":null}"#, bits),
        ]
        for (endpoint, body, expected) in cases {
            let response = try await harness.call(endpoint, body)
            #expect(response.status == 400, "\(body)")
            #expect(text(response) == expected, "\(body)")
            #expect(response.headers["content-type"] == "text/plain")
        }
        // Bits are only read on update; unpadded base64 is a token.
        let query = try await harness.call(.queryTwoBits, #"{"device_token":"QUJDRA","transaction_id":"t","timestamp":1,"bit0":"x"}"#)
        #expect(query.status == 200)
        #expect(harness.mock.stats().byStatus == ["400": cases.count, "200": 1])
        try await harness.shutdown()
    }

    @Test func anUnknownPathIs404() async throws {
        let harness = try await DeviceCheckMockHarness.start()
        let response = try await harness.post("/v1/query_three_bits", DeviceCheckMockHarness.body(token: Self.device), authorization: nil)
        #expect(response.status == 404)
        #expect(response.headers["content-type"] == "text/plain")
        #expect(harness.mock.stats().byEndpoint.isEmpty)
        try await harness.shutdown()
    }
}
