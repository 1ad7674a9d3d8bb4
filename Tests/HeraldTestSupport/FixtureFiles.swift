import Foundation

/// The repository's `fixtures/`: the mock APNs's TLS certificate and the TEST ONLY signing key, and the
/// team, key id and topic they were made for. Every test target finds them here, by this file's path.
public enum FixtureFiles {
    /// The repository's root (this file is Tests/HeraldTestSupport/FixtureFiles.swift).
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    public static let topic = "com.example.herald"
    public static let teamID = "TESTTEAM01"
    public static let keyID = "TESTKEY001"
    /// The `.p8` of a test key id (`fixtures/keys/AuthKey_<id>.p8`).
    public static func keyFile(_ id: String = keyID) -> String { path("fixtures/keys/AuthKey_\(id).p8") }
    /// The CA that signed the mock's certificate.
    public static var caFile: String { path("fixtures/tls/ca.crt") }
    public static var serverCertificate: String { path("fixtures/tls/server.crt") }
    public static var serverKey: String { path("fixtures/tls/server.key") }
}
