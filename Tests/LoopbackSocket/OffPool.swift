import Foundation

/// Runs blocking work (socket reads, waiting for a process) on a thread of its own. Blocking a
/// Swift-concurrency thread instead could starve a server's backend tasks of the few threads a
/// small machine has (two on two cores), and a test would wait for a reply that can never be computed.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}
