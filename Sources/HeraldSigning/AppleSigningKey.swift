import Crypto
import Foundation
import HeraldCore

/// An Apple token-auth key: the `.p8` P-256 private key with the ids Apple gave it. APNs signs its
/// provider tokens with it, and DeviceCheck its bearer tokens (one key may serve both): the one ES256
/// signer both services share, in a module of its own so that neither depends on the other. Its errors
/// name no service: the caller's configuration line says which block the file belongs to.
public struct AppleSigningKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The 10-character key id (`kid`).
    public let keyID: String
    /// The 10-character team id (`iss`).
    public let teamID: String
    let privateKey: P256.Signing.PrivateKey

    public init(keyID: String, teamID: String, privateKey: P256.Signing.PrivateKey) {
        self.keyID = keyID
        self.teamID = teamID
        self.privateKey = privateKey
    }

    /// Reads a `.p8` file (PKCS#8 PEM, as Apple hands it out).
    public init(keyID: String, teamID: String, p8File path: String) throws(AppleSigningKeyError) {
        let pem: String
        do {
            pem = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw AppleSigningKeyError("cannot read the key file \(path)")
        }
        do {
            self.init(keyID: keyID, teamID: teamID, privateKey: try P256.Signing.PrivateKey(pemRepresentation: pem))
        } catch {
            throw AppleSigningKeyError("\(path) is not a P-256 private key in PEM (an Apple .p8 key file)")
        }
    }

    /// The ids only: the key never reaches a log through string interpolation.
    public var description: String { "Apple key \(keyID) of team \(teamID)" }
    public var debugDescription: String { description }

    /// A bearer token (JWT) issued at `issuedAt` epoch seconds: ES256 with the raw r‖s signature.
    package func sign(issuedAt: Int64) throws -> String {
        try ES256JWT.sign(
            header: #"{"alg":"ES256","kid":"\#(keyID)"}"#, claims: #"{"iss":"\#(teamID)","iat":\#(issuedAt)}"#, with: privateKey)
    }
}

/// The key file cannot be used: missing, unreadable, or not a P-256 key.
public struct AppleSigningKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
