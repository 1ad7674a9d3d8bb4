import HeraldCore
import HeraldStore
import Logging

extension HeraldFault {
    /// The fault to answer for an error thrown while serving a request outside the HTTP fault middleware
    /// (an RT event, a stream's opening, a binary call): a fault as it is, the database's unavailability or
    /// backlog as 503, anything else logged (its type only: never its text, which may hold a token) and
    /// answered as 500.
    static func answering(_ error: any Error, logger: Logger, while doing: String) -> HeraldFault {
        switch error {
        case let fault as HeraldFault: return fault
        case let busy as WriteQueueFull:
            return HeraldFault(
                code: 503, kind: .unavailable,
                message: "Service busy: \(busy.waiting) writes are waiting for the database; retry after a second")
        case is StoreUnavailable: return .storeUnavailable
        default:
            logger.error("\(doing) failed", metadata: ["herald.error": "\(String(reflecting: type(of: error)))"])
            return .internalError
        }
    }
}
