import HeraldMetrics
import Logging
import PostgresNIO
import Synchronization

/// Which of the URL's hosts Herald works on, found as libpq finds it for `target_session_attrs`: the
/// hosts are tried in order and the first that qualifies is kept (`read-write`: its sessions accept
/// writes, i.e. the primary; `any`: it accepts a connection).
///
/// Each host has a connection pool of its own (`PostgresBackend`); only the kept host's is used. When an
/// operation's failure says the kept host may no longer qualify (`PostgresBackend.failoverSignal`), one
/// search runs (never two at once): a host that is plainly no longer the primary (it answered
/// "read-only") is given up at once, so requests answer 503 instead of failing against it; after a lost
/// connection the same host is kept while the search checks it, so one dropped connection costs no
/// request. With no host qualifying, requests answer 503 and the search goes on every `retryInterval`
/// until one does: after a failover, the promoted standby is found within that interval of its promotion.
final class PostgresPrimary: Sendable {
    /// How often a search without a result is repeated.
    static let retryInterval: Duration = .milliseconds(500)
    /// How long a host may take to say whether it is read-only.
    static let checkTimeout: Duration = .seconds(5)

    let hosts: [PostgresLocation.Endpoint]
    let attrs: PostgresLocation.TargetSessionAttrs
    private let logger: Logger
    private let metrics: HeraldMetrics
    private let state: Mutex<State>
    /// Opens a connection to one host, as the pools do (PostgresBackend's settings).
    private let connect: @Sendable (PostgresLocation.Endpoint) async throws -> PostgresConnection
    /// Wakes the search loop.
    private let wake: (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation)

    struct State {
        /// The host in use; nil while none qualifies.
        var current: Int?
        /// The last host that was in use, to tell a failover (another host) from the same host back.
        var last: Int?
        /// Bumped whenever `current` changes, so a LISTEN connection can tell it is on a host given up.
        var generation = 0
        /// When the kept host was lost (nil while there is one).
        var lostAt: ContinuousClock.Instant?
        var searching = false
    }

    init(
        hosts: [PostgresLocation.Endpoint], attrs: PostgresLocation.TargetSessionAttrs, logger: Logger, metrics: HeraldMetrics,
        connect: @escaping @Sendable (PostgresLocation.Endpoint) async throws -> PostgresConnection
    ) {
        self.hosts = hosts
        self.attrs = attrs
        self.logger = logger
        self.metrics = metrics
        self.connect = connect
        // Until the first search, the first host is used (start-up checks it: `establish`).
        self.state = Mutex(State(current: 0, last: nil))
        self.wake = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The host in use and its generation, or nil while none qualifies.
    var current: (index: Int, generation: Int)? {
        state.withLock { state in state.current.map { ($0, state.generation) } }
    }

    var generation: Int { state.withLock { $0.generation } }

    /// Finds the host to use before Herald starts; throws with each host's answer if none qualifies.
    func establish() async throws {
        let (found, answers) = await search()
        guard let found else {
            throw StoreOpenFailure(description: "no usable database host: \(answers.joined(separator: "; "))")
        }
        adopt(found, reason: nil)
    }

    /// An operation on host `index` failed in a way that says it may no longer qualify. `lost`: it
    /// certainly does not (it answered as a standby): it is given up now.
    func suspect(_ index: Int, lost: Bool, reason: String) {
        let given = state.withLock { state -> Bool in
            guard lost, state.current == index else { return false }
            state.current = nil
            state.generation += 1
            state.lostAt = .now
            state.last = index
            return true
        }
        if given {
            logger.warning(
                "database host \(hosts[index]) is no longer usable; looking for the primary",
                metadata: ["herald.database.reason": "\(reason)"])
            metrics.databasePrimary(host: hosts[index].description, isPrimary: false)
        }
        wake.continuation.yield()
    }

    /// Runs the searches that `suspect` asks for until the task is cancelled.
    func run() async {
        for await _ in wake.stream {
            while !Task.isCancelled {
                let began = generation
                let (found, answers) = await search()
                if let found {
                    // A host given up while the search ran (it answered as a standby since) is not taken
                    // back on the search's older word: search again.
                    if generation != began, state.withLock({ $0.current == nil }) { continue }
                    adopt(found, reason: answers)
                    break
                }
                let given = state.withLock { state -> Bool in
                    guard let current = state.current else { return false }
                    state.current = nil
                    state.generation += 1
                    state.lostAt = .now
                    state.last = current
                    return true
                }
                if given {
                    logger.warning(
                        "no database host is usable; requests answer 503 until one is",
                        metadata: ["herald.database.hosts": "\(answers.joined(separator: "; "))"])
                    for host in hosts { metrics.databasePrimary(host: host.description, isPrimary: false) }
                }
                guard (try? await Task.sleep(for: Self.retryInterval)) != nil else { return }
            }
        }
    }

    /// Stops `run`.
    func finish() { wake.continuation.finish() }

    /// Makes host `index` the one in use (if it is not already), counting a failover when it differs
    /// from the last one used and the time spent without one.
    private func adopt(_ index: Int, reason: [String]?) {
        let change = state.withLock { state -> (failover: Bool, without: Duration?)? in
            guard state.current != index else {
                // The host in use from the start: what a later move is a failover from.
                if state.last == nil { state.last = index }
                return nil
            }
            let failover = state.last.map { $0 != index } ?? false
            let without = state.lostAt.map { ContinuousClock.now - $0 }
            state.current = index
            state.last = index
            state.generation += 1
            state.lostAt = nil
            return (failover, without)
        }
        for (other, host) in hosts.enumerated() { metrics.databasePrimary(host: host.description, isPrimary: other == index) }
        guard let change else { return }
        if let without = change.without { metrics.databaseWithoutPrimary(without) }
        if change.failover { metrics.databaseFailover() }
        guard reason != nil else { return }
        logger.notice(
            change.failover ? "database failover: now using \(hosts[index])" : "database host \(hosts[index]) is usable again",
            metadata: change.without.map { ["herald.database.without": "\($0)"] } ?? [:])
    }

    /// Tries the hosts in order; returns the first that qualifies and what each host tried answered.
    private func search() async -> (Int?, [String]) {
        var answers: [String] = []
        for (index, host) in hosts.enumerated() {
            do {
                let connection = try await connect(host)
                defer { Task { try? await connection.close() } }
                if attrs == .any { return (index, answers) }
                // Bounded: a host that takes the connection and then answers nothing must not stop the search.
                let logger = self.logger
                let readOnly = try await PostgresBackend.withDeadline(Self.checkTimeout, onTimeout: { try? await connection.close() }) {
                    let rows = try await connection.query("SHOW transaction_read_only", logger: logger)
                    var readOnly: String?
                    for try await (value) in rows.decode(String.self) { readOnly = value }
                    return readOnly
                }
                if readOnly == "off" { return (index, answers) }
                answers.append("\(host): read-only (a standby)")
            } catch {
                answers.append("\(host): \(PostgresBackend.explain(error))")
            }
        }
        return (nil, answers)
    }
}
