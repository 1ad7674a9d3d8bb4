import Crypto
import Foundation
import HeraldCore
import Testing

@testable import HeraldWebPush

/// The VAPID tokens a client keeps per push service (signed once, renewed an hour before they expire,
/// on an injected clock), and the `webPush` block of an app's configuration (issue 26).
@Suite struct VAPIDTokensTests {
    static let start = Timestamp(milliseconds: 1_800_000_000_123)
    static let hour: Int64 = 3_600_000

    let signing = P256.Signing.PrivateKey()
    let clock = ManualClock(VAPIDTokensTests.start)

    func tokens(subject: String = "mailto:ops@example.com") throws -> VAPIDTokens {
        VAPIDTokens(key: try VAPIDKey(privateKey: signing, subject: subject), clock: clock)
    }

    /// The JWT and the public key of `authorization: vapid t=<JWT>, k=<key>`.
    static func parts(_ headerLine: String) throws -> (jwt: String, key: String) {
        let prefix = "authorization: vapid t="
        #expect(headerLine.hasPrefix(prefix), "\(headerLine)")
        let fields = headerLine.dropFirst(prefix.count).components(separatedBy: ", k=")
        try #require(fields.count == 2, "\(headerLine)")
        return (fields[0], fields[1])
    }

    @Test func oneTokenPerServiceIsReused() throws {
        let tokens = try tokens()
        let first = try tokens.issued(for: "https://fcm.googleapis.com")
        let again = try tokens.issued(for: "https://fcm.googleapis.com")
        #expect(again.serial == first.serial && again.headerLine == first.headerLine && again.expiresAt == first.expiresAt)
        let other = try tokens.issued(for: "https://updates.push.services.mozilla.com")
        #expect(other.serial != first.serial && other.serial > first.serial)
        #expect(other.headerLine != first.headerLine)
        #expect(try tokens.issued(for: "https://fcm.googleapis.com").serial == first.serial, "the other service did not replace it")
    }

    @Test func aTokenIsRenewedAnHourBeforeItExpires() throws {
        let tokens = try tokens()
        let audience = "https://push.example.net:8443"
        let first = try tokens.issued(for: audience)
        #expect(first.expiresAt == Self.start.milliseconds / 1000 + 12 * 3600)

        clock.advance(milliseconds: 10 * Self.hour + 59 * 60_000)
        #expect(try tokens.issued(for: audience).serial == first.serial, "10 h 59 min: still the first")

        clock.advance(milliseconds: 2 * 60_000)  // 11 h 1 min: less than an hour left
        let renewed = try tokens.issued(for: audience)
        #expect(renewed.serial > first.serial)
        #expect(renewed.headerLine != first.headerLine)
        #expect(renewed.expiresAt == clock.now.milliseconds / 1000 + 12 * 3600)
        #expect(try tokens.issued(for: audience).serial == renewed.serial, "and the new one is reused")
        let claims = try Self.claims(try Self.parts(renewed.headerLine).jwt)
        #expect(claims["exp"] == .integer(renewed.expiresAt))
    }

    static func claims(_ jwt: String) throws -> [String: JSONValue] {
        let pieces = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(pieces.count == 3, "\(jwt)")
        let bytes = try #require(Base64URL.decode(pieces[1]))
        guard case .object(let claims) = try JSONValue.parse(bytes) else {
            Issue.record("the claims are not an object")
            return [:]
        }
        return claims
    }

    @Test func theHeaderLineCarriesASignedTokenForTheAudience() throws {
        let tokens = try tokens(subject: "https://example.com/contact")
        let audience = "https://fcm.googleapis.com"
        let issued = try tokens.issued(for: audience)
        let (jwt, key) = try Self.parts(issued.headerLine)
        #expect(key == Base64URL.encode(Array(signing.publicKey.x963Representation)))

        let pieces = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(pieces.count == 3)
        let header = try JSONValue.parse(try #require(Base64URL.decode(pieces[0])))
        #expect(header == .object(["typ": .string("JWT"), "alg": .string("ES256")]))
        let claims = try Self.claims(jwt)
        #expect(claims["aud"] == .string(audience))
        #expect(claims["exp"] == .integer(Self.start.milliseconds / 1000 + 12 * 3600))
        #expect(claims["sub"] == .string("https://example.com/contact"))
        #expect(claims.count == 3)

        let signed = Array("\(pieces[0]).\(pieces[1])".utf8)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(pieces[2])))
        #expect(signing.publicKey.isValidSignature(signature, for: signed))
        #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(signature, for: signed), "another key does not verify it")
        #expect(!signing.publicKey.isValidSignature(signature, for: Array("\(pieces[0]).e30".utf8)), "nor other claims")
    }

    @Test func aBurstForOneServiceSharesOneToken() async throws {
        let tokens = try tokens()
        let serials = await withTaskGroup(of: UInt64?.self) { group in
            for _ in 0..<64 { group.addTask { try? tokens.issued(for: "https://fcm.googleapis.com").serial } }
            var serials: [UInt64?] = []
            for await serial in group { serials.append(serial) }
            return serials
        }
        #expect(serials.count == 64 && !serials.contains(nil))
        #expect(Set(serials).count == 1, "\(Set(serials))")
    }

    @Test func servicesPastTheLimitAreForgottenAndSignedAgain() throws {
        let tokens = try tokens()
        let first = try tokens.issued(for: "https://service-0.example")
        for index in 1..<VAPIDTokens.maxServices { _ = try tokens.issued(for: "https://service-\(index).example") }
        #expect(try tokens.issued(for: "https://service-0.example").serial == first.serial, "\(VAPIDTokens.maxServices) are kept")
        _ = try tokens.issued(for: "https://one-more.example")
        let again = try tokens.issued(for: "https://service-0.example")
        #expect(again.serial > first.serial, "forgotten, signed again")
        #expect(again.serial == UInt64(VAPIDTokens.maxServices) + 2)
    }
}

extension VAPIDTokensTests {
    /// An app's `webPush` block read from its settings, with each refusal naming what is wrong (nested
    /// here so that it runs with the VAPID tests it shares the key handling with).
    @Suite struct WebPushAppConfigurationTests {
        static let path = "apps.0.webPush"

        /// The block's values as the loader gives them (`allowedHosts` as `allowedHosts.0`, `.1`, …).
        static func values(_ given: [String: String], hosts: [String] = []) -> SettingValues {
            var all = Dictionary(uniqueKeysWithValues: given.map { ("\(path).\($0.key)", $0.value) })
            for (index, host) in hosts.enumerated() { all["\(path).allowedHosts.\(index)"] = host }
            return SettingValues(WebPushAppConfiguration.settings, path: path) { key, _ in all[key] }
        }

        /// A file holding `text`, removed when `body` ends.
        static func withFile<T>(_ text: String, _ body: (String) throws -> T) throws -> T {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("vapid-\(UUID().uuidString).pem").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try body(path)
        }

        static func error(_ values: SettingValues) -> String? {
            do {
                _ = try WebPushAppConfiguration(reading: values)
                return nil
            } catch {
                return error.message
            }
        }

        @Test func aBlockWithAKeyAndASubjectIsRead() throws {
            let signing = P256.Signing.PrivateKey()
            try Self.withFile(signing.pemRepresentation) { file in
                let block = try WebPushAppConfiguration(
                    reading: Self.values(["privateKeyFile": file, "subject": "mailto:ops@example.com"], hosts: ["FCM.googleapis.com"]))
                #expect(block.privateKeyFile == file && block.subject == "mailto:ops@example.com")
                #expect(block.allowedHosts == ["fcm.googleapis.com"])
                #expect(!block.allowPrivateHosts && block.caFile == nil)
                #expect(block.services == 8 && block.connections == 4 && block.streamsPerConnection == 100)
                #expect(block.hosts == WebPushSubscription.HostPolicy(allowPrivateHosts: false, allowedHosts: ["fcm.googleapis.com"]))
                let configuration = try block.clientConfiguration()
                #expect(configuration.vapidKey.applicationServerKey == Base64URL.encode(Array(signing.publicKey.x963Representation)))

                let open = try WebPushAppConfiguration(
                    reading: Self.values(["privateKeyFile": file, "subject": "https://example.com", "allowPrivateHosts": "true"]))
                #expect(open.allowedHosts == nil && open.allowPrivateHosts)
            }
        }

        @Test func aMissingKeyFileOrSubjectIsNamed() throws {
            let missingKey = Self.error(Self.values(["subject": "mailto:ops@example.com"]))
            #expect(missingKey?.contains("\(Self.path).privateKeyFile") == true, "\(missingKey ?? "accepted")")
            let unreadable = Self.error(Self.values(["privateKeyFile": "/nonexistent/vapid.pem", "subject": "mailto:ops@example.com"]))
            #expect(
                unreadable?.contains("privateKeyFile") == true && unreadable?.contains("/nonexistent/vapid.pem") == true,
                "\(unreadable ?? "accepted")")
            try Self.withFile(P256.Signing.PrivateKey().pemRepresentation) { file in
                let missingSubject = Self.error(Self.values(["privateKeyFile": file]))
                #expect(missingSubject?.contains("\(Self.path).subject") == true, "\(missingSubject ?? "accepted")")
            }
        }

        @Test(arguments: ["ops@example.com", "http://example.com/contact", "tel:+15550100", "mailto"])
        func aSubjectMustBeMailtoOrHTTPS(_ subject: String) throws {
            try Self.withFile(P256.Signing.PrivateKey().pemRepresentation) { file in
                let message = Self.error(Self.values(["privateKeyFile": file, "subject": subject]))
                #expect(message?.contains("mailto:") == true && message?.contains("https:") == true, "\(subject): \(message ?? "accepted")")
            }
        }

        @Test(arguments: [
            "not a key", P384.Signing.PrivateKey().pemRepresentation, P256.Signing.PrivateKey().publicKey.pemRepresentation,
            Curve25519.Signing.PrivateKey().rawRepresentation.base64EncodedString(),
        ])
        func aKeyFileThatIsNotAP256PEMIsRefused(_ text: String) throws {
            try Self.withFile(text) { file in
                let message = Self.error(Self.values(["privateKeyFile": file, "subject": "mailto:ops@example.com"]))
                #expect(message?.contains("not a P-256 private key in PEM") == true, "\(message ?? "accepted")")
                #expect(message?.contains("BEGIN") != true, "the key's text is not echoed")
            }
        }

        @Test(arguments: ["https://x", "push.example.com/path", "push.example.com:443", "user@push.example.com", "push example", ""])
        func anAllowedHostMustBeAHostName(_ host: String) throws {
            try Self.withFile(P256.Signing.PrivateKey().pemRepresentation) { file in
                let message = Self.error(
                    Self.values(["privateKeyFile": file, "subject": "mailto:ops@example.com"], hosts: ["fcm.googleapis.com", host]))
                #expect(message?.contains("\(Self.path).allowedHosts") == true, "\(host): \(message ?? "accepted")")
                #expect(message?.contains("'\(host)'") == true, "\(host): \(message ?? "accepted")")
            }
        }

        @Test func widthsOutOfRangeAreRefused() throws {
            try Self.withFile(P256.Signing.PrivateKey().pemRepresentation) { file in
                let base = ["privateKeyFile": file, "subject": "mailto:ops@example.com"]
                for (key, value) in [
                    ("connections", "0"), ("connections", "65"), ("streamsPerConnection", "1001"), ("services", "0"), ("services", "x"),
                ] {
                    let message = Self.error(Self.values(base.merging([key: value]) { $1 }))
                    #expect(message?.contains(key) == true, "\(key)=\(value): \(message ?? "accepted")")
                }
                let message = Self.error(Self.values(base.merging(["allowPrivateHosts": "yes"]) { $1 }))
                #expect(message?.contains("allowPrivateHosts") == true, "\(message ?? "accepted")")
            }
        }
    }
}
