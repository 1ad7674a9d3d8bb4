import NIOCore
import PostgresNIO

/// Which PostgreSQL failures are worth a retry, which mean the database is away, and how to say so.
extension PostgresBackend {
    /// SQLSTATE 40001 (serialization_failure) and 40P01 (deadlock_detected): retrying is the cure, unless
    /// the 40001 is a standby's conflict with recovery (the host is not the primary).
    static func isRetryable(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return (state == "40001" || state == "40P01") && failoverSignal(error) == nil
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

    /// What a failure says about the host it came from, for the search for the primary.
    enum FailoverSignal: Equatable {
        /// The host answered as a standby: a read-only transaction (SQLSTATE 25006, "cannot execute … in a
        /// read-only transaction"), or a query cancelled by a conflict with recovery. It is not the primary.
        case notPrimary
        /// The connection was lost, or the server is shutting down or starting (class 08, 57P01-57P03):
        /// the host may be gone, or back in another role.
        case connectionLost
    }

    static func failoverSignal(_ error: any Error) -> FailoverSignal? {
        guard let error = error as? PSQLError else { return nil }
        switch error.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown:
            return .connectionLost
        case .server:
            guard let state = error.serverInfo?[.sqlState] else { return nil }
            if state == "25006" { return .notPrimary }
            if state == "40001", error.serverInfo?[.message]?.contains("conflict with recovery") == true { return .notPrimary }
            return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state) ? .connectionLost : nil
        default:
            return nil
        }
    }

    static func translate(_ error: any Error) -> any Error {
        if error is StoreUnavailable { return error }
        return isUnavailable(error) || failoverSignal(error) == .notPrimary ? StoreUnavailable(reason: explain(error)) : error
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
