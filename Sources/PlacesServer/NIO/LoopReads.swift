import NIOCore
import RESP
import Synchronization

/// The calls one event loop answers itself (``BackendCall/Work/now(_:)``: reads of this machine's index), shared
/// by every connection of that loop and touched only on it, so it needs no lock.
///
/// A call is not answered the moment its request is read but once the loop has handled every socket that was
/// ready with it: identical requests read in the same turn of the loop (the same `DETAILS` from fifty clients)
/// then share one answer, as identical requests in flight share one task's answer in ``ReplyMemo``. Reading the
/// index on the event loop holds up that loop's other connections for as long as the read takes; the reads sent
/// here are those the index answers in a bounded time (a place by id, a local search).
final class LoopReads {
    /// Identical requests waiting for the answer already scheduled, by request.
    private var waiting: [ReplyMemo.Key: [(RESPValue) -> Void]] = [:]
    private let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    /// Whether no answer is waiting to be computed: then a received request need not be looked up by its bytes.
    var isIdle: Bool { waiting.isEmpty }

    /// Whether an answer for a request identical to `key`'s is waiting to be computed.
    func isScheduled(_ key: ReplyMemo.Key) -> Bool { waiting[key] != nil }

    /// Hands `reply` the answer already scheduled for a request identical to `key`'s; `false` when none is.
    func join(_ key: ReplyMemo.Key, then reply: @escaping (RESPValue) -> Void) -> Bool {
        waiting[key]?.append(reply) != nil
    }

    /// Answers `compute` after the loop has read what is ready now, and hands the reply to `reply` on the loop.
    /// - Parameter key: the request as memo key: identical requests read before the answer is computed share it;
    ///   `nil` (a call that must not be shared) computes on its own.
    func answer(_ key: ReplyMemo.Key?, computing compute: @escaping () -> RESPValue, then reply: @escaping (RESPValue) -> Void) {
        let loop = self.loop.assumeIsolated()
        guard let key else {
            loop.execute { reply(compute()) }
            return
        }
        if join(key, then: reply) { return }
        waiting[key] = [reply]
        loop.execute { [self] in
            let value = compute()
            // Removed before anyone is answered: a request an answer lets through starts a new computation.
            for waiter in waiting.removeValue(forKey: key) ?? [] { waiter(value) }
        }
    }
}

/// One ``LoopReads`` per event loop of a server's group, handed to each connection as it starts on its loop.
final class LoopReadsByLoop: Sendable {
    private let byLoop = Mutex<[ObjectIdentifier: NIOLoopBound<LoopReads>]>([:])

    /// The reads of `loop`, which the caller runs on.
    func reads(on loop: any EventLoop) -> LoopReads {
        let bound = byLoop.withLock { byLoop in
            if let bound = byLoop[ObjectIdentifier(loop)] { return bound }
            let bound = NIOLoopBound(LoopReads(loop: loop), eventLoop: loop)
            byLoop[ObjectIdentifier(loop)] = bound
            return bound
        }
        return bound.value
    }
}
