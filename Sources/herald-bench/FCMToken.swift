import ArgumentParser
import HeraldFCM

/// `herald-bench fcm-token`: fetches an OAuth2 access token for a service account from its key file's
/// `token_uri`, through HeraldFCM's own token code (assertion, exchange, answer parsing), and prints it,
/// so a load tool that knows nothing of FCM (h2load) can send with `authorization: Bearer …`.
/// Test accounts only: the output is a credential.
struct FCMToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm-token",
        abstract: "Print an OAuth2 access token for a service-account key file (for h2load against the mock FCM).")

    @Option(help: "Service-account key file (JSON) whose token_uri points at the token endpoint (the mock's).")
    var serviceAccount: String
    @Option(help: "CA file to trust for the token endpoint's certificate.")
    var ca: String?

    func run() async throws {
        let account = try FCMServiceAccount(jsonFile: serviceAccount)
        let source = FCMAccessToken(account: account, caFile: ca, logger: benchLogger())
        switch await source.token() {
        case .failure(let error):
            throw ValidationError("no access token from \(account.tokenURI): \(error)")
        case .success(let issued):
            guard let token = Self.accessToken(of: issued) else { throw ValidationError("HeraldFCM's Issued has no accessToken field") }
            print(token)
        }
    }

    /// The token text. HeraldFCM keeps it internal so that it reaches only request headers, never a log
    /// (`Issued` prints without it); a bench tool that must hand it to h2load reads the stored field by
    /// reflection rather than giving Herald's module a public way to leak it.
    static func accessToken(of issued: FCMAccessToken.Issued) -> String? {
        Mirror(reflecting: issued).children.first { $0.label == "accessToken" }?.value as? String
    }
}
