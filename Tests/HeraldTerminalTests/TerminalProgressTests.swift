import HeraldTerminal
import Synchronization
import Testing

/// What a command's progress writes, on a terminal and in a log, read from its output as a plain string.
@Suite struct TerminalProgressTests {
    /// The output, and a clock that moves only when told.
    final class Recorder: Sendable {
        let written = Mutex("")
        let offset = Mutex(Duration.zero)
        let origin = ContinuousClock.now

        func progress(terminal: Bool) -> TerminalProgress {
            TerminalProgress(
                terminal: terminal, interval: .milliseconds(100), now: { [self] in origin + offset.withLock { $0 } },
                write: { [self] text in written.withLock { $0 += text } })
        }

        func advance(_ duration: Duration) { offset.withLock { $0 += duration } }

        /// What was written since the last call.
        func take() -> String {
            written.withLock { text in
                defer { text = "" }
                return text
            }
        }
    }

    @Test func aTerminalRewritesOneLineInPlaceAndKeepsTheFinishedOne() {
        let recorder = Recorder()
        let progress = recorder.progress(terminal: true)
        progress.update("0013_message_contents …")
        #expect(recorder.take() == "\r0013_message_contents …\u{1B}[K")
        // Within the interval: not redrawn, however many batches report.
        recorder.advance(.milliseconds(50))
        progress.update("0013_message_contents … 1,000 of 3,000 rows (33%)")
        #expect(recorder.take() == "")
        recorder.advance(.milliseconds(60))
        progress.update("0013_message_contents … 2,000 of 3,000 rows (66%)")
        #expect(recorder.take() == "\r0013_message_contents … 2,000 of 3,000 rows (66%)\u{1B}[K")
        progress.finish("0013_message_contents … 3,000 of 3,000 rows, 0.2 s")
        #expect(recorder.take() == "\r0013_message_contents … 3,000 of 3,000 rows, 0.2 s\u{1B}[K\n")
        // The next item is drawn at once, though the interval has not passed.
        progress.update("0014_drop_apns_columns …")
        #expect(recorder.take() == "\r0014_drop_apns_columns …\u{1B}[K")
        progress.abandon()
        #expect(recorder.take() == "\n", "an open line is ended before a failure is printed")
        progress.abandon()
        #expect(recorder.take() == "")
    }

    @Test func aLogGetsOneLineAnItemAndNoCarriageReturn() {
        let recorder = Recorder()
        let progress = recorder.progress(terminal: false)
        progress.update("0013_message_contents …")
        recorder.advance(.seconds(1))
        progress.update("0013_message_contents … 1,000 of 3,000 rows (33%)")
        #expect(recorder.take() == "", "no progress without a fraction: one line per item")
        progress.finish("0013_message_contents … 3,000 of 3,000 rows, 0.2 s")
        progress.finish("0014_drop_apns_columns … 0.0 s")
        #expect(recorder.take() == "0013_message_contents … 3,000 of 3,000 rows, 0.2 s\n0014_drop_apns_columns … 0.0 s\n")
        progress.abandon()
        #expect(recorder.take() == "")
    }

    @Test func aLogGetsALineEachTenthWhenGivenAFraction() {
        let recorder = Recorder()
        let progress = recorder.progress(terminal: false)
        for done in stride(from: 0, through: 1000, by: 25) {
            progress.update("devices: \(done)", fraction: Double(done) / 1000)
        }
        progress.finish("devices: 1000, done")
        let lines = recorder.take().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            lines == [
                "devices: 100", "devices: 200", "devices: 300", "devices: 400", "devices: 500", "devices: 600",
                "devices: 700", "devices: 800", "devices: 900", "devices: 1000, done", "",
            ])
        // Batches that jump past several tenths write one line, not one per tenth passed.
        progress.update("devices: 350", fraction: 0.35)
        progress.update("devices: 990", fraction: 0.99)
        #expect(recorder.take() == "devices: 350\ndevices: 990\n")
    }

    @Test func aTerminalIgnoresFractionsAndRedrawsOnlyAChangedLine() {
        let recorder = Recorder()
        let progress = recorder.progress(terminal: true)
        progress.update("devices: 100", fraction: 0.1)
        recorder.advance(.seconds(1))
        progress.update("devices: 100", fraction: 0.1)
        #expect(recorder.take() == "\rdevices: 100\u{1B}[K")
    }
}
