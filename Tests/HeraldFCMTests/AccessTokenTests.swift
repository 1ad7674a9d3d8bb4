import Foundation
import HeraldCore
import HeraldCurl
import Logging
import Testing

@testable import HeraldFCM

/// A token endpoint the test answers by hand: requests are held until the test replies.
final class ScriptedTokenEndpoint: Sendable {
    typealias Reply = @Sendable (Result<CurlTransfer.Response, CurlTransfer.Failure>) -> Void
    private let pending = Locked<[(body: [UInt8], reply: Reply)]>([])
    private let count = Locked(0)

    var requests: Int { count.withLock { $0 } }
    var waiting: Int { pending.withLock { $0.count } }
    var lastBody: [UInt8]? { pending.withLock { $0.last?.body } }

    func exchange(_ body: [UInt8], _ reply: @escaping Reply) {
        count.withLock { $0 += 1 }
        pending.withLock { $0.append((body, reply)) }
    }

    /// Answers the oldest held request.
    func reply(status: Int = 200, _ json: String) {
        let next = pending.withLock { $0.removeFirst() }
        next.reply(.success(CurlTransfer.Response(status: status, body: Array(json.utf8))))
    }

    func fail(code: Int, _ message: String) {
        let next = pending.withLock { $0.removeFirst() }
        next.reply(.failure(CurlTransfer.Failure(code: code, message: message)))
    }

    static func grant(_ token: String, expiresIn: Int = 3599) -> String {
        #"{"access_token":"\#(token)","expires_in":\#(expiresIn),"token_type":"Bearer"}"#
    }
}

/// Collects the results handed to callbacks.
final class Results<Value: Sendable>: Sendable {
    private let values = Locked<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

@Suite struct AccessTokenTests {
    let clock = ManualClock(Timestamp(milliseconds: 1_700_000_000_000))
    let endpoint = ScriptedTokenEndpoint()

    func source() throws -> FCMAccessToken {
        let endpoint = endpoint
        return FCMAccessToken(account: try TestAccount.account(), clock: clock, logger: Logger(label: "test")) { body, reply in
            endpoint.exchange(body, reply)
        }
    }

    func token(_ source: FCMAccessToken, into results: Results<Result<FCMAccessToken.Issued, FCMTransportError>>) {
        source.token { results.append($0) }
    }

    @Test func oneFetchServesEverySendWaitingForIt() throws {
        let source = try source()
        let results = Results<Result<FCMAccessToken.Issued, FCMTransportError>>()
        for _ in 0..<5 { token(source, into: results) }
        #expect(endpoint.requests == 1)
        #expect(results.all.isEmpty)
        endpoint.reply(ScriptedTokenEndpoint.grant("ya29.first"))
        #expect(results.all.count == 5)
        let tokens = Set(results.all.map { try? $0.get().accessToken })
        #expect(tokens == ["ya29.first"])
        // Cached now: answered at once, no request.
        token(source, into: results)
        #expect(results.all.count == 6)
        #expect(endpoint.requests == 1)
    }

    @Test func theRequestCarriesAnAssertionIssuedNow() throws {
        let source = try source()
        source.token { _ in }
        let body = String(decoding: try #require(endpoint.lastBody), as: UTF8.self)
        let expected = try TestAccount.account().tokenRequestBody(issuedAt: 1_700_000_000)
        #expect(body == String(decoding: expected, as: UTF8.self))
    }

    @Test func anHourTokenIsRefreshedFiveMinutesEarlyWhileStillInUse() async throws {
        let source = try source()
        let results = Results<Result<FCMAccessToken.Issued, FCMTransportError>>()
        token(source, into: results)
        endpoint.reply(ScriptedTokenEndpoint.grant("ya29.first", expiresIn: 3600))
        clock.advance(milliseconds: 3_294_000)  // 5 min 6 s left: still fresh
        token(source, into: results)
        #expect(endpoint.requests == 1)
        clock.advance(milliseconds: 10_000)  // 4 min 56 s left: refresh, but keep sending with it
        token(source, into: results)
        token(source, into: results)
        #expect(endpoint.requests == 2)
        #expect(results.all.count == 4)
        #expect(results.all.allSatisfy { (try? $0.get().accessToken) == "ya29.first" })
        endpoint.reply(ScriptedTokenEndpoint.grant("ya29.second", expiresIn: 3600))
        let next = try await source.token().get()
        #expect(next.accessToken == "ya29.second")
        #expect(next.expiresAt == clock.now.milliseconds + 3_600_000)
        #expect(endpoint.requests == 2)
    }

    @Test func aShortLivedTokenIsRefreshedAQuarterEarlyAndNotUsedToTheLastSecond() throws {
        let source = try source()
        let results = Results<Result<FCMAccessToken.Issued, FCMTransportError>>()
        token(source, into: results)
        endpoint.reply(ScriptedTokenEndpoint.grant("mock.first", expiresIn: 10))
        clock.advance(milliseconds: 7_400)  // 2.6 s left of 10: fresh
        token(source, into: results)
        #expect(endpoint.requests == 1)
        clock.advance(milliseconds: 200)  // 2.4 s left: refresh in the background
        token(source, into: results)
        #expect(endpoint.requests == 2)
        #expect(results.all.count == 3)
        clock.advance(milliseconds: 1_500)  // 0.9 s left: too close, wait for the refresh
        token(source, into: results)
        #expect(results.all.count == 3)
        #expect(endpoint.requests == 2)
        endpoint.reply(ScriptedTokenEndpoint.grant("mock.second", expiresIn: 10))
        #expect(results.all.count == 4)
        #expect((try? results.all.last?.get().accessToken) == "mock.second")
    }

    @Test func expiredTokensAreFetchedAgain() throws {
        let source = try source()
        let results = Results<Result<FCMAccessToken.Issued, FCMTransportError>>()
        token(source, into: results)
        endpoint.reply(ScriptedTokenEndpoint.grant("ya29.first"))
        clock.advance(milliseconds: 3_600_000)
        token(source, into: results)
        #expect(results.all.count == 1)
        #expect(endpoint.requests == 2)
    }

    @Test func expireDiscardsATokenOnceForABurst() throws {
        let source = try source()
        let results = Results<Result<FCMAccessToken.Issued, FCMTransportError>>()
        token(source, into: results)
        endpoint.reply(ScriptedTokenEndpoint.grant("ya29.first"))
        let first = try results.all[0].get()
        #expect(source.expire(first))
        #expect(!source.expire(first))
        for _ in 0..<3 { token(source, into: results) }
        #expect(endpoint.requests == 2)
        endpoint.reply(ScriptedTokenEndpoint.grant("ya29.second"))
        let second = try results.all[3].get()
        #expect(second.accessToken == "ya29.second")
        // A late 401 for the old token must not throw away the new one.
        #expect(!source.expire(first))
        token(source, into: results)
        #expect(endpoint.requests == 2)
    }

    @Test func aRefusalIsACredentialsFailureInGooglesWords() throws {
        let source = try source()
        let results = Results<Result<FCMAccessToken.Issued, FCMTransportError>>()
        token(source, into: results)
        token(source, into: results)
        endpoint.reply(status: 400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#)
        #expect(results.all.count == 2)
        for result in results.all {
            guard case .failure(let error) = result else {
                Issue.record("expected a failure")
                continue
            }
            #expect(error.kind == .credentials)
            #expect(error.message.contains("invalid_grant: Invalid JWT Signature."))
            #expect(error.message.contains(TestAccount.clientEmail))
        }
        // Repeated for a few seconds without asking again, then asked again.
        token(source, into: results)
        #expect(results.all.count == 3)
        #expect(endpoint.requests == 1)
        clock.advance(milliseconds: 5_000)
        token(source, into: results)
        #expect(endpoint.requests == 2)
        endpoint.reply(status: 401, #"{"error":"unauthorized_client","error_description":"Client is unauthorized."}"#)
        guard case .failure(let error) = results.all.last else { throw Failure("expected a failure") }
        #expect(error.kind == .credentials)
        #expect(error.message.contains("HTTP 401"))
    }

    @Test func anOutageOrUnreachableEndpointIsNotACredentialsFailure() throws {
        let source = try source()
        let results = Results<Result<FCMAccessToken.Issued, FCMTransportError>>()
        token(source, into: results)
        endpoint.reply(status: 503, "Service Unavailable")
        token(source, into: results)
        #expect(endpoint.requests == 2)  // no hold: an outage is asked again at once
        endpoint.fail(code: 7, "Failed to connect to oauth2.googleapis.com port 443")
        let kinds = results.all.map { result -> FCMTransportError.Kind? in
            if case .failure(let error) = result { return error.kind }
            return nil
        }
        #expect(kinds == [.tokenUnavailable, .connect])
    }

    @Test(arguments: [
        (#"{"expires_in":3599}"#, "no access_token"),
        (#"{"access_token":"x","token_type":"MAC"}"#, "not Bearer"),
        (#"{"access_token":"x","expires_in":0}"#, "expires in 0 s"),
        ("<html>", "no access_token"),
    ])
    func aMalformedGrantIsACredentialsFailure(_ body: String, _ words: String) throws {
        let result = FCMAccessToken.grant(
            from: .success(CurlTransfer.Response(status: 200, body: Array(body.utf8))), account: try TestAccount.account())
        guard case .failure(let error) = result else { throw Failure("expected a failure") }
        #expect(error.kind == .credentials)
        #expect(error.message.contains(words))
    }

    @Test func theAccessTokenNeverReachesADescription() throws {
        let source = try source()
        let results = Results<Result<FCMAccessToken.Issued, FCMTransportError>>()
        token(source, into: results)
        endpoint.reply(ScriptedTokenEndpoint.grant("ya29.secret"))
        let issued = try results.all[0].get()
        #expect(!"\(issued)".contains("ya29"))
        #expect(!String(reflecting: issued).contains("ya29"))
        #expect(issued.headerLine == "authorization: Bearer ya29.secret")
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@Suite struct TokenEndpointTests {
    @Test func aTokenRequestIsAFormPostToTheKeyFilesTokenURI() async throws {
        let responder = try LoopbackResponder(status: 200, json: ScriptedTokenEndpoint.grant("ya29.loopback", expiresIn: 10))
        defer { responder.stop() }
        let account = try FCMServiceAccount(json: TestAccount.json(replacing: ["token_uri": "http://127.0.0.1:\(responder.port)/token"]))
        let clock = ManualClock(Timestamp(milliseconds: 1_700_000_000_000))
        let source = FCMAccessToken(account: account, clock: clock, timeout: .seconds(10))
        let issued = try await source.token().get()
        #expect(issued.accessToken == "ya29.loopback")
        #expect(issued.expiresAt == 1_700_000_010_000)
        let request = try #require(responder.requests.first)
        #expect(request.hasPrefix("POST /token HTTP/1.1\r\n"))
        #expect(request.lowercased().contains("content-type: application/x-www-form-urlencoded\r\n"))
        let body = String(request[try #require(request.range(of: "\r\n\r\n")).upperBound...])
        #expect(body == String(decoding: try account.tokenRequestBody(issuedAt: 1_700_000_000), as: UTF8.self))
    }

    @Test func aRefusalFromTheEndpointCarriesItsDescription() async throws {
        let responder = try LoopbackResponder(status: 400, json: #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#)
        defer { responder.stop() }
        let account = try FCMServiceAccount(json: TestAccount.json(replacing: ["token_uri": "http://127.0.0.1:\(responder.port)/token"]))
        let result = await FCMAccessToken(account: account, timeout: .seconds(10)).token()
        guard case .failure(let error) = result else { throw Failure("expected a refusal") }
        #expect(error.kind == .credentials)
        #expect(error.message.hasSuffix("(HTTP 400): invalid_grant: Invalid JWT Signature."))
    }
}
