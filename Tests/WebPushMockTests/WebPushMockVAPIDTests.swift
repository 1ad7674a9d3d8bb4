import Crypto
import Foundation
import HeraldCurl
import Testing
import WebPushMock

/// RFC 8292 as a push service applies it: 401 without a usable header, 403 naming the failed check.
@Suite struct WebPushMockVAPIDTests {
    /// Status, errno and whether the message names `check`.
    static func refused(_ response: CurlTransfer.Response, _ status: Int, naming check: String) -> Bool {
        response.status == status && json(response)["errno"] as? Int == 109 && json(response)["code"] as? Int == status
            && message(response).contains(check)
    }

    @Test func aMissingOrOtherAuthorizationIs401() async throws {
        let harness = try await WebPushMockHarness.start()
        let missing = try await harness.push(withoutAuthorization: true)
        #expect(Self.refused(missing, 401, naming: "Authorization"))
        #expect(json(missing)["error"] as? String == "Unauthorized")
        let jwt = try harness.authorization().split(separator: " ")[1].dropFirst(2).dropLast()
        #expect(try await harness.push(authorization: "WebPush \(jwt)").status == 401)
        #expect(try await harness.push(authorization: "vapid t=\(jwt)").status == 401)
        #expect(try await harness.push(authorization: "vapid t=abc.def, k=\(WebPushMockHarness.vapidPublicKey)").status == 401)
        #expect(try await harness.push(authorization: "vapid t=\(jwt), k=AAAA").status == 401)
        // Parameters in the other order, quoted, and the scheme in capitals are the same header.
        let reordered = "VAPID k=\"\(WebPushMockHarness.vapidPublicKey)\",t=\(jwt)"
        #expect(try await harness.push(authorization: reordered).status == 201)
        #expect(harness.mock.stats().vapidRejections == 5)
        try await harness.shutdown()
    }

    @Test func aSignatureByAnotherKeyIs403() async throws {
        let harness = try await WebPushMockHarness.start()
        let forged = try await harness.push(authorization: try harness.authorization(signer: P256.Signing.PrivateKey()))
        #expect(Self.refused(forged, 403, naming: "signature"))
        #expect(json(forged)["error"] as? String == "Forbidden")
        let claims = WebPushTestSender.claims(audience: harness.mock.origin(), expiresAt: harness.clock.now + 60, subject: "mailto:a@b.c")
        let hs256 = try WebPushTestSender.authorization(key: harness.vapidKey, claims: claims, header: #"{"typ":"JWT","alg":"HS256"}"#)
        #expect(Self.refused(try await harness.push(authorization: hs256), 403, naming: "alg"))
        #expect(harness.mock.stats().vapidRejections == 2 && harness.mock.stats().accepted == 0)
        try await harness.shutdown()
    }

    @Test func theAudienceMustBeThePushServicesOrigin() async throws {
        let harness = try await WebPushMockHarness.start()
        let origin = harness.mock.origin()
        for audience in ["https://push.example.net", origin + "/", origin + "/push/alice", "http://127.0.0.1:\(harness.mock.port)"] {
            let response = try await harness.push(authorization: try harness.authorization(audience: audience))
            #expect(Self.refused(response, 403, naming: "aud"), "\(audience)")
        }
        try await harness.shutdown()
    }

    @Test func expiryMustBeAheadAndWithin24Hours() async throws {
        let harness = try await WebPushMockHarness.start()
        #expect(Self.refused(try await harness.push(authorization: try harness.authorization(expiresIn: -1)), 403, naming: "exp"))
        #expect(Self.refused(try await harness.push(authorization: try harness.authorization(expiresIn: 86_401)), 403, naming: "exp"))
        #expect(Self.refused(try await harness.push(authorization: try harness.authorization(expiresIn: nil)), 403, naming: "exp"))
        let valid = try harness.authorization(expiresIn: 86_400)
        #expect(try await harness.push(authorization: valid).status == 201)
        harness.clock.advance(by: 86_400)
        #expect(Self.refused(try await harness.push(authorization: valid), 403, naming: "exp"))
        try await harness.shutdown()
    }

    @Test func theSubjectIsAMailtoOrHttpsURI() async throws {
        let harness = try await WebPushMockHarness.start()
        #expect(Self.refused(try await harness.push(authorization: try harness.authorization(subject: nil)), 403, naming: "sub"))
        #expect(
            Self.refused(try await harness.push(authorization: try harness.authorization(subject: "ops@example.com")), 403, naming: "sub"))
        #expect(try await harness.push(authorization: try harness.authorization(subject: "https://example.com/contact")).status == 201)
        try await harness.shutdown()
    }

    @Test func aRequiredPublicKeyRefusesEveryOther() async throws {
        let harness = try await WebPushMockHarness.start(requiredPublicKey: WebPushMockHarness.vapidPublicKey)
        let other = try await harness.push(authorization: try harness.authorization(key: P256.Signing.PrivateKey()))
        #expect(Self.refused(other, 403, naming: "key"))
        #expect(try await harness.push().status == 201)
        try await harness.shutdown()
    }
}
