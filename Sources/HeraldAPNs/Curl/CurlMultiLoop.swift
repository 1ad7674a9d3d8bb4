import CCurl
import Foundation
import Synchronization

/// Drives one curl multi handle on a dedicated thread: jobs are queued under a lock, the thread
/// is woken with `curl_multi_wakeup`, adds them, and waits in `curl_multi_poll`.
///
/// `@unchecked Sendable`: the multi handle, the easy handles and `active`/`idle` are touched only
/// by the loop thread; everything other threads touch (`shared`) is behind a Mutex.
final class CurlMultiLoop: @unchecked Sendable {
    private struct Shared {
        var queue: [CurlJob] = []
        var stopping = false
        var stopped = false
        var counters = APNsClientCounters(easyHandles: 0, inFlight: 0, queued: 0, completed: 0)
    }

    private let multi: UnsafeMutableRawPointer
    private let settings: CurlSettings
    private let shared = Mutex(Shared())
    private let finished = DispatchSemaphore(value: 0)

    // Loop thread only.
    private var active: [UnsafeMutableRawPointer: (easy: CurlEasy, job: CurlJob)] = [:]
    private var idle: [CurlEasy] = []
    private var completedCount = 0

    init(settings: CurlSettings, connections: Int, streamsPerConnection: Int) throws(APNsConfigurationError) {
        CurlGlobal.initialize()
        guard let multi = curl_multi_init() else { throw APNsConfigurationError("curl_multi_init failed") }
        self.multi = multi
        self.settings = settings
        var ok = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, ccurl_pipe_multiplex()) == CURLM_OK
        ok = ok && ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections) == CURLM_OK
        ok = ok && ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, connections) == CURLM_OK
        ok = ok && ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, connections) == CURLM_OK
        // curl's default is 100 streams per connection; APNs allows 1000.
        // (Cleartext h2c carries one stream per connection: see CurlEasy for the curl 7.88 bug.)
        let streams = settings.cleartext ? 1 : streamsPerConnection
        ok = ok && ccurl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, streams) == CURLM_OK
        guard ok else {
            curl_multi_cleanup(multi)
            throw APNsConfigurationError("libcurl \(CurlGlobal.version) cannot multiplex HTTP/2 (needs 7.67 or later with nghttp2)")
        }
        let thread = Thread { [self] in run() }
        thread.name = "herald-apns-curl"
        thread.start()
    }

    /// Queues a job; its completion is called exactly once, also when the loop stops.
    func submit(_ job: CurlJob) {
        let accepted = shared.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.queue.append(job)
            return true
        }
        if accepted {
            curl_multi_wakeup(multi)
        } else {
            job.completion(Self.cancelled)
        }
    }

    /// Queues many jobs with one lock and one wakeup.
    func submit(contentsOf jobs: [CurlJob]) {
        let accepted = shared.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.queue.append(contentsOf: jobs)
            return true
        }
        if accepted {
            curl_multi_wakeup(multi)
        } else {
            for job in jobs { job.completion(Self.cancelled) }
        }
    }

    var counters: APNsClientCounters { shared.withLock { $0.counters } }

    /// Stops the loop: queued and in-flight jobs complete as cancelled, connections close, the
    /// thread ends, handles are freed. Safe to call more than once.
    func stop() {
        let first = shared.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else {
            waitStopped()
            return
        }
        curl_multi_wakeup(multi)
        finished.wait()
        shared.withLock { $0.stopped = true }
        curl_multi_cleanup(multi)
    }

    private func waitStopped() {
        while !shared.withLock({ $0.stopped }) { usleep(1000) }
    }

    deinit { stop() }

    static let cancelled = CurlCompletion(
        code: -1, status: 0, body: [], apnsID: nil, apnsUniqueID: nil, errorText: "the APNs client was shut down")

    // MARK: loop thread

    private func run() {
        var running: Int32 = 0
        while true {
            let (jobs, stopping) = shared.withLock { state -> ([CurlJob], Bool) in
                let jobs = state.queue
                state.queue.removeAll(keepingCapacity: true)
                return (jobs, state.stopping)
            }
            if stopping {
                for job in jobs { job.completion(Self.cancelled) }
                cancelActive()
                break
            }
            for job in jobs { start(job) }
            curl_multi_perform(multi, &running)
            drainFinished()
            publishCounters()
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        idle.removeAll()
        publishCounters()
        finished.signal()
    }

    private func start(_ job: CurlJob) {
        let easy: CurlEasy
        if let reused = idle.popLast() {
            easy = reused
        } else {
            do {
                easy = try CurlEasy(settings: settings)
            } catch {
                job.completion(failure(code: -2, text: error.message))
                return
            }
        }
        guard easy.prepare(url: job.url, headers: job.headers, payload: job.payload) else {
            idle.append(easy)
            job.completion(failure(code: Int(CURLE_OUT_OF_MEMORY.rawValue), text: "libcurl could not take the request"))
            return
        }
        let added = curl_multi_add_handle(multi, easy.handle)
        guard added == CURLM_OK else {
            idle.append(easy)
            job.completion(failure(code: -3, text: String(cString: curl_multi_strerror(added))))
            return
        }
        active[easy.handle] = (easy, job)
    }

    private func drainFinished() {
        var finished: [(CurlJob, CurlCompletion)] = []
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard ccurl_msg_is_done(message) != 0, let handle = ccurl_msg_easy(message) else { continue }
            let code = ccurl_msg_result(message)
            guard let (easy, job) = active.removeValue(forKey: handle) else { continue }
            let completion = CurlCompletion(
                code: Int(code.rawValue), status: code == CURLE_OK ? easy.responseCode : 0,
                body: easy.responseBody, apnsID: easy.apnsID, apnsUniqueID: easy.apnsUniqueID,
                errorText: code == CURLE_OK ? "" : easy.errorText(code))
            curl_multi_remove_handle(multi, handle)
            idle.append(easy)
            completedCount += 1
            finished.append((job, completion))
        }
        guard !finished.isEmpty else { return }
        // Counters first, so whoever a completion wakes sees them settled.
        publishCounters()
        for (job, completion) in finished { job.completion(completion) }
    }

    private func cancelActive() {
        for (handle, entry) in active {
            curl_multi_remove_handle(multi, handle)
            entry.job.completion(Self.cancelled)
        }
        active.removeAll()
    }

    private func publishCounters() {
        let counters = APNsClientCounters(
            easyHandles: active.count + idle.count, inFlight: active.count, queued: 0, completed: completedCount)
        shared.withLock { state in
            state.counters = counters
            state.counters.queued = state.queue.count
        }
    }

    private func failure(code: Int, text: String) -> CurlCompletion {
        CurlCompletion(code: code, status: 0, body: [], apnsID: nil, apnsUniqueID: nil, errorText: text)
    }
}

/// libcurl's process-wide setup, done once before the first handle.
enum CurlGlobal {
    private static let once: Void = { _ = curl_global_init(ccurl_global_all()) }()
    static func initialize() { _ = once }
    static var version: String { String(cString: curl_version()) }
}
