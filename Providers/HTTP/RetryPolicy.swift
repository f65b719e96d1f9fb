import Foundation

/// When and how long to wait before trying a throttled (429) or failed (5xx) call again.
///
/// Only those two are retried: a 4xx other than 429 will fail the same way again, and a timeout or
/// a dropped connection is reported at once so a slow provider cannot stall a lookup for minutes.
public struct RetryPolicy: Sendable {
    /// Calls in all, the first included (1 = never retry).
    public var maxAttempts: Int
    /// The first retry waits about this long; each later one doubles it.
    public var baseDelay: Double
    public var maxDelay: Double
    /// A `Retry-After` longer than this is not waited for: the call fails at once with the wait in the error.
    public var maxRetryAfter: Double
    /// Returns a value in `0..<1`; injectable so tests see exact delays.
    public var random: @Sendable () -> Double

    public init(maxAttempts: Int = 3, baseDelay: Double = 0.5, maxDelay: Double = 8, maxRetryAfter: Double = 30,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.random = random
    }

    public static let never = RetryPolicy(maxAttempts: 1)

    /// The wait before retry number `retry` (1 = the first retry): "equal jitter", half fixed and
    /// half random, so many clients throttled together do not all come back at the same instant.
    public func backoff(beforeRetry retry: Int) -> Double {
        let exponential = min(maxDelay, baseDelay * pow(2, Double(max(0, retry - 1))))
        return exponential / 2 + random() * exponential / 2
    }

    /// Parses `Retry-After` as delta-seconds or an HTTP date.
    public static func parseRetryAfter(_ value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value) { return seconds.isFinite ? max(0, seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
