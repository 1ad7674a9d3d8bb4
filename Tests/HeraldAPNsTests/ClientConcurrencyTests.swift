import APNsMock
import Foundation
import HeraldAPNs
import HeraldCore
import HeraldCurl
import Testing

/// Multiplexing, faults mid-flight, shutdown and timeouts.
@Suite struct ClientConcurrencyTests {
    @Test func twoThousandNotificationsShareTwoConnectionsWithManyStreamsInFlight() async throws {
        let mock = try await Fixtures.mock(.tls)
        // Slow answers keep streams open, so the window really fills.
        mock.setFaults(APNsMockFaults(latencyMilliseconds: 50))
        let client = try Fixtures.client(for: mock, connections: 2, streams: 500)
        defer { client.shutdown() }
        let outcomes = await client.sendAll((0..<2000).map { Fixtures.notification($0) })
        #expect(outcomes.count == 2000)
        #expect(outcomes.values.allSatisfy { $0.isDelivered })
        let stats = mock.stats()
        #expect(stats.accepted == 2000)
        #expect(stats.connectionsOpened <= 2, "\(stats)")
        #expect(stats.maxConcurrentStreams > 100, "\(stats)")
        #expect(Set(mock.notifications().map(\.token)).count == 2000)
        let counters = client.counters
        #expect(counters.inFlight == 0 && counters.queued == 0)
        #expect(counters.easyHandles <= 1000)
        try await mock.shutdown()
    }

    /// A connection idle longer than `idleReconnectSeconds` is not reused, the stand-in for the HTTP/2 PING
    /// libcurl cannot send on an idle connection: the next send opens a new one. Within the limit the
    /// connection is reused.
    @Test func aConnectionIdleLongerThanItsLimitIsReplacedAtTheNextSend() async throws {
        func connectionsOpened(idleReconnect: Duration) async throws -> Int {
            let mock = try await Fixtures.mock(.tls)
            let client = try Fixtures.client(for: mock, connections: 1, streams: 10, idleReconnect: idleReconnect)
            defer { client.shutdown() }
            #expect(await client.sendAll([Fixtures.notification(0)]).values.allSatisfy { $0.isDelivered })
            try await Task.sleep(for: .milliseconds(2500))
            #expect(await client.sendAll([Fixtures.notification(1)]).values.allSatisfy { $0.isDelivered })
            let stats = mock.stats()
            #expect(stats.accepted == 2, "\(stats)")
            try await mock.shutdown()
            return stats.connectionsOpened
        }
        async let idledOut = connectionsOpened(idleReconnect: .seconds(1))
        async let kept = connectionsOpened(idleReconnect: .seconds(ConnectionIdle.defaultSeconds))
        #expect(try await idledOut == 2, "idle 2.5 s against a limit of 1 s: a new connection")
        #expect(try await kept == 1, "idle 2.5 s against the default hour: the same connection")
    }

    /// Each connection has a curl thread of its own (a lane), and the sends are shared between them: two
    /// connections are two threads that each complete a fair part of a burst, over exactly two connections.
    @Test func eachConnectionIsDrivenByItsOwnThreadAndCarriesAShare() async throws {
        let mock = try await Fixtures.mock(.tls)
        mock.setFaults(APNsMockFaults(latencyMilliseconds: 20))
        let client = try Fixtures.client(for: mock, connections: 2, streams: 50)
        defer { client.shutdown() }
        let count = 1_000
        let threads = Locked<[UInt: Int]>([:])
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        client.send(Fixtures.notification(index)) { outcome in
                            if outcome.isDelivered { threads.withLock { $0[UInt(pthread_self()), default: 0] += 1 } }
                            continuation.resume()
                        }
                    }
                }
            }
        }
        let shares = threads.withLock { $0 }
        #expect(shares.values.reduce(0, +) == count)
        #expect(shares.count == 2, "completions ran on \(shares.count) thread(s): \(shares)")
        #expect(shares.values.allSatisfy { $0 >= count / 5 }, "a lane idled: \(shares)")
        let stats = mock.stats()
        #expect(stats.accepted == count)
        #expect(stats.connectionsOpened == 2, "\(stats)")
        #expect(client.counters.completed == count)
        try await mock.shutdown()
    }

    @Test(arguments: ["goaway", "drop"])
    func faultsMidFlightLeaveEveryNotificationWithAResultAndNoneLost(_ fault: String) async throws {
        let mock = try await Fixtures.mock(.tls)
        var faults = APNsMockFaults(latencyMilliseconds: 5)
        if fault == "goaway" { faults.goAwayAfterStreams = 300 } else { faults.dropConnectionAfterStreams = 300 }
        mock.setFaults(faults)
        let client = try Fixtures.client(for: mock, connections: 2, streams: 200)
        defer { client.shutdown() }
        let (deliveredBy, _) = await Self.sendUntilDelivered(Array(0..<1500), through: client, label: fault)
        #expect(deliveredBy.count == 1500)
        let recorded = mock.notifications().map(\.token)
        // What the client calls delivered is exactly what the server accepted: none lost, and a
        // failed send was never also accepted (so a retry is not a duplicate).
        #expect(Set(recorded) == Set((0..<1500).map(Fixtures.token)))
        #expect(recorded.count == 1500, "\(fault): \(recorded.count - 1500) duplicates")
        let stats = mock.stats()
        if fault == "goaway" { #expect(stats.goAwaysSent >= 1, "\(stats)") } else { #expect(stats.connectionsDropped >= 1, "\(stats)") }
        #expect(client.counters.inFlight == 0)
        try await mock.shutdown()
    }

    /// A connection that stops answering without closing (a hung peer, or a path a NAT dropped) is given up
    /// once a send on it times out with nothing answered for a whole request timeout: the sends stuck on it
    /// fail as retryable and go out on a fresh connection, instead of every retry waiting on the dead one.
    @Test func aConnectionThatStopsAnsweringIsReplacedAndNothingIsLost() async throws {
        let mock = try await Fixtures.mock(.tls)
        mock.setFaults(APNsMockFaults(silentAfterStreams: 200))
        // Long enough that a busy machine (the whole suite runs at once) does not time out answers on the
        // healthy connection; without the change every retry waits on the silent one and none gets through.
        let client = try Fixtures.client(for: mock, connections: 1, streams: 100, requestTimeout: .seconds(2))
        defer { client.shutdown() }
        let count = 300
        let (deliveredBy, failures) = await Self.sendUntilDelivered(Array(0..<count), through: client, label: "silent")
        #expect(deliveredBy.count == count)
        #expect(failures > 0, "the silent connection held sends back")
        // Round 1 fills the connection until it falls silent, round 2 sends the rest on its replacement. A
        // round more or two when the whole suite stalls a healthy connection past the timeout (that one is
        // replaced too); a silent connection that is never replaced delivers nothing after round 1.
        let rounds = Dictionary(grouping: deliveredBy.values, by: { $0 }).mapValues(\.count)
        #expect(deliveredBy.values.allSatisfy { $0 <= 5 }, "delivered soon after the silence was noticed: \(rounds) by round")
        let recorded = mock.notifications().map(\.token)
        #expect(Set(recorded) == Set((0..<count).map(Fixtures.token)), "none lost")
        // Exactly once unless the machine stalled a healthy connection past the timeout (an answer that came
        // too late is an unknown outcome, sent again).
        #expect(recorded.count <= count + 100, "\(recorded.count - count) sent twice")
        let stats = mock.stats()
        #expect(stats.connectionsSilenced >= 1, "\(stats)")
        let abandoned = client.counters.abandonedConnections
        #expect(abandoned >= 1 && stats.connectionsOpened <= abandoned + 1, "\(stats), \(abandoned) abandoned")
        try await mock.shutdown()
    }

    /// Sends `indices` round after round, the failures again while the retry policy says so: which round
    /// delivered each, and how many sends failed on the way.
    private static func sendUntilDelivered(
        _ indices: [Int], through client: APNsClient, label: String
    ) async -> (deliveredBy: [Int: Int], failures: Int) {
        let policy = APNsRetryPolicy(maxAttempts: 10, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
        var pending = indices
        var deliveredBy: [Int: Int] = [:]  // index → round
        var failures = 0
        for round in 1...10 where !pending.isEmpty {
            let outcomes = await client.sendAll(pending.map { Fixtures.notification($0) })
            #expect(outcomes.count == pending.count, "every notification gets exactly one outcome")
            var next: [Int] = []
            for (slot, index) in pending.enumerated() {
                guard let outcome = outcomes[slot] else {
                    Issue.record("\(label): no outcome for \(index)")
                    continue
                }
                switch outcome {
                case .delivered: deliveredBy[index] = round
                case .failed:
                    failures += 1
                    guard case .retry = policy.decide(outcome, attempt: round) else {
                        Issue.record("\(label): a \(outcome) must be retryable")
                        continue
                    }
                    next.append(index)
                default: Issue.record("\(label): unexpected \(outcome)")
                }
            }
            pending = next
        }
        #expect(pending.isEmpty, "\(label): \(pending.count) never delivered")
        return (deliveredBy, failures)
    }

    @Test func scriptedServerErrorsAreRetriedUntilDelivered() async throws {
        let mock = try await Fixtures.mock(.cleartext)
        mock.script(token: Fixtures.token(1), .internalServerError, times: 2)
        mock.script(token: Fixtures.token(2), .serviceUnavailable, times: 1)
        mock.script(token: Fixtures.token(3), .tooManyRequests, times: 1)
        let client = try Fixtures.client(for: mock)
        defer { client.shutdown() }
        let policy = APNsRetryPolicy(
            maxAttempts: 5, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5), tooManyRequestsDelay: .milliseconds(2))
        for index in 1...3 {
            var attempt = 1
            var outcome = await client.send(Fixtures.notification(index))
            while case .retry(let delay) = policy.decide(outcome, attempt: attempt) {
                try await Task.sleep(for: delay)
                attempt += 1
                outcome = await client.send(Fixtures.notification(index))
            }
            #expect(outcome.isDelivered)
            #expect(attempt == [1: 3, 2: 2, 3: 2][index])
        }
        #expect(mock.notifications().count == 3)
        try await mock.shutdown()
    }

    @Test func shutdownEndsEveryPendingSendAsCancelled() async throws {
        let mock = try await Fixtures.mock(.cleartext)
        // Answers would take 10 s: ending well before that shows shutdown did not wait for them (the
        // bound leaves room for a loaded machine, where 2 s was seen to be too tight).
        mock.setFaults(APNsMockFaults(latencyMilliseconds: 10_000))
        let client = try Fixtures.client(for: mock)
        let started = ContinuousClock.now
        async let outcomes = client.sendAll((0..<50).map { Fixtures.notification($0) })
        try await Task.sleep(for: .milliseconds(300))
        client.shutdown()
        let all = await outcomes
        #expect(all.count == 50)
        for outcome in all.values {
            guard case .failed(let error) = outcome, error.kind == .cancelled else {
                Issue.record("expected cancelled, got \(outcome)")
                continue
            }
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        // After shutdown a send still gets its one outcome.
        guard case .failed(let late) = await client.send(Fixtures.notification(99)), late.kind == .cancelled else {
            Issue.record("a send after shutdown must end as cancelled")
            try await mock.shutdown()
            return
        }
        try await mock.shutdown()
    }

    @Test func aShutdownFromACompletionDoesNotDeadlock() async throws {
        let mock = try await Fixtures.mock(.cleartext)
        let client = try Fixtures.client(for: mock)
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<APNsOutcome, Never>) in
            client.send(Fixtures.notification(1)) { outcome in
                client.shutdown()  // on the client's own thread
                continuation.resume(returning: outcome)
            }
        }
        #expect(outcome.isDelivered)
        client.shutdown()  // and again from here: waits for the loop to finish, once
        #expect(client.counters.easyHandles == 0)
        try await mock.shutdown()
    }

    @Test func aSlowAnswerTimesOut() async throws {
        let mock = try await Fixtures.mock(.cleartext)
        mock.script(token: Fixtures.token(1), .delay(milliseconds: 3000, then: .accept))
        let client = try Fixtures.client(for: mock, requestTimeout: .milliseconds(500))
        defer { client.shutdown() }
        let outcome = await client.send(Fixtures.notification(1))
        guard case .failed(let error) = outcome else {
            Issue.record("expected a timeout, got \(outcome)")
            try await mock.shutdown()
            return
        }
        #expect(error.kind == .timeout)
        // The connection is still good for the next one.
        #expect(await client.send(Fixtures.notification(2)).isDelivered)
        try await mock.shutdown()
    }

    @Test func nobodyListeningIsAConnectFailure() async throws {
        // Bind and close a port so nothing listens there.
        let mock = try await Fixtures.mock(.cleartext)
        let url = mock.baseURL
        try await mock.shutdown()
        let client = try APNsClient(
            configuration: APNsClientConfiguration(
                environment: .custom(url: url, caFile: nil), credentials: .token(Fixtures.signingKey()),
                connectTimeout: .seconds(2)))
        defer { client.shutdown() }
        guard case .failed(let error) = await client.send(Fixtures.notification(1)) else {
            Issue.record("expected a connect failure")
            return
        }
        #expect(error.kind == .connect, "\(error)")
    }

    @Test func connectionsCloseOnShutdownAndNoHandleIsLeft() async throws {
        let mock = try await Fixtures.mock(.tls)
        let client = try Fixtures.client(for: mock, connections: 2, streams: 100)
        let outcomes = await client.sendAll((0..<500).map { Fixtures.notification($0) })
        #expect(outcomes.values.allSatisfy { $0.isDelivered })
        let open = try Sockets.connected(toPort: mock.port)
        #expect(open >= 1)
        let counters = client.counters
        #expect(counters.inFlight == 0)
        #expect(counters.easyHandles <= 200, "handles are pooled up to the window, not one per send")
        client.shutdown()
        #expect(try Sockets.connected(toPort: mock.port) == 0)
        #expect(client.counters.easyHandles == 0)
        try await mock.shutdown()
    }
}

/// This process's TCP sockets, from /proc.
enum Sockets {
    /// How many of this process's file descriptors are TCP sockets whose remote port is `port`.
    static func connected(toPort port: Int) throws -> Int {
        let fds = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        var inodes = Set<String>()
        for fd in fds {
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
                target.hasPrefix("socket:[")
            {
                inodes.insert(String(target.dropFirst(8).dropLast()))
            }
        }
        let portHex = String(format: "%04X", port)
        var count = 0
        for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
            guard let text = readWhole(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9 else { continue }
                let remotePort = fields[2].split(separator: ":").last.map(String.init)
                if remotePort == portHex, inodes.contains(String(fields[9])) { count += 1 }
            }
        }
        return count
    }

    /// /proc files report size 0, so read until EOF rather than trusting the size.
    private static func readWhole(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
