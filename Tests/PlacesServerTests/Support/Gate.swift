import Foundation

/// Holds backend calls until a test opens it, so "a call is in flight" is a fact, not a timing guess.
final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var entered = 0
    private var enteredWaiters: [(Int, CheckedContinuation<Void, Never>)] = []

    /// Called by the backend: returns once the gate is open.
    func pass() async {
        await withCheckedContinuation { continuation in
            let (resumeNow, ready) = lock.withLock { () -> (Bool, [CheckedContinuation<Void, Never>]) in
                entered += 1
                let ready = enteredWaiters.filter { $0.0 <= entered }.map(\.1)
                enteredWaiters.removeAll { $0.0 <= entered }
                if isOpen { return (true, ready) }
                waiting.append(continuation)
                return (false, ready)
            }
            ready.forEach { $0.resume() }
            if resumeNow { continuation.resume() }
        }
    }

    /// Returns once `count` calls have reached the gate.
    func waitUntilEntered(_ count: Int = 1) async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool in
                if entered >= count { return true }
                enteredWaiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    func open() {
        let released = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            isOpen = true
            defer { waiting = [] }
            return waiting
        }
        released.forEach { $0.resume() }
    }
}
