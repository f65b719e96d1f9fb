import Foundation

/// Batches handed from one thread (the one that reads an extract) to another (the one that writes SQLite), in
/// order, at most `capacity` of them waiting, then how the reading ended. Either side can end it: the reader
/// with ``finish(_:)`` (its result, or the error that stopped it), the writer with ``cancel()`` when it fails,
/// after which the reader's next ``put(_:)`` throws instead of waiting for room.
final class BatchHandoff<Item: Sendable, Ending: Sendable>: @unchecked Sendable {
    // Every stored property is read and written with `condition` locked.
    private let condition = NSCondition()
    private var waiting: [[Item]] = []
    private var ending: Result<Ending, any Error>?
    private var cancelled = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Runs `read` on a thread of its own, handing batches over through a new handoff of `capacity`, and `takeBatch`
    /// on the calling thread for each batch in turn; returns how the reading ended, or throws its error. However this
    /// ends, the reading thread stops (its next hand-over throws) and is waited for before this returns.
    static func consume(capacity: Int, readingOnAThreadOfItsOwn read: @escaping @Sendable (BatchHandoff) -> Void,
                        takeBatch: ([Item]) throws -> Void) throws -> Ending {
        let handoff = BatchHandoff(capacity: capacity)
        let readingEnded = DispatchSemaphore(value: 0)
        Thread {
            read(handoff)
            readingEnded.signal()
        }.start()
        defer {
            handoff.cancel()
            readingEnded.wait()
        }
        while true {
            switch try handoff.next() {
            case .batch(let batch): try takeBatch(batch)
            case .ended(let ending): return ending
            }
        }
    }

    /// Thrown by ``put(_:)`` once the writer has cancelled.
    struct Cancelled: Error {}

    /// Adds a batch; waits while `capacity` batches wait.
    func put(_ batch: [Item]) throws(Cancelled) {
        condition.lock()
        defer { condition.unlock() }
        while waiting.count >= capacity, !cancelled { condition.wait() }
        guard !cancelled else { throw Cancelled() }
        waiting.append(batch)
        condition.broadcast()
    }

    /// Ends the batches: the reader's result, or the error that stopped it.
    func finish(_ result: Result<Ending, any Error>) {
        condition.lock()
        defer { condition.unlock() }
        ending = result
        condition.broadcast()
    }

    /// Makes the reader's next ``put(_:)`` throw ``Cancelled``.
    func cancel() {
        condition.lock()
        defer { condition.unlock() }
        cancelled = true
        condition.broadcast()
    }

    enum Next {
        case batch([Item])
        case ended(Ending)
    }

    /// The next batch, or the reader's result once every batch is taken; throws the reader's error then.
    func next() throws -> Next {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty, ending == nil { condition.wait() }
        if !waiting.isEmpty {
            condition.broadcast()
            return .batch(waiting.removeFirst())
        }
        return .ended(try ending!.get())
    }
}
