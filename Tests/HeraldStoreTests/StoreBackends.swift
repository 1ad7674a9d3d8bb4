import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Logging

/// Every backend the store suite runs against. A new backend (PostgreSQL) is one more case here;
/// no test body changes.
enum StoreBackendKind: String, CaseIterable, CustomStringConvertible, Sendable {
    case sqliteMemory
    case sqliteFile
    /// A fresh database on the server `HERALD_TEST_POSTGRES_URL` names; left out when none is set
    /// (`PostgresAvailabilityTests` says so, and fails under CI).
    case postgres

    var description: String { rawValue }

    /// The backends this run can reach.
    static var allCases: [StoreBackendKind] {
        PostgresTestDatabase.serverURL == nil ? [.sqliteMemory, .sqliteFile] : [.sqliteMemory, .sqliteFile, .postgres]
    }

    /// Opens a fresh, migrated store, runs `body`, and removes what it created.
    func withStore<T>(_ body: (SQLRegistrationStore, any SQLBackend) async throws -> T) async throws -> T {
        try await withEmptyBackend { backend in
            try await Migrator(backend: backend).migrate(logger: Logger(label: "herald.tests"))
            return try await body(SQLRegistrationStore(backend: backend), backend)
        }
    }

    /// Opens a fresh database with no schema (for migration tests), runs `body`, and removes what it created.
    func withEmptyBackend<T>(_ body: (any SQLBackend) async throws -> T) async throws -> T {
        let logger = Logger(label: "herald.tests")
        switch self {
        case .sqliteMemory:
            return try await StoreFactory.withBackend(.sqliteMemory, logger: logger, body)
        case .sqliteFile:
            let directory = try Scratch()
            defer { directory.remove() }
            return try await StoreFactory.withBackend(.sqliteFile(path: directory.path("store.sqlite")), logger: logger, body)
        case .postgres:
            return try await PostgresTestDatabase.with { url in try await StoreFactory.withBackend(url, logger: logger, body) }
        }
    }
}

/// Builders for validated requests, so store tests read as the scenario they describe.
enum Fixture {
    static let t0 = Timestamp(milliseconds: 1_800_000_000_000)

    static func request(
        _ deviceId: String, token: String = "aabbccdd", os: DeviceOS = .ios, channels: [String] = [],
        expiresAt: Timestamp? = nil, osVersion: String? = "17.2"
    ) throws -> RegistrationRequest {
        RegistrationRequest(
            deviceId: try DeviceID(validating: deviceId),
            deviceToken: try DeviceToken(validating: token, os: os),
            os: os, osVersion: osVersion,
            channels: try channels.map { name throws(HeraldFault) in try ChannelName(validating: name) },
            expiration: expiresAt.map(Expiration.init(timestamp:)))
    }

    static func channel(_ name: String) throws -> ChannelName { try ChannelName(validating: name) }
}
