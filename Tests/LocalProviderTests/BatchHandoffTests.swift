import Foundation
@testable import LocalProvider
import Testing

@Suite struct BatchHandoffTests {
    struct ReadFailed: Error {}

    /// Batches come out in the order they went in, then the reader's result; its error instead, once every
    /// batch before it is taken.
    @Test func batchesInOrderThenTheEnding() throws {
        let handoff = BatchHandoff<Int, String>(capacity: 2)
        let reader = Thread {
            for i in 0..<5 { try? handoff.put([i, i]) }
            handoff.finish(.success("read"))
        }
        reader.start()
        var taken: [[Int]] = []
        var ending: String?
        while ending == nil {
            switch try handoff.next() {
            case .batch(let batch): taken.append(batch)
            case .ended(let value): ending = value
            }
        }
        #expect(taken == (0..<5).map { [$0, $0] })
        #expect(ending == "read")

        let failing = BatchHandoff<Int, String>(capacity: 2)
        try failing.put([1])
        failing.finish(.failure(ReadFailed()))
        guard case .batch([1]) = try failing.next() else { Issue.record("the batch before the error"); return }
        #expect(throws: ReadFailed.self) { try failing.next() }
    }

    /// A reader waiting for room (the writer failed and stopped taking batches) is let go by `cancel()`: its
    /// `put` throws instead of waiting.
    @Test func cancelLetsAWaitingReaderGo() throws {
        let handoff = BatchHandoff<Int, Void>(capacity: 1)
        try handoff.put([1])
        let done = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        Thread {
            do { try handoff.put([2]) } catch { outcome.cancelled = error is BatchHandoff<Int, Void>.Cancelled }
            done.signal()
        }.start()
        handoff.cancel()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(outcome.cancelled)
        #expect(throws: BatchHandoff<Int, Void>.Cancelled.self) { try handoff.put([3]) }
    }

    /// What the reading thread saw, read after it signalled.
    final class OutcomeBox: @unchecked Sendable {
        var cancelled = false
    }
}
