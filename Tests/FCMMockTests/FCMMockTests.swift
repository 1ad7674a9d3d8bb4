import FCMMock
import Foundation
import HeraldCurl
import Testing

/// The mock FCM over real sockets (TLS, curl): what it accepts and how it refuses, as a client sees it.
@Suite struct FCMMockTests {
    @Test func issuesATokenAndAcceptsASendWithIt() async throws {
        let harness = try await FCMMockHarness.start()
        let token = try await harness.accessToken()
        let response = try await harness.send(
            #"{"token":"device-1","notification":{"title":"Hi","body":"there"},"data":{"k":"v"},"#
                + #""android":{"priority":"HIGH","ttl":"3.5s","notification":{"channel_id":"news"}}}"#,
            accessToken: token)
        #expect(response.status == 200)
        let name = json(response)["name"] as? String
        #expect(name?.hasPrefix("projects/herald-test/messages/") == true)
        let messages = harness.mock.messages()
        #expect(messages.map(\.token) == ["device-1"])
        #expect(messages.first?.name == name)
        let stats = harness.mock.stats()
        #expect(stats.tokenRequests == 1 && stats.tokensIssued == 1 && stats.accepted == 1)
        try await harness.shutdown()
    }

    @Test func refusesAnAssertionSignedWithAnotherKey() async throws {
        let harness = try await FCMMockHarness.start()
        let forged = try harness.assertion(signWith: FCMMockHarness.rogueAccountFile)
        let response = try await harness.requestToken(assertion: forged)
        #expect(response.status == 400)
        #expect(json(response)["error"] as? String == "invalid_grant")
        #expect(json(response)["error_description"] as? String == "Invalid JWT Signature.")
        let unknown = try await harness.requestToken(
            assertion: try harness.assertion(keyFile: FCMMockHarness.rogueAccountFile))
        #expect(unknown.status == 400 && json(unknown)["error"] as? String == "invalid_grant")
        let tooLong = try await harness.requestToken(
            assertion: try harness.assertion(claims: ["exp": Int(harness.clock.now) + 3601]))
        #expect(tooLong.status == 400)
        #expect(harness.mock.stats().tokenRequests == 3 && harness.mock.stats().tokensIssued == 0)
        try await harness.shutdown()
    }

    @Test func anExpiredOrRevokedAccessTokenIsUnauthenticated() async throws {
        let harness = try await FCMMockHarness.start(tokenLifetime: 60)
        let token = try await harness.accessToken()
        #expect(try await harness.send(#"{"token":"device-1"}"#, accessToken: token).status == 200)
        harness.clock.advance(by: 61)
        let expired = try await harness.send(#"{"token":"device-1"}"#, accessToken: token)
        #expect(expired.status == 401)
        #expect((json(expired)["error"] as? [String: Any])?["status"] as? String == "UNAUTHENTICATED")
        let fresh = try await harness.accessToken()
        #expect(try await harness.send(#"{"token":"device-1"}"#, accessToken: fresh).status == 200)
        harness.mock.revokeAccessTokens()
        #expect(try await harness.send(#"{"token":"device-1"}"#, accessToken: fresh).status == 401)
        try await harness.shutdown()
    }

    @Test func answersAScriptedUnregisteredThenAccepts() async throws {
        let harness = try await FCMMockHarness.start()
        harness.mock.script(token: "gone", .reject(.unregistered), times: 1)
        let token = try await harness.accessToken()
        let first = try await harness.send(#"{"token":"gone"}"#, accessToken: token)
        #expect(first.status == 404)
        #expect(errorCode(first) == "UNREGISTERED")
        #expect(try await harness.send(#"{"token":"gone"}"#, accessToken: token).status == 200)
        harness.mock.failNextSends(1, with: .quotaExceeded, retryAfter: 7)
        let limited = try await harness.send(#"{"token":"other"}"#, accessToken: token)
        #expect(limited.status == 429 && errorCode(limited) == "QUOTA_EXCEEDED")
        #expect(limited.headers["retry-after"] == "7")
        #expect(harness.mock.stats().byErrorCode == ["UNREGISTERED": 1, "QUOTA_EXCEEDED": 1])
        try await harness.shutdown()
    }

    @Test func refusesBadMessagesAsInvalidArgument() async throws {
        let harness = try await FCMMockHarness.start()
        let token = try await harness.accessToken()
        let nonString = try await harness.send(#"{"token":"device-1","data":{"count":3}}"#, accessToken: token)
        #expect(nonString.status == 400)
        #expect((json(nonString)["error"] as? [String: Any])?["status"] as? String == "INVALID_ARGUMENT")
        let unknown = try await harness.send(#"{"token":"device-1","colour":"red"}"#, accessToken: token)
        #expect(unknown.status == 400)
        let badToken = try await harness.send(#"{"token":"not a token!"}"#, accessToken: token)
        #expect(badToken.status == 400 && errorCode(badToken) == "INVALID_ARGUMENT")
        let message = (json(badToken)["error"] as? [String: Any])?["message"] as? String
        #expect(message?.contains("registration token") == true)
        let tooLong = try await harness.send(#"{"token":"device-1","android":{"ttl":"2419201s"}}"#, accessToken: token)
        #expect(tooLong.status == 400)
        let big = String(repeating: "x", count: 4100)
        #expect(try await harness.send(#"{"token":"d","data":{"k":"\#(big)"}}"#, accessToken: token).status == 400)
        #expect(harness.mock.messages().isEmpty)
        try await harness.shutdown()
    }
}
