import HeraldCore
import HeraldStore
import SQLKit
import ServiceLifecycle

/// What `GET /ready` asks: is this instance draining, does the database answer a read, and is its
/// schema the one this binary expects. Liveness (`GET /health`) asks nothing: the process answers.
public final class Readiness: Sendable {
    private let backend: (any SQLBackend)?
    private let draining = Locked(false)
    /// How long the database gets to answer before the instance counts as not ready.
    static let databaseDeadline = Duration.seconds(2)

    /// `backend` nil: no database check (a router built for a test without one).
    public init(backend: (any SQLBackend)?) {
        self.backend = backend
    }

    /// From now on, `/ready` answers 503: the instance is shutting down.
    public func startDraining() { draining.withLock { $0 = true } }

    public var isDraining: Bool { draining.withLock { $0 } }

    /// Nil when ready; otherwise one line saying what is not.
    public func problem() async -> String? {
        if isDraining { return "Herald is shutting down" }
        guard let backend else { return nil }
        let answer = await withTaskGroup(of: String??.self) { group in
            group.addTask {
                do {
                    _ = try await backend.read { db in try await db.raw("SELECT 1 AS one").first() }
                    let pending = try await Migrator(backend: backend).pending()
                    return .some(pending.isEmpty ? nil : "the database schema is not current (pending: \(pending.joined(separator: ", ")))")
                } catch {
                    return .some("the database does not answer a read")
                }
            }
            group.addTask {
                try? await Task.sleep(for: Self.databaseDeadline)
                return .some("the database did not answer within \(Self.databaseDeadline.components.seconds) s")
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? nil
        }
        return answer
    }
}

/// Shuts down first (it is listed after the HTTP server, and a service group stops services in reverse
/// order): on SIGTERM it marks the instance as draining, then waits `seconds` while the HTTP server
/// still serves, so a load balancer polling `/ready` takes the instance out before it stops answering.
struct DrainService: Service {
    let readiness: Readiness
    let seconds: Double

    func run() async throws {
        // Until shutdown begins: gracefulShutdown() returns when it does (or throws when cancelled).
        try? await gracefulShutdown()
        readiness.startDraining()
        if seconds > 0 { try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000))) }
    }
}
