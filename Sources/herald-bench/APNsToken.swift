import ArgumentParser
import HeraldAPNs
import HeraldSigning

/// `herald-bench apns-token`: prints a provider token signed with a key, so a load tool that
/// knows nothing of APNs (h2load) can send the same requests as `herald-bench apns`.
/// Test keys only: the output is a credential.
struct APNsToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-token", abstract: "Print a provider token (JWT) for a .p8 key (for h2load against the mock).")

    @Option(name: .customLong("key-file")) var keyFile: String
    @Option(name: .customLong("key-id")) var keyID: String
    @Option(name: .customLong("team-id")) var teamID: String

    func run() throws {
        let key = try APNsSigningKey(keyID: keyID, teamID: teamID, p8File: keyFile)
        print(try APNsProviderToken(key: key).token().jwt)
    }
}
