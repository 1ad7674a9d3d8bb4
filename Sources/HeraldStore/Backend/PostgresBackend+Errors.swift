import NIOCore
import PostgresNIO

/// Which PostgreSQL failures are worth a retry, which mean the database is away, and how to say so.
extension PostgresBackend {
    /// SQLSTATE 40001 (serialization_failure) and 40P01 (deadlock_detected): retrying is the cure.
    static func isRetryable(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40001" || state == "40P01"
    }

    /// Whether the failure is the database being away (down, restarting, unreachable, out of connections
    /// or disk) rather than something wrong with the query.
    static func isUnavailable(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
            .sslUnsupported, .failedToAddSSLHandler:
            return true
        case .server:
            // Class 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now;
            // class 53: insufficient resources (disk full, out of memory, too many connections).
            guard let state = error.serverInfo?[.sqlState] else { return false }
            return state.hasPrefix("08") || state.hasPrefix("57P") || state.hasPrefix("53")
        default:
            return false
        }
    }

    static func translate(_ error: any Error) -> any Error {
        if error is StoreUnavailable { return error }
        return isUnavailable(error) ? StoreUnavailable(reason: explain(error)) : error
    }

    /// A short, secret-free account of a PostgreSQL failure for an operator.
    static func explain(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return "\(message)\(error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")"
        }
        if let underlying = error.underlying as? NIOConnectionError, let first = underlying.connectionErrors.first {
            return "\(first.error)"
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
