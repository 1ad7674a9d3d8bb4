import Foundation
import Synchronization

/// A long command's progress on standard output, as an operator wants it wherever it goes.
///
/// On a terminal, one line rewritten in place (carriage return, the line, clear to its end) at most every
/// `interval`, and each item's last line kept when it finishes. Elsewhere (a pipe, a log file, a container's
/// log) no rewriting: an item writes its finished line once, and milestones (`update(_:fraction:)`, a line
/// per tenth) only when the caller gives a fraction, so a log is not filled with percentages.
///
/// Sendable: a migration reports from the task that migrates, a command from its own; the state is behind
/// a lock and every write is one call.
public final class TerminalProgress: Sendable {
    /// Whether lines are rewritten in place.
    public let terminal: Bool
    private let interval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let write: @Sendable (String) -> Void
    private let state = Mutex(State())

    private struct State {
        /// A line is shown on the terminal without its newline.
        var open = false
        var shown = ""
        var shownAt: ContinuousClock.Instant?
        /// The last tenth of the item written to a log (-1: none yet).
        var tenth = -1
    }

    /// `write` receives every piece of output; `now` times the rewrites (tests pass their own of both).
    public init(
        terminal: Bool, interval: Duration = .milliseconds(100),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
        write: @escaping @Sendable (String) -> Void
    ) {
        self.terminal = terminal
        self.interval = interval
        self.now = now
        self.write = write
    }

    /// Progress on this process's standard output, rewritten in place when it is a terminal.
    public static func standardOutput() -> TerminalProgress {
        TerminalProgress(terminal: isatty(STDOUT_FILENO) == 1) { FileHandle.standardOutput.write(Data($0.utf8)) }
    }

    /// Progress on standard error, for a command whose standard output is its result (a script reading
    /// that output, even with `| head -1`, then never sees a progress line).
    public static func standardError() -> TerminalProgress {
        TerminalProgress(terminal: isatty(STDERR_FILENO) == 1) { FileHandle.standardError.write(Data($0.utf8)) }
    }

    /// The current item's progress. On a terminal the line is rewritten (unless it was less than `interval`
    /// ago, or the line is the same); in a log, written as a line of its own only when `fraction` (0...1)
    /// reaches a tenth not written yet for this item, short of the whole.
    public func update(_ line: String, fraction: Double? = nil) {
        let output: String? = state.withLock { state in
            if terminal {
                let instant = now()
                if line == state.shown || state.shownAt.map({ instant - $0 < interval }) == true { return nil }
                (state.open, state.shown, state.shownAt) = (true, line, instant)
                return "\r\(line)\u{1B}[K"
            }
            guard let fraction, fraction < 1 else { return nil }
            // A hair over, so that 0.7 of the way (0.69999…) counts as the seventh tenth.
            let tenth = Int((max(0, fraction) * 10 + 1e-9).rounded(.down))
            guard tenth > state.tenth, tenth > 0 else { return nil }
            state.tenth = tenth
            return "\(line)\n"
        }
        if let output { write(output) }
    }

    /// The current item is done: its line is kept, written over the progress on a terminal; the next
    /// `update` starts a new item.
    public func finish(_ line: String) {
        let output = state.withLock { state in
            state = State()
            return terminal ? "\r\(line)\u{1B}[K\n" : "\(line)\n"
        }
        write(output)
    }

    /// Ends a line left open on a terminal, so that what is printed next (a failure) starts on a line of its own.
    public func abandon() {
        let open = state.withLock { state in
            defer { state = State() }
            return state.open
        }
        if open { write("\n") }
    }
}
