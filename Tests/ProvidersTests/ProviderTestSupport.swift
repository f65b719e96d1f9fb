import FakeUpstream
import Foundation
import PlacesCore
import ProviderHTTP

/// A client pointed at a fake, with a virtual clock (no real sleeps) and a fixed jitter.
func makeClient(
    _ provider: String, fake: FakeUpstream, key: String? = FakeRoutes.testKey, clock: VirtualClock = VirtualClock(),
    retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.5, maxDelay: 8, maxRetryAfter: 30, random: { 0.5 }),
    timeout: Double = FakeUpstream.answerWithinSeconds, limiter: RateLimiter? = nil, breaker: CircuitBreaker? = nil, contact: String? = nil,
    errorReader: @escaping @Sendable (HTTPResponse) -> UpstreamErrorDetail = HTTPClient.genericErrorDetail,
    maxBodyBytes: Int = HTTPClientConfiguration.defaultMaxBodyBytes
) -> HTTPClient {
    HTTPClient(
        configuration: HTTPClientConfiguration(
            provider: provider, baseURL: fake.baseURL, timeout: timeout,
            userAgent: UserAgent.make(product: "places/0.0.0-test", contact: contact),
            retry: retry, secrets: key.map { [$0] } ?? [],
            credentialHint: "set a valid key in \(provider.uppercased())_API_KEY", maxBodyBytes: maxBodyBytes),
        limiter: limiter, breaker: breaker ?? CircuitBreaker(failureThreshold: 5, coolDown: 30, clock: clock),
        clock: clock, errorReader: errorReader)
}

/// Runs `body` and returns the `ProviderError` it threw, or `nil`.
func providerError(_ body: () async throws -> Void) async -> ProviderError? {
    do {
        try await body()
        return nil
    } catch let error as ProviderError {
        return error
    } catch {
        return ProviderError(provider: "test", kind: .transport, message: "unexpected error type: \(error)")
    }
}

let blueBottle = Coordinate(latitude: 37.7763, longitude: -122.4232)
