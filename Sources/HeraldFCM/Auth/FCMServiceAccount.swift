import Foundation
import HeraldCore
import _CryptoExtras

/// A Google service account as its JSON key file describes it: which Firebase project to send to
/// and the RSA key that signs the OAuth assertions trading for access tokens.
public struct FCMServiceAccount: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The Firebase project (`project_id`): part of every send's URL.
    public let projectID: String
    /// The key's id (`private_key_id`): the assertion's `kid`.
    public let privateKeyID: String
    /// The account (`client_email`): the assertion's `iss`.
    public let clientEmail: String
    /// Where assertions are traded for access tokens (`token_uri`): the assertion's `aud`.
    public let tokenURI: String
    let privateKey: _RSA.Signing.PrivateKey

    public init(
        projectID: String, privateKeyID: String, clientEmail: String, tokenURI: String, privateKey: _RSA.Signing.PrivateKey
    ) {
        self.projectID = projectID
        self.privateKeyID = privateKeyID
        self.clientEmail = clientEmail
        self.tokenURI = tokenURI
        self.privateKey = privateKey
    }

    /// Reads the key file Google hands out (IAM → Service accounts → Keys → JSON).
    public init(jsonFile path: String) throws(FCMConfigurationError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FCMConfigurationError("cannot read the FCM service-account key file \(path)")
        }
        try self.init(json: Array(data), source: path)
    }

    /// Parses a key file's contents; `source` names it in errors.
    public init(json: [UInt8], source: String = "the FCM service-account key") throws(FCMConfigurationError) {
        guard case .object(let fields)? = try? JSONValue.parse(json) else {
            throw FCMConfigurationError("\(source) is not a JSON object (expected a service-account key file)")
        }
        func field(_ name: String) throws(FCMConfigurationError) -> String {
            guard case .string(let value)? = fields[name], !value.isEmpty else {
                throw FCMConfigurationError("\(source) has no '\(name)' (is it a service-account key file?)")
            }
            return value
        }
        if case .string(let type)? = fields["type"], type != "service_account" {
            throw FCMConfigurationError("\(source) is a '\(type.prefix(40))' credential, not a service-account key")
        }
        let projectID = try field("project_id")
        let privateKeyID = try field("private_key_id")
        let pem = try field("private_key")
        let clientEmail = try field("client_email")
        let tokenURI = try field("token_uri")
        let lower = tokenURI.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
            throw FCMConfigurationError("\(source) has a 'token_uri' that is not an http(s) URL")
        }
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw FCMConfigurationError("\(source) has a 'private_key' that is not an RSA private key in PEM (2048 bits or more)")
        }
        self.init(projectID: projectID, privateKeyID: privateKeyID, clientEmail: clientEmail, tokenURI: tokenURI, privateKey: key)
    }

    /// The account and project only: the key never reaches a log through string interpolation.
    public var description: String { "FCM service account \(clientEmail) of project \(projectID) (key \(privateKeyID))" }
    public var debugDescription: String { description }
}
