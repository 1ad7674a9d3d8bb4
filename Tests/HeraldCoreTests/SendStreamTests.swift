import Dispatch
import HeraldCore
import Testing

/// `SendStream` with a send that answers on other threads, in bursts and out of order, as a curl lane does.
@Suite struct SendStreamTests {
    /// Answers each request (its index doubled) after a short random delay on a concurrent queue, and
    /// counts how many were sent and not yet read at once.
    final class Sender: Sendable {
        let queue = DispatchQueue(label: "send-stream-tests", attributes: .concurrent)
        let unread = Locked((now: 0, most: 0))

        func send(_ request: Int, _ completion: @escaping @Sendable (Int) -> Void) {
            unread.withLock { unread in
                unread.now += 1
                unread.most = max(unread.most, unread.now)
            }
            queue.asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...300))) { completion(request * 2) }
        }

        func read() { unread.withLock { $0.now -= 1 } }
    }

    @Test func everyOutcomeIsReadOnceAndTheWindowHolds() async {
        let sender = Sender()
        let stream = SendStream<Int, Int, Int>(maxInFlight: 16) { sender.send($0, $1) }
        let count = 5_000
        let seen = await withTaskGroup(of: [Int: Int].self) { group in
            group.addTask {
                var seen: [Int: Int] = [:]
                for await delivery in stream.results {
                    sender.read()
                    #expect(delivery.outcome == delivery.request * 2 && delivery.tag == delivery.request)
                    seen[delivery.tag, default: 0] += 1
                }
                return seen
            }
            for index in 0..<count { await stream.submit(index, tag: index) }
            stream.finish()
            return await group.next()!
        }
        #expect(seen.count == count && seen.values.allSatisfy { $0 == 1 }, "each outcome exactly once")
        // The reader counts an outcome read just after `next` returned it, and by then its slot may be taken
        // again: one more than the window, never two.
        #expect(sender.unread.withLock { $0.most } <= 16 + 1, "never more than the window sent and unread")
    }

    @Test func aStreamFinishedWithNothingSubmittedEnds() async {
        let stream = SendStream<Int, Int, Int>(maxInFlight: 4) { request, completion in completion(request) }
        stream.finish()
        var count = 0
        for await _ in stream.results { count += 1 }
        #expect(count == 0)
    }

    /// The reader's task is cancelled while the window is full: the limit lifts, so the submitter finishes
    /// instead of waiting for slots nobody will free, and the reader's loop ends.
    @Test func aCancelledReaderDoesNotStrandTheSubmitter() async {
        let sender = Sender()
        let stream = SendStream<Int, Int, Int>(maxInFlight: 4) { request, completion in
            // Answers only the first 4: the window then stays full unless the reader frees it.
            if request < 4 { sender.send(request, completion) }
        }
        let reader = Task {
            var read = 0
            for await _ in stream.results { read += 1 }
            return read
        }
        let submitter = Task {
            for index in 0..<100 { await stream.submit(index, tag: index) }
        }
        try? await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        await submitter.value
        #expect(await reader.value <= 4)
    }
}
