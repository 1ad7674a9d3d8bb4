import CCurl
import DequeModule
import Foundation
import HeraldCore
import Synchronization

/// One lane of a `CurlMultiLoop`: one curl multi handle on a dedicated thread, with its own
/// connections. Jobs are queued under a lock, the thread
/// is woken with `curl_multi_wakeup` when the queue stops being empty, attaches at most
/// `window` transfers to the multi handle (the rest wait in Swift, not inside curl, so their
/// timeout does not run and curl's per-iteration walk stays short), and waits in `curl_multi_poll`.
///
/// `@unchecked Sendable`: the multi handle's transfers, the easy handles, `active`, `waiting`
/// and `idle` are touched only by the loop thread; what other threads touch (`shared`) is behind
/// a lock (`Locked`), and `curl_multi_wakeup` (thread-safe in curl) is only called under that lock while
/// the loop has not stopped, so it never meets a cleaned-up handle.
final class CurlLane: @unchecked Sendable {
    private struct Shared {
        var queue: [CurlJob] = []
        var stopping = false
        var counters = CurlCounters(easyHandles: 0, inFlight: 0, queued: 0, completed: 0)
    }

    private let multi: UnsafeMutableRawPointer
    private let settings: CurlOptions
    /// The window and curl's streams per connection (loop thread only).
    private var window: CurlWindow
    /// The `CURLMOPT_MAX_CONCURRENT_STREAMS` set last.
    private var curlStreams: Int
    private let shared = Locked(Shared())
    /// Left when the loop thread has freed everything.
    private let done = DispatchGroup()
    private let threadID = Locked<pthread_t?>(nil)
    /// Jobs submitted and not yet completed (queued, waiting or in curl): the loop gives a new job to
    /// the lane with the fewest. Read by any thread, so an atomic rather than a field of `shared`.
    private let pending = Atomic<Int>(0)

    // Loop thread only.
    private var active: [UnsafeMutableRawPointer: (easy: CurlEasy, job: CurlJob)] = [:]
    private var waiting = Deque<CurlJob>()
    private var intake: [CurlJob] = []
    private var idle: [CurlEasy] = []
    /// Outlives every easy handle: curl calls its close callback up to `curl_multi_cleanup`.
    private let sockets = CurlSockets()
    private var completedCount = 0
    private var rounds = 0
    /// When the service last answered a transfer on this lane (`DispatchTime` nanoseconds), and how long a
    /// silence makes a timed-out transfer mean that the lane's connections stopped answering.
    private var lastAnswer = DispatchTime.now().uptimeNanoseconds
    private let silenceLimit: UInt64
    private var abandonedCount = 0
    /// Jobs sent again on a new handle after curl gave up retrying them (`CurlEasy.curlGaveUpOnRetriesOfEarlierTransfers`).
    private var sentAgainCount = 0

    /// `name` names the lane's thread (`herald-apns-curl-1`); `stoppedText` is the error text of the
    /// transfers that end because the loop stopped. `connections` is per host; `hosts` (1 for a service
    /// with one address, more for Web Push's many push services) multiplies it into the lane's total.
    init(
        settings: CurlOptions, connections: Int, streamsPerConnection: Int, hosts: Int = 1, name: String,
        stoppedText: String = "the client was shut down"
    ) throws(CurlConfigurationError) {
        CurlGlobal.initialize()
        guard let multi = curl_multi_init() else { throw CurlConfigurationError("curl_multi_init failed") }
        cancelled = CurlCompletion(code: -1, status: 0, body: [], errorText: stoppedText)
        self.multi = multi
        self.settings = settings
        // (Cleartext h2c carries one stream per connection: see CurlEasy for the curl 7.88 bug.)
        let streams = settings.cleartext ? 1 : streamsPerConnection
        window = CurlWindow(connections: connections, streams: streams, narrowsUntilAccepted: settings.narrowUntilAccepted)
        curlStreams = window.curlStreams
        silenceLimit = UInt64(max(1, settings.requestTimeoutMilliseconds)) * 1_000_000
        var ok = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, ccurl_pipe_multiplex()) == CURLM_OK
        ok = ok && ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections) == CURLM_OK
        ok = ok && ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, connections * hosts) == CURLM_OK
        ok = ok && ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, connections * hosts) == CURLM_OK
        // curl's default is 100 streams per connection; APNs allows 1000.
        ok = ok && ccurl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, curlStreams) == CURLM_OK
        guard ok else {
            curl_multi_cleanup(multi)
            throw CurlConfigurationError("libcurl \(CurlGlobal.version) cannot multiplex HTTP/2 (needs 7.67 or later with nghttp2)")
        }
        done.enter()
        // The thread holds the loop until `run` returns, so the loop outlives every transfer.
        let thread = Thread { [self] in
            threadID.withLock { $0 = pthread_self() }
            run()
        }
        thread.name = name
        thread.start()
    }

    /// Queues a job; its completion is called exactly once, also when the loop stops.
    func submit(_ job: CurlJob) {
        pending.add(1, ordering: .relaxed)
        let accepted = shared.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.queue.append(job)
            // One wakeup per batch: the loop takes the whole queue at once, so only the job that
            // finds it empty needs to wake it.
            if state.queue.count == 1 { curl_multi_wakeup(multi) }
            return true
        }
        if !accepted { complete(job, cancelled) }
    }

    /// Jobs not yet completed.
    var load: Int { pending.load(ordering: .relaxed) }

    var counters: CurlCounters { shared.withLock { $0.counters } }

    /// Asks the lane to stop: queued and in-flight jobs complete as cancelled, connections close, the
    /// thread ends, handles are freed. Safe to call more than once and from any thread.
    func requestStop() {
        shared.withLock { state in
            if !state.stopping {
                state.stopping = true
                curl_multi_wakeup(multi)
            }
        }
    }

    /// Whether the calling thread is this lane's (a completion running).
    var isCurrentThread: Bool {
        guard let id = threadID.withLock({ $0 }) else { return false }
        return pthread_equal(id, pthread_self()) != 0
    }

    /// Waits until the lane's thread has freed everything (after `requestStop`); never from a completion.
    func waitStopped() { done.wait() }

    /// What a transfer that never ran, or was cut off by `stop`, ends with.
    private let cancelled: CurlCompletion

    // MARK: loop thread

    private func run() {
        var running: Int32 = 0
        while true {
            let stopping = shared.withLock { state -> Bool in
                swap(&state.queue, &intake)
                return state.stopping
            }
            if stopping {
                waiting.append(contentsOf: intake)
                intake.removeAll()
                cancelAll()
                break
            }
            waiting.append(contentsOf: intake)
            intake.removeAll(keepingCapacity: true)
            attachWaiting()
            rounds += 1
            // Everything curl writes in this round leaves together when uncorked (see CurlSockets).
            sockets.cork()
            if curl_multi_perform(multi, &running) != CURLM_OK { usleep(1000) }
            drainFinished()
            sockets.uncork()
            publishCounters()
            if curl_multi_poll(multi, nil, 0, 1000, nil) != CURLM_OK { usleep(1000) }
        }
        idle.removeAll()
        curl_multi_cleanup(multi)
        publishCounters()
        done.leave()
    }

    /// Gives curl the window's streams per connection when they changed (not from a callback).
    private func applyWindow() {
        guard window.curlStreams != curlStreams else { return }
        curlStreams = window.curlStreams
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, curlStreams)
    }

    /// A connection that stops answering without closing (a hung peer, or a path a NAT or firewall dropped
    /// without a reset) would otherwise keep every send on it, retries included, waiting out its timeout:
    /// libcurl keeps a multiplexed connection when one of its streams times out. So a transfer that timed
    /// out when nothing at all was answered on the lane for a whole request timeout shuts the lane's
    /// sockets down: the other streams on them fail at once as a lost connection (retried), and the next
    /// transfers open fresh connections. (A lane holds one connection per host: a whole connection.)
    private func noteAnswer(_ code: CURLcode) {
        let now = DispatchTime.now().uptimeNanoseconds
        if code == CURLE_OK {
            lastAnswer = now
        } else if code == CURLE_OPERATION_TIMEDOUT, now &- lastAnswer >= silenceLimit, !sockets.open.isEmpty {
            abandonedCount += sockets.shutDownAll()
            lastAnswer = now
        }
    }

    /// Moves waiting jobs into curl while the window has room.
    private func attachWaiting() {
        while active.count < window.size, let job = waiting.popFirst() { attach(job) }
    }

    private func attach(_ job: CurlJob) {
        let easy: CurlEasy
        if !job.needsNewHandle, let reused = idle.popLast() {
            easy = reused
        } else {
            do {
                easy = try CurlEasy(settings: settings, sockets: sockets)
            } catch {
                complete(job, failure(code: -2, text: error.message))
                return
            }
        }
        guard easy.prepare(url: job.url, headers: job.headers, body: job.body) else {
            idle.append(easy)
            complete(job, failure(code: Int(CURLE_OUT_OF_MEMORY.rawValue), text: "libcurl could not take the request"))
            return
        }
        easy.transfers &+= 1
        let added = curl_multi_add_handle(multi, easy.handle)
        guard added == CURLM_OK else {
            idle.append(easy)
            complete(job, failure(code: -3, text: String(cString: curl_multi_strerror(added))))
            return
        }
        active[easy.handle] = (easy, job)
    }

    private func drainFinished() {
        let connectionsChanged = window.noteSocketEvents(sockets.openedCount &+ sockets.closedCount)
        var finished: [(CurlJob, CurlCompletion)] = []
        var sentAgain = false
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard ccurl_msg_is_done(message) != 0, let handle = ccurl_msg_easy(message) else { continue }
            let code = ccurl_msg_result(message)
            guard let (easy, job) = active.removeValue(forKey: handle) else { continue }
            let completion = CurlCompletion(
                code: Int(code.rawValue), status: code == CURLE_OK ? easy.responseCode : 0,
                body: easy.responseBody, headers: easy.capturedHeaders,
                errorText: code == CURLE_OK ? "" : easy.errorText(code))
            curl_multi_remove_handle(multi, handle)
            if easy.curlGaveUpOnRetriesOfEarlierTransfers(code, completion.errorText) {
                // Retries of earlier transfers may be in the count: the handle is freed here, and the job
                // goes first, on a handle made for it.
                var again = job
                again.needsNewHandle = true
                waiting.prepend(again)
                sentAgainCount += 1
                sentAgain = true
                continue
            }
            if idle.count < window.full { idle.append(easy) }
            noteAnswer(code)
            window.note(completion, connectionsChanged: connectionsChanged)
            completedCount += 1
            finished.append((job, completion))
        }
        applyWindow()
        // A job sent again is attached now, not after the next poll (up to a second when all is quiet).
        guard !finished.isEmpty || sentAgain else { return }
        // Refill the window before running completions, and publish counters first, so whoever a
        // completion wakes sees them settled.
        attachWaiting()
        publishCounters()
        for (job, completion) in finished { complete(job, completion) }
    }

    private func cancelAll() {
        for (handle, entry) in active {
            curl_multi_remove_handle(multi, handle)
            complete(entry.job, cancelled)
        }
        active.removeAll()
        for job in waiting { complete(job, cancelled) }
        waiting.removeAll()
        // Jobs queued after the last take: `stopping` is set, so no more can arrive.
        let late = shared.withLock { state -> [CurlJob] in
            defer { state.queue.removeAll() }
            return state.queue
        }
        for job in late { complete(job, cancelled) }
    }

    private func publishCounters() {
        let counters = CurlCounters(
            easyHandles: active.count + idle.count, inFlight: active.count,
            queued: waiting.count, completed: completedCount, rounds: rounds, connections: sockets.open.count,
            abandonedConnections: abandonedCount, sentAgain: sentAgainCount)
        shared.withLock { state in
            state.counters = counters
            state.counters.queued += state.queue.count
        }
    }

    private func complete(_ job: CurlJob, _ completion: CurlCompletion) {
        pending.subtract(1, ordering: .relaxed)
        job.completion(completion)
    }

    private func failure(code: Int, text: String) -> CurlCompletion {
        CurlCompletion(code: code, status: 0, body: [], errorText: text)
    }
}
