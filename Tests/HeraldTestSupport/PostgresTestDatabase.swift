import Foundation
import HeraldStore
import Logging
import NIOPosix
import PostgresNIO

/// A throwaway PostgreSQL database per test, on the server `HERALD_TEST_POSTGRES_URL` names
/// (`scripts/with-postgres.sh` starts one and sets it; `.ci/run` uses that script).
///
/// Each test gets a database of its own, created empty and dropped afterwards, so tests never see each
/// other's rows or advisory locks (both are per database).
public enum PostgresTestDatabase {
    /// The server's URL (pointing at its `postgres` maintenance database), or nil when none is configured.
    public static var serverURL: String? {
        ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether this run is CI's, where a PostgreSQL test that cannot run is a failure, not a skip.
    public static var isCI: Bool {
        ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty && $0 != "false" && $0 != "0" } ?? false
    }

    /// What a developer without the server sees instead of the PostgreSQL tests.
    public static let skipMessage =
        "PostgreSQL tests skipped: HERALD_TEST_POSTGRES_URL is not set. Run them with `scripts/with-postgres.sh swift test` (needs apt-get install postgresql)."

    public struct Unconfigured: Error, CustomStringConvertible {
        public var description: String { PostgresTestDatabase.skipMessage }
    }

    /// The server as a location, for a database of the given name.
    public static func location(database: String) throws -> PostgresLocation {
        guard let serverURL else { throw Unconfigured() }
        guard case .postgres(var location) = try DatabaseURL(parsing: serverURL) else {
            throw Unconfigured()
        }
        location.database = database
        // Tests run side by side, each with its own pool, on one server: small pools keep them under
        // its max_connections.
        location.poolSize = 8
        return location
    }

    /// Creates an empty database, runs `body` with its URL, and drops it (with any sessions still on it).
    /// The database sorts text by ICU's en-US rules, as a server initialised with a typical locale does
    /// (`a` next to `A`, punctuation ignored at first), not by bytes: Herald's orders must not depend on it.
    public static func with<T>(_ body: (DatabaseURL) async throws -> T) async throws -> T {
        let name = "herald_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(20).lowercased())"
        try await admin("CREATE DATABASE \(name) TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'")
        do {
            let value = try await body(.postgres(try location(database: name)))
            try await admin("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            return value
        } catch {
            try? await admin("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            throw error
        }
    }

    /// Runs one statement on the server's maintenance database (names here are generated, never input).
    public static func admin(_ statement: String) async throws {
        guard let serverURL, case .postgres(let server) = try DatabaseURL(parsing: serverURL) else { throw Unconfigured() }
        try await admin(statement, on: server)
    }

    /// Runs one statement, outside a transaction, on `server`'s first host and database.
    public static func admin(_ statement: String, on server: PostgresLocation) async throws {
        let configuration = PostgresConnection.Configuration(
            host: server.host, port: server.port, username: server.username, password: server.password,
            database: server.database, tls: .disable)
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1,
            logger: Logger(label: "herald.tests.postgres"))
        do {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Logger(label: "herald.tests.postgres"))
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
