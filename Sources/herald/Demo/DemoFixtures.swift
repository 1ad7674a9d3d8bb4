import Foundation

/// The repository's `fixtures/` directory: the mocks' TLS certificate and key, the CA that signed it,
/// the test `.p8` key, the test FCM service account and the test VAPID key. The demo cannot run without
/// them, so it looks where a checkout has them.
struct DemoFixtures: Sendable {
    let directory: URL

    static let required = [
        "tls/server.crt", "tls/server.key", "tls/ca.crt", "keys/AuthKey_TESTKEY001.p8", "fcm/service-account.json",
        "webpush/vapid-test.pem",
    ]

    var serverCertificate: String { path("tls/server.crt") }
    var serverKey: String { path("tls/server.key") }
    var certificateAuthority: String { path("tls/ca.crt") }
    var signingKey: String { path("keys/AuthKey_TESTKEY001.p8") }
    var serviceAccount: String { path("fcm/service-account.json") }
    var vapidKey: String { path("webpush/vapid-test.pem") }

    func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }

    /// `--fixtures` if given; else `./fixtures`; else the checkout these sources were built from
    /// (`swift run` from another directory still finds it).
    static func locate(explicit: String?) throws -> DemoFixtures {
        if let explicit {
            let fixtures = DemoFixtures(directory: URL(fileURLWithPath: explicit).standardizedFileURL)
            if let missing = fixtures.missing { throw DemoError("--fixtures \(explicit): \(missing) not found in it") }
            return fixtures
        }
        // This file, Sources/herald/Demo/DemoFixtures.swift → the repository root, four levels up. (Not a
        // default argument: there #filePath would name the caller's file.)
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        let candidates = [URL(fileURLWithPath: "fixtures").standardizedFileURL, root.appendingPathComponent("fixtures")]
        if let found = candidates.map(DemoFixtures.init).first(where: { $0.missing == nil }) { return found }
        throw DemoError(
            "fixtures not found in ./fixtures or \(candidates[1].path); pass --fixtures DIR (the repository's fixtures directory)")
    }

    /// The first required file that is not readable, if any.
    var missing: String? {
        Self.required.first { !FileManager.default.isReadableFile(atPath: path($0)) }
    }
}
