/// What every easy handle of one client is set up with.
struct CurlSettings: Sendable {
    var cleartext: Bool
    var caFile: String?
    var certificateFile: String?
    var certificateType: String = "PEM"
    var privateKeyFile: String?
    var passphrase: String?
    var connectTimeoutMilliseconds: Int
    var requestTimeoutMilliseconds: Int
}
