@testable import BudgetLedger
import Foundation
import Synchronization
import Testing

/// Group commit's bookkeeping without a database: who is in a batch, and how results map back to callers.
@Suite("Group commit")
struct GroupCommitTests {
    @Test("a request arriving at an idle queue is committed at once, alone")
    func idleArrivalLeads() {
        var queue = GroupCommitQueue<String>(maximumBatch: 10)
        #expect(queue.arrive("a") == ["a"])
        #expect(queue.committing)
        #expect(queue.batchFinished() == nil)
        #expect(!queue.committing)
    }

    @Test("requests arriving during a commit wait, then leave together in arrival order")
    func arrivalsDuringACommitFormTheNextBatch() {
        var queue = GroupCommitQueue<Int>(maximumBatch: 10)
        #expect(queue.arrive(1) == [1])
        #expect(queue.arrive(2) == nil)
        #expect(queue.arrive(3) == nil)
        #expect(queue.arrive(4) == nil)
        #expect(queue.batchFinished() == [2, 3, 4])
        #expect(queue.arrive(5) == nil)  // [2, 3, 4] is in flight now
        #expect(queue.batchFinished() == [5])
        #expect(queue.batchFinished() == nil)
        #expect(queue.arrive(6) == [6])
    }

    @Test("a batch takes at most the maximum, oldest first; the rest form the following batches")
    func batchesAreBounded() {
        var queue = GroupCommitQueue<Int>(maximumBatch: 3)
        #expect(queue.arrive(0) == [0])
        for n in 1...7 { #expect(queue.arrive(n) == nil) }
        #expect(queue.batchFinished() == [1, 2, 3])
        #expect(queue.batchFinished() == [4, 5, 6])
        #expect(queue.batchFinished() == [7])
        #expect(queue.batchFinished() == nil)
    }

    @Test("each request gets the result in its own position; a failed batch fails every request in it")
    func answersMapBackByPosition() throws {
        let mapped = GroupCommitQueue<String>.answers(for: ["a", "b", "c"], from: .success([1, 2, 3]))
        #expect(mapped.map(\.0) == ["a", "b", "c"])
        #expect(try mapped.map { try $0.1.get() } == [1, 2, 3])

        struct Down: Error {}
        let failed = GroupCommitQueue<String>.answers(for: ["a", "b"], from: Result<[Int], any Error>.failure(Down()))
        #expect(failed.count == 2)
        #expect(failed.allSatisfy { if case .failure(let error) = $0.1 { error is Down } else { false } })
    }

    @Test("a store answering with fewer results than requests fails the batch instead of misattributing one")
    func aShortAnswerFailsTheBatch() {
        let mapped = GroupCommitQueue<String>.answers(for: ["a", "b", "c"], from: .success([1, 2]))
        #expect(mapped.allSatisfy { if case .failure(let error) = $0.1 { error is GroupCommitMismatch } else { false } })
    }

    @Test("callers that arrive while a batch commits share the next commit and each get their own answer")
    func committerCoalescesConcurrentCallers() async throws {
        let (firstStarted, started) = AsyncStream.makeStream(of: Void.self)
        let (releaseFirst, release) = AsyncStream.makeStream(of: Void.self)
        let batches = Mutex<[[Int]]>([])
        let committer = GroupCommitter<Int, String>(maximumBatch: 100) { requests in
            let isFirst = batches.withLock { $0.append(requests); return $0.count == 1 }
            if isFirst {
                started.yield()
                for await _ in releaseFirst { break }
            }
            return requests.map { "answer \($0)" }
        }
        async let first = committer.submit(0)
        for await _ in firstStarted { break }
        // Ten more callers, one after another, while the first batch holds its commit open.
        let others = Task {
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for n in 1...10 {
                    group.addTask { (n, try await committer.submit(n)) }
                    try await waitUntil { committer.waitingCount == n }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
        }
        // The first batch is released whatever happens: a wait that runs out must fail this test, not leave the
        // first batch held and this test (which awaits `first` on its way out) hanging the whole run.
        var waitFailure: (any Error)?
        do { try await waitUntil { committer.waitingCount == 10 } } catch { waitFailure = error }
        release.yield()
        if let waitFailure { throw waitFailure }
        #expect(try await first == "answer 0")
        let answers = try await others.value
        #expect(answers == Dictionary(uniqueKeysWithValues: (1...10).map { ($0, "answer \($0)") }))
        #expect(batches.withLock { $0 } == [[0], Array(1...10)])
    }

    @Test("a commit that fails gives its error to every caller in the batch, and the next batch still runs")
    func aFailedCommitFailsItsCallersOnly() async throws {
        struct Refused: Error {}
        let calls = Mutex(0)
        let committer = GroupCommitter<Int, Int>(maximumBatch: 100) { requests in
            let call = calls.withLock { $0 += 1; return $0 }
            if call == 1 { throw Refused() }
            return requests
        }
        await #expect(throws: Refused.self) { try await committer.submit(1) }
        #expect(try await committer.submit(2) == 2)
    }
}

/// Waits until `condition` holds, yielding meanwhile. The bound only ends a failure: it is long because in a full
/// run other suites' blocking work can hold the cooperative pool's few threads, so callers arrive late (10 s ran
/// out on a quiet 2-core machine).
private func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(300)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut() }
        try await Task.sleep(for: .milliseconds(1))
    }
}

private struct WaitTimedOut: Error {}
