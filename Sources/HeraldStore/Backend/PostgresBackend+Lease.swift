import HeraldCore
import PostgresNIO

/// Taking a pooled connection of the host in use, bounded in time, and what a failure on it says.
extension PostgresBackend {
    /// How long a caller waits for a pooled connection before Herald checks whether the database can be
    /// reached at all. While PostgreSQL is down the pool keeps trying to connect and queues requests;
    /// without this check a request would wait for the pool's circuit breaker (a minute) instead of
    /// answering 503. A database that answers but is busy is waited for, up to `maxLeaseWait`.
    static let leaseTimeout: Duration = .seconds(5)
    /// The longest wait for a pooled connection while the database can be reached (overload).
    static let maxLeaseWait: Duration = .seconds(60)

    /// Runs `body` on a pooled connection of the host in use. Waiting for the connection is bounded by
    /// `leaseTimeout` (and ends at once if that host is given up meanwhile), and (when `bounded`) waiting for
    /// `body`'s answer by `operationTimeout`, after which the connection is closed: a write cut off that
    /// way may have committed or not, as with any lost connection. A failure that says the host is no
    /// longer the primary closes the connection, starts the search for the primary and answers
    /// `StoreUnavailable` (503).
    func withLeasedConnection<T: Sendable>(
        bounded: Bool = true,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        guard let (host, _) = primary.current else {
            throw StoreUnavailable(reason: "no database host is usable yet (failover in progress)")
        }
        let client = clients[host]
        let state = LeaseState()
        do {
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask {
                    do {
                        return try await client.withConnection { connection in
                            guard state.take(LeaseState.leased)
                            else { throw StoreUnavailable(reason: "no database connection within \(Self.leaseTimeout)") }
                            do {
                                guard bounded else { return try await body(connection) }
                                return try await Self.withDeadline(Self.operationTimeout, onTimeout: { try? await connection.close() }) {
                                    try await body(connection)
                                }
                            } catch  where Self.failoverSignal(error) == .notPrimary {
                                // Dropped, not handed back: the pool opens a new one when asked.
                                try? await connection.close()
                                throw error
                            }
                        }
                    } catch  where !state.isLeased {
                        // Failed before a connection was had (pool shut down, connection attempts failing).
                        throw StoreUnavailable(reason: Self.explain(error))
                    }
                }
                group.addTask {
                    var waited = Duration.zero
                    var sinceCheck = Duration.zero
                    let step = Duration.milliseconds(250)
                    while true {
                        // Cancelled (the caller is going away): not a timeout; the lease child decides.
                        guard (try? await Task.sleep(for: step)) != nil else { return nil }
                        waited += step
                        sinceCheck += step
                        if state.isLeased { return nil }
                        if self.primary.current?.index != host {
                            guard state.take(LeaseState.timedOut) else { return nil }
                            throw StoreUnavailable(reason: "the database host \(self.location.hosts[host]) was given up")
                        }
                        guard sinceCheck >= Self.leaseTimeout else { continue }
                        sinceCheck = .zero
                        // A slow pool on a live database (overload) is waited for; an unreachable one is not.
                        if waited < Self.maxLeaseWait, await self.isReachable(host) { continue }
                        guard state.take(LeaseState.timedOut) else { return nil }
                        throw StoreUnavailable(reason: "no database connection within \(waited)")
                    }
                }
                while let next = try await group.next() {
                    if let value = next {
                        group.cancelAll()
                        return value
                    }
                }
                throw StoreUnavailable(reason: "the database connection ended without an answer")
            }
        } catch {
            noteFailure(error, on: host)
            throw error
        }
    }

    /// Tells the search for the primary about a failure on `host` that says it may no longer be usable.
    func noteFailure(_ error: any Error, on host: Int) {
        guard clients.count > 1 else { return }
        if let signal = Self.failoverSignal(error) {
            primary.suspect(host, lost: signal == .notPrimary, reason: Self.explain(error))
        } else if let unavailable = error as? StoreUnavailable {
            // No connection, or no answer in time: a host that went silent (powered off, cut off by the
            // network) sends no reset, so this is the only word of it. The search checks the host again.
            primary.suspect(host, lost: false, reason: unavailable.reason)
        }
    }
}
