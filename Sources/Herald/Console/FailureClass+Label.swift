import HeraldCore

extension FailureClass {
    /// Its name on the console's pages.
    var label: String {
        switch self {
        case .invalidToken: "Invalid token"
        case .throttled: "Throttled"
        case .service: "Service error"
        case .auth: "Credentials refused"
        case .other: "Other refusal"
        }
    }
}
