import Foundation
import HeraldCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A child process started with `posix_spawn`, its output read by plain blocking `read`s on two threads
/// of its own and its exit collected by a third's `waitpid`.
///
/// Why not Foundation's `Process`: on Linux it watches its pipes and the child through dispatch sources,
/// and a test process that opens and closes thousands of sockets met two crashes in that machinery
/// (an over-read of a reused file descriptor, and libdispatch's event loop touching a stale
/// registration). Nothing here registers a file descriptor with anything: each pipe belongs to one
/// thread until end of file, then it is closed.
public final class ChildProcess: Sendable {
    /// How the child ended, as Foundation's `Process.TerminationReason` says it.
    public enum TerminationReason: Sendable, Equatable { case exit, uncaughtSignal }

    public let processIdentifier: pid_t
    /// 1 with `mergeOutput`, else 2.
    private let pipeCount: Int
    private let state = Locked(State())
    private let finished = DispatchSemaphore(value: 0)

    struct State {
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        /// Pipes read to their end.
        var closedPipes = 0
        /// The `waitpid` status once the child has exited.
        var status: Int32?
    }

    /// Starts `executable` with `arguments`, in `directory`, with exactly `environment`; standard input
    /// is /dev/null. With `mergeOutput` the child's standard error goes to the same pipe as its output.
    public init(
        _ executable: String, _ arguments: [String], directory: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment, mergeOutput: Bool = false
    ) throws {
        // Pipes are made and marked close-on-exec under one lock with the spawn, so that no other child
        // started meanwhile inherits a write end and holds our end of file back (`pipe2` is not in the
        // Swift Glibc module).
        Self.spawning.lock()
        defer { Self.spawning.unlock() }
        let out = try Self.pipe()
        let err = mergeOutput ? out : try Self.pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // dup2 onto 1 and 2 clears close-on-exec there; every other descriptor of ours has it set.
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, mergeOutput ? out[1] : err[1], 2)
        if let directory {
            guard let addChdir = Self.addChdir else { throw HeraldProcess.Failure("this libc cannot spawn in a directory") }
            _ = addChdir(&actions, directory)
        }
        // Nothing else of the test process reaches the child: a socket a test holds open must close when
        // the test closes it, not live on in a server that a concurrent test started (sockets made by
        // plain `socket()` are inherited). glibc 2.34 and later; older ones leave them (as before).
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var spawnedPid: pid_t = 0
        let spawned = posix_spawn(&spawnedPid, executable, &actions, nil, argv, envp)
        let pid = spawnedPid
        close(out[1])
        if !mergeOutput { close(err[1]) }
        guard spawned == 0 else {
            close(out[0])
            if !mergeOutput { close(err[0]) }
            throw HeraldProcess.Failure("could not start \(executable): \(String(cString: strerror(spawned)))")
        }
        processIdentifier = pid
        pipeCount = mergeOutput ? 1 : 2

        let state = self.state
        let finished = self.finished
        let pipes = mergeOutput ? [(out[0], true)] : [(out[0], true), (err[0], false)]
        for (descriptor, isOutput) in pipes {
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    if count <= 0 { break }
                    state.withLock {
                        isOutput ? $0.stdout.append(contentsOf: buffer[..<count]) : $0.stderr.append(contentsOf: buffer[..<count])
                    }
                }
                close(descriptor)
                state.withLock { $0.closedPipes += 1 }
            }
        }
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            state.withLock { $0.status = status }
            finished.signal()
        }
    }

    private static let spawning = NSLock()

    private typealias Actions = UnsafeMutablePointer<posix_spawn_file_actions_t>

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later) and `…_addclosefrom_np` (2.34 and
    /// later), looked up at run time because the Swift Glibc module does not declare them.
    private static let addChdir = libc(
        "posix_spawn_file_actions_addchdir_np", as: (@convention(c) (Actions, UnsafePointer<CChar>) -> Int32).self)
    private static let addCloseFrom = libc("posix_spawn_file_actions_addclosefrom_np", as: (@convention(c) (Actions, Int32) -> Int32).self)

    private static func libc<Function>(_ name: String, as type: Function.Type) -> Function? {
        dlsym(dlopen(nil, RTLD_NOW), name).map { unsafeBitCast($0, to: type) }
    }

    /// A pipe whose both ends are closed on exec.
    private static func pipe() throws -> [Int32] {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw HeraldProcess.Failure("pipe: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return ends
    }

    public var isRunning: Bool { state.withLock { $0.status == nil } }

    /// The exit code, or the signal's number if a signal ended it (as Foundation's `Process` answers).
    public var terminationStatus: Int32 {
        guard let status = state.withLock({ $0.status }) else { return 0 }
        return Self.exited(status) ? (status >> 8) & 0xff : status & 0x7f
    }

    public var terminationReason: TerminationReason {
        guard let status = state.withLock({ $0.status }) else { return .exit }
        return Self.exited(status) ? .exit : .uncaughtSignal
    }

    private static func exited(_ status: Int32) -> Bool { status & 0x7f == 0 }

    /// What the child printed so far.
    public var stdout: String { state.withLock { String(decoding: $0.stdout, as: UTF8.self) } }
    public var stderr: String { state.withLock { String(decoding: $0.stderr, as: UTF8.self) } }

    /// Both pipes read to their end: the child and anything it left running have closed them.
    public var outputClosed: Bool { state.withLock { $0.closedPipes } == pipeCount }

    /// SIGTERM, as `Process.terminate()`.
    public func terminate() { if isRunning { kill(processIdentifier, SIGTERM) } }

    public func kill9() { if isRunning { kill(processIdentifier, SIGKILL) } }

    /// Blocks the calling thread until the child exits; for short tools run from synchronous code.
    public func waitUntilExit() {
        finished.wait()
        finished.signal()
    }

    /// Runs a tool to completion, blocking the calling thread, and returns its exit code and output
    /// (standard error merged into it with `mergeOutput`).
    public static func run(
        _ executable: String, _ arguments: [String], directory: String? = nil, mergeOutput: Bool = false
    ) throws -> (code: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(executable, arguments, directory: directory, mergeOutput: mergeOutput)
        child.waitUntilExit()
        // The output is read to its end a moment after the exit (unless a grandchild holds the pipe).
        let deadline = Date().addingTimeInterval(5)
        while !child.outputClosed, Date() < deadline { usleep(2_000) }
        return (child.terminationStatus, child.stdout, child.stderr)
    }

    deinit { kill9() }
}
