import Crypto
import Foundation
import HeraldCurl
import HeraldTestSupport
import Testing
import WebPushMock

/// Scripted outcomes, pending failures, faults and the control port.
@Suite struct WebPushMockScriptTests {
    @Test func aScripted410AnswersOnceThenThePushIsAccepted() async throws {
        let harness = try await WebPushMockHarness.start()
        harness.mock.script(subscription: "gone", .reject(status: 410), times: 1)
        let first = try await harness.push(to: "gone")
        #expect(first.status == 410 && json(first)["errno"] as? Int == 106 && json(first)["error"] as? String == "Gone")
        #expect(try await harness.push(to: "gone").status == 201)
        #expect(try await harness.push(to: "other").status == 201)
        #expect(harness.mock.messages(subscription: "gone").count == 1 && harness.mock.messages().count == 2)
        #expect(harness.mock.stats().byStatus == ["410": 1, "201": 2])
        try await harness.shutdown()
    }

    @Test func throttlingCarriesRetryAfter() async throws {
        let harness = try await WebPushMockHarness.start()
        harness.mock.script(subscription: "busy", .reject(status: 429, retryAfter: 30), times: 1)
        harness.mock.script(subscription: "busy", .reject(status: 429), times: 1)
        let first = try await harness.push(to: "busy")
        #expect(first.status == 429 && first.headers["retry-after"] == "30" && json(first)["errno"] as? Int == 201)
        let second = try await harness.push(to: "busy")
        #expect(second.status == 429 && second.headers["retry-after"] == "120")
        harness.mock.failNextSends(2, status: 503, retryAfter: 5)
        let unavailable = try await harness.push(to: "anyone")
        #expect(unavailable.status == 503 && unavailable.headers["retry-after"] == "5")
        let down = try await harness.push(to: "someone")
        #expect(down.status == 503)
        #expect(try await harness.push(to: "anyone").status == 201)
        // A script never hides a bad request: validation comes first.
        harness.mock.script(subscription: "busy", .reject(status: 500))
        #expect(try await harness.push(to: "busy", ttl: nil).status == 400)
        #expect(try await harness.push(to: "busy").status == 500)
        try await harness.shutdown()
    }

    @Test func faultsAnswer500AtTheErrorRate() async throws {
        let harness = try await WebPushMockHarness.start()
        harness.mock.setFaults(WebPushMockFaults(errorRate: 1))
        let failed = try await harness.push()
        #expect(failed.status == 500 && json(failed)["errno"] as? Int == 999)
        harness.mock.reset()
        #expect(try await harness.push().status == 201)
        #expect(harness.mock.stats().pushes == 1)
        try await harness.shutdown()
    }

    @Test func theControlPortScriptsReadsAndResets() async throws {
        let harness = try await WebPushMockHarness.start(controlPort: 0)
        let control = "http://127.0.0.1:\(try #require(harness.mock.controlPort))"
        let script = try await HTTP.send(
            "POST", URL(string: control + "/control/script")!, json: #"{"subscription":"gone","status":410,"times":1}"#)
        #expect(script.status == 200)
        let failNext = try await HTTP.send(
            "POST", URL(string: control + "/control/fail-next")!, json: #"{"count":1,"status":429,"retryAfter":9}"#)
        #expect(failNext.status == 200)
        #expect(try await harness.push(to: "gone").status == 410)
        let throttled = try await harness.push(to: "bob")
        #expect(throttled.status == 429 && throttled.headers["retry-after"] == "9")
        #expect(try await harness.push(to: "bob", "hi bob").status == 201)
        let binary = try WebPushTestSender.encrypt(
            [0xFF, 0xFE], p256dh: Array(WebPushMock.subscriptionKeys(id: "eve").privateKey.publicKey.x963Representation),
            auth: WebPushMock.subscriptionKeys(id: "eve").auth)
        #expect(try await harness.push(to: "eve", body: binary).status == 201)
        let messages = try await HTTP.send("GET", URL(string: control + "/control/messages?subscription=bob")!)
        let records = try #require(try JSONSerialization.jsonObject(with: Data(messages.body.utf8)) as? [[String: Any]])
        #expect(records.count == 1 && records.first?["plaintext"] as? String == "hi bob" && records.first?["ttl"] as? Int == 60)
        let all = try await HTTP.send("GET", URL(string: control + "/control/messages")!)
        #expect(all.body.contains(#""plaintextBase64":"//4=""#))
        let stats = try await HTTP.send("GET", URL(string: control + "/control/stats")!)
        #expect(stats.body.contains(#""accepted":2"#) && stats.body.contains(#""410":1"#) && stats.body.contains(#""429":1"#))
        let bad = try await HTTP.send("POST", URL(string: control + "/control/script")!, json: #"{"subscription":"x","status":418}"#)
        #expect(bad.status == 400 && bad.body.contains("status must be one of"))
        let badID = try await HTTP.send("POST", URL(string: control + "/control/script")!, json: #"{"subscription":"a/b"}"#)
        #expect(badID.status == 400)
        let faults = try await HTTP.send("POST", URL(string: control + "/control/faults")!, json: #"{"latencyMilliseconds":1}"#)
        #expect(faults.status == 200)
        #expect(try await HTTP.send("GET", URL(string: control + "/control/nothing")!).status == 404)
        #expect(try await HTTP.send("POST", URL(string: control + "/control/reset")!).status == 200)
        #expect(harness.mock.messages().isEmpty && harness.mock.stats().pushes == 0)
        try await harness.shutdown()
    }
}
