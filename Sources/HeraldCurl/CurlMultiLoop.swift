import CCurl
import Synchronization

/// A provider client's sending machinery: its connections, spread over lanes, each lane one curl multi
/// handle on a thread of its own (`CurlLane`) with `connectionsPerThread` of the connections.
///
/// One multi handle drives its connections from one thread, so one core did all of the HTTP/2 framing
/// and TLS of a client while the others waited; a thread per connection lets a client use as many
/// cores as it has connections, as plain C on libcurl does with a multi handle per thread (BENCHMARKS.md).
/// The in-flight window is unchanged in meaning: `connections × streamsPerConnection` in all, each
/// lane holding its share. A job goes to the lane with the fewest jobs not yet completed, so a lane
/// whose connection stalls or reconnects takes less while the others carry on.
public final class CurlMultiLoop: Sendable {
    private let lanes: [CurlLane]
    /// Where the search for the least loaded lane starts, turned per job so equal lanes share evenly.
    private let turn = Atomic<Int>(0)

    /// `connections` is per host; `hosts` (1 for a service with one address, more for Web Push's many
    /// push services) multiplies it into the loop's total. `connectionsPerThread` groups connections
    /// into lanes (1: a thread per connection; keep it 1 with `settings.narrowUntilAccepted`, see
    /// `CurlLane`). `name` names the lanes' threads (`herald-apns-curl`,
    /// then `-1`, `-2`… when there are several); `stoppedText` is the error text of the transfers that
    /// end because the loop stopped.
    public init(
        settings: CurlOptions, connections: Int, streamsPerConnection: Int, hosts: Int = 1, connectionsPerThread: Int = 1,
        name: String, stoppedText: String = "the client was shut down"
    ) throws(CurlConfigurationError) {
        let connections = max(1, connections)
        let perLane = max(1, connectionsPerThread)
        let laneCount = (connections + perLane - 1) / perLane
        var lanes: [CurlLane] = []
        for index in 0..<laneCount {
            // Connections shared out as evenly as they go: 5 over 2 lanes is 3 and 2.
            let share = connections / laneCount + (index < connections % laneCount ? 1 : 0)
            do {
                lanes.append(
                    try CurlLane(
                        settings: settings, connections: share, streamsPerConnection: streamsPerConnection, hosts: hosts,
                        name: laneCount == 1 ? name : "\(name)-\(index + 1)", stoppedText: stoppedText))
            } catch {
                for lane in lanes { lane.requestStop() }
                for lane in lanes { lane.waitStopped() }
                throw error
            }
        }
        self.lanes = lanes
    }

    deinit { stop() }

    /// How many sends a client over this loop should have submitted and not yet completed at most (its
    /// `maxInFlight`): twice what its connections carry, `connections × streamsPerConnection` on the wire
    /// and as many again waiting in the lanes. When an answer ends a stream, the lane then attaches the
    /// next send in the same round, on its own thread; with only a window's worth, a stream stayed empty
    /// until the caller's task had read the outcome and submitted another, a round trip through the
    /// caller that cost FCM at 2 × 100 about a tenth of its rate against plain C on libcurl (88% of it
    /// against 101% with twice the window, the same run: BENCHMARKS.md section 27). Waiting sends do not
    /// run their request timeout (it starts when curl takes them), and what reaches curl is still the
    /// window (`CurlWindow`). A lane's window does not grow with Web Push's hosts, so neither does this.
    public static func maxInFlight(connections: Int, streamsPerConnection: Int) -> Int {
        2 * max(1, connections) * max(1, streamsPerConnection)
    }

    /// How many threads the loop runs.
    public var threads: Int { lanes.count }

    /// Queues a job; its completion is called exactly once, on a lane's thread (or the caller's when the
    /// loop has stopped), also when the loop stops.
    public func submit(_ job: CurlJob) {
        if lanes.count == 1 {
            lanes[0].submit(job)
            return
        }
        let start = turn.wrappingAdd(1, ordering: .relaxed).oldValue
        var chosen = lanes[start % lanes.count]
        var least = chosen.load
        for offset in 1..<lanes.count where least > 0 {
            let lane = lanes[(start + offset) % lanes.count]
            let load = lane.load
            if load < least {
                chosen = lane
                least = load
            }
        }
        chosen.submit(job)
    }

    /// The lanes' counters added up.
    public var counters: CurlCounters {
        var total = CurlCounters(easyHandles: 0, inFlight: 0, queued: 0, completed: 0)
        for lane in lanes {
            let counters = lane.counters
            total.easyHandles += counters.easyHandles
            total.inFlight += counters.inFlight
            total.queued += counters.queued
            total.completed += counters.completed
            total.rounds += counters.rounds
            total.connections += counters.connections
            total.abandonedConnections += counters.abandonedConnections
            total.sentAgain += counters.sentAgain
        }
        return total
    }

    /// Stops the loop: queued and in-flight jobs complete as cancelled, connections close, the
    /// threads end, handles are freed. Safe to call more than once and from any thread; on a lane's
    /// thread (a completion) it only asks, and the lanes stop after their round.
    public func stop() {
        for lane in lanes { lane.requestStop() }
        // A completion calling stop must not wait for its own lane, nor for a lane whose completion
        // may be waiting for this one.
        if lanes.contains(where: \.isCurrentThread) { return }
        for lane in lanes { lane.waitStopped() }
    }
}
