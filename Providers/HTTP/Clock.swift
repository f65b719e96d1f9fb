import Foundation

/// Time as the HTTP layer sees it: a monotonic "now" in seconds and a way to wait.
///
/// Backoff, the rate limiter and the circuit breaker all read time through this, so tests swap in
/// ``VirtualClock`` and check exact delays without sleeping.
public protocol ProviderClock: Sendable {
    /// Seconds on a monotonic scale; only differences are meaningful.
    func now() -> Double
    /// Waits `seconds` (no-op when ≤ 0). Throws `CancellationError` when the task is cancelled.
    func sleep(seconds: Double) async throws
}

/// The real clock: `ContinuousClock`, which keeps counting while the machine sleeps.
public struct SystemClock: ProviderClock {
    private static let origin = ContinuousClock.now

    public init() {}

    public func now() -> Double {
        let elapsed = ContinuousClock.now - Self.origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { return }
        try await Task.sleep(for: .milliseconds(Int64((seconds * 1_000).rounded(.up))))
    }
}

/// A clock whose sleeps return at once and move time forward by exactly the requested amount.
///
/// Every sleep is recorded, so a test can assert "the second retry waited 2 s, as Retry-After said"
/// without waiting two real seconds.
public final class VirtualClock: ProviderClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Double
    private var recorded: [Double] = []

    public init(start: Double = 1_000) { current = start }

    public func now() -> Double { lock.withLock { current } }

    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        lock.withLock {
            recorded.append(seconds)
            if seconds > 0 { current += seconds }
        }
    }

    /// Moves time forward without a sleep, as if the process had been busy elsewhere.
    public func advance(by seconds: Double) { lock.withLock { current += seconds } }

    /// Every sleep requested so far, in order (zero-length ones included).
    public var sleeps: [Double] { lock.withLock { recorded } }
}
