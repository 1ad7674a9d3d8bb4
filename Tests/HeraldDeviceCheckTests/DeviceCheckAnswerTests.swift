import HeraldCore
import HeraldDeviceCheck
import Testing

/// How DeviceCheck's answers are read, as a table, without sockets.
@Suite struct DeviceCheckAnswerTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func successesDependOnTheOperation() {
        #expect(DeviceCheckVerdict.reading(.validate, status: 200, body: []) == .done(.valid))
        #expect(DeviceCheckVerdict.reading(.update, status: 200, body: []) == .done(.updated))
        #expect(
            DeviceCheckVerdict.reading(.query, status: 200, body: Self.bytes(#"{"bit0":true,"bit1":false,"last_update_time":"2026-11"}"#))
                == .done(.bits(bit0: true, bit1: false, lastUpdateTime: "2026-11")))
    }

    /// No state is told by the missing JSON, whatever Apple's words.
    @Test(arguments: ["Bit State Not Found", "Failed to find bit state", "", "something new Apple says", "{}", #"{"bit0":true}"#])
    func aQueryWithoutJSONBitsHasNoState(_ text: String) {
        #expect(DeviceCheckVerdict.reading(.query, status: 200, body: Self.bytes(text)) == .done(.noBits))
    }

    @Test func errorsAreSortedByWhoseFaultTheyAre() {
        #expect(
            DeviceCheckVerdict.reading(.query, status: 400, body: Self.bytes("Missing or incorrectly formatted device token payload"))
                == .fail(.badDeviceToken("Missing or incorrectly formatted device token payload")))
        #expect(
            DeviceCheckVerdict.reading(.update, status: 400, body: Self.bytes("Missing or incorrectly formatted time stamp"))
                == .fail(.badRequest("Missing or incorrectly formatted time stamp")))
        #expect(
            DeviceCheckVerdict.reading(.query, status: 401, body: Self.bytes("Unable to verify authorization token"))
                == .renewToken("Unable to verify authorization token"))
        #expect(DeviceCheckVerdict.reading(.query, status: 403, body: []) == .fail(.credentialsRefused("403")))
        for status in [429, 500, 503] {
            guard case .retry = DeviceCheckVerdict.reading(.query, status: status, body: Self.bytes("busy")) else {
                Issue.record("\(status) is not retried")
                continue
            }
        }
        guard case .retry = DeviceCheckVerdict.reading(.query, curlCode: 7, status: 0, body: [], errorText: "refused") else {
            Issue.record("no answer is not retried")
            return
        }
        #expect(
            DeviceCheckVerdict.reading(.query, curlCode: -1, status: 0, body: [], errorText: "shut down") == .fail(.client("shut down")))
        guard case .fail(.unavailable) = DeviceCheckVerdict.reading(.query, status: 302, body: []) else {
            Issue.record("an unexpected status is not a failure")
            return
        }
    }

    @Test func requestBodiesCarryWhatAppleReads() throws {
        let update = DeviceCheckRequest(.update, deviceToken: "QUJD+/==", bit0: true)
        let body = try JSONValue.parse(update.body(transactionID: "t-1", timestamp: 1_700_000_000_123))
        #expect(
            body
                == .object([
                    "device_token": .string("QUJD+/=="), "transaction_id": .string("t-1"), "timestamp": .integer(1_700_000_000_123),
                    "bit0": .bool(true),
                ]), "an unset bit is left out, so Apple keeps it")
        let query = DeviceCheckRequest(.query, deviceToken: "QUJD", bit0: true, bit1: false)
        #expect(
            try JSONValue.parse(query.body(transactionID: "t-2", timestamp: 5))
                == .object(["device_token": .string("QUJD"), "transaction_id": .string("t-2"), "timestamp": .integer(5)]),
            "bits go only with an update")
        #expect(query.tokenPrefix == "QUJD…")
        #expect(DeviceCheckRequest(.validate, deviceToken: String(repeating: "A", count: 100)).tokenPrefix == "AAAAAAAA…")
        #expect(DeviceCheckEnvironment.production.baseURL == "https://api.devicecheck.apple.com")
        #expect(DeviceCheckEnvironment.development.baseURL == "https://api.development.devicecheck.apple.com")
        #expect(DeviceCheckEnvironment.custom(url: "https://localhost:9/", caFile: nil).baseURL == "https://localhost:9")
    }
}
