import Foundation

/// Spaces calls at least `1 / requestsPerSecond` apart, in the order callers arrive.
///
/// Nominatim's policy is "at most one request per second for the whole application", so its
/// limiter is one shared instance (``RateLimiter/nominatimProcessWide``) rather than one per provider value.
/// Slots are reserved before sleeping, so concurrent callers queue up instead of all waking at once.
public actor RateLimiter {
    public nonisolated let requestsPerSecond: Double
    private let clock: any ProviderClock
    private var nextFreeSlot: Double?

    /// - Parameter requestsPerSecond: ≤ 0 or infinite disables limiting.
    public init(requestsPerSecond: Double, clock: any ProviderClock = SystemClock()) {
        self.requestsPerSecond = requestsPerSecond
        self.clock = clock
    }

    /// The one limiter every Nominatim client in this process shares: 1 request/s.
    public static let nominatimProcessWide = RateLimiter(requestsPerSecond: 1)

    private var interval: Double {
        requestsPerSecond > 0 && requestsPerSecond.isFinite ? 1 / requestsPerSecond : 0
    }

    /// Waits until this caller's slot. Returns how long it waited.
    @discardableResult
    public func acquire() async throws -> Double {
        guard interval > 0 else { return 0 }
        let now = clock.now()
        let slot = max(now, nextFreeSlot ?? now)
        nextFreeSlot = slot + interval
        let wait = slot - now
        if wait > 0 { try await clock.sleep(seconds: wait) }
        return wait
    }
}
