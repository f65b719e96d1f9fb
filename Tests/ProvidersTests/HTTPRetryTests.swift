import FakeUpstream
import Foundation
import PlacesCore
import ProviderHTTP
import Testing

@Suite("HTTP retries and backoff")
struct HTTPRetryTests {
    func get(_ client: HTTPClient) async throws -> HTTPResponse {
        try await client.send(HTTPRequest(method: .get, url: HTTPRequest.url(base: client.baseURL, path: "/ok")))
    }

    @Test func honoursRetryAfterOn429ThenSucceeds() async throws {
        let fake = try await FakeUpstream.start { _ in .json("{}") }
        defer { Task { await fake.shutdown() } }
        fake.enqueue(.tooManyRequests(retryAfter: 2))
        let clock = VirtualClock()
        let response = try await get(makeClient("google", fake: fake, clock: clock))
        #expect(response.status == 200)
        #expect(fake.requests.count == 2)
        #expect(clock.sleeps == [2])
    }

    @Test func backsOffExponentiallyWithJitterOn5xx() async throws {
        let fake = try await FakeUpstream.start { _ in .json("{}") }
        defer { Task { await fake.shutdown() } }
        fake.enqueue(.serverError(503), .serverError(500))
        let clock = VirtualClock()
        _ = try await get(makeClient("yelp", fake: fake, clock: clock))
        // base 0.5 s: retry 1 waits 0.25 + 0.5·0.25, retry 2 waits 0.5 + 0.5·0.5 (random fixed at 0.5).
        #expect(clock.sleeps == [0.375, 0.75])
        #expect(fake.requests.count == 3)
    }

    @Test func jitterStaysWithinHalfToFullOfTheExponentialStep() {
        let low = RetryPolicy(baseDelay: 1, maxDelay: 4, random: { 0 })
        let high = RetryPolicy(baseDelay: 1, maxDelay: 4, random: { 0.999_999 })
        #expect(low.backoff(beforeRetry: 1) == 0.5)
        #expect(high.backoff(beforeRetry: 3) < 4 && high.backoff(beforeRetry: 3) > 3.99)
        #expect(low.backoff(beforeRetry: 10) == 2)   // capped at maxDelay
    }

    @Test func givesUpAfterMaxAttemptsWithServerError() async throws {
        let fake = try await FakeUpstream.start { _ in .serverError(502) }
        defer { Task { await fake.shutdown() } }
        let error = await providerError { _ = try await get(makeClient("google", fake: fake)) }
        #expect(error?.kind == .server)
        #expect(error?.description == "google: server error (502 INTERNAL) after 3 attempts; try again later")
        #expect(fake.requests.count == 3)
    }

    @Test func doesNotRetryClientErrors() async throws {
        let fake = try await FakeUpstream.start { _ in .forbidden() }
        defer { Task { await fake.shutdown() } }
        let clock = VirtualClock()
        let error = await providerError { _ = try await get(makeClient("google", fake: fake, clock: clock)) }
        #expect(error?.kind == .authentication)
        #expect(fake.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func retryAfterLongerThanTheLimitFailsAtOnceAndSaysHowLong() async throws {
        let fake = try await FakeUpstream.start { _ in .tooManyRequests(retryAfter: 3600) }
        defer { Task { await fake.shutdown() } }
        let clock = VirtualClock()
        let error = await providerError { _ = try await get(makeClient("google", fake: fake, clock: clock)) }
        #expect(error?.kind == .rateLimited)
        #expect(error?.retryAfter == 3600)
        #expect(fake.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func yelpDailyCapIsAQuotaAndIsNotRetried() async throws {
        let fake = try await FakeUpstream.start { _ in
            .json(#"{"error":{"code":"ACCESS_LIMIT_REACHED","description":"You've reached the access limit for this client."}}"#,
                  status: 429, headers: ["RateLimit-DailyLimit": "5000", "RateLimit-Remaining": "0",
                                         "RateLimit-ResetTime": "2026-11-22T00:00:00+00:00"])
        }
        defer { Task { await fake.shutdown() } }
        let error = await providerError { _ = try await get(makeClient("yelp", fake: fake)) }
        #expect(error?.kind == .quotaExhausted)
        #expect(error?.message.contains("resets at 2026-11-22T00:00:00+00:00") == true)
        #expect(fake.requests.count == 1)
    }

    @Test func parsesRetryAfterAsSecondsOrHTTPDate() {
        #expect(RetryPolicy.parseRetryAfter("7") == 7)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let later = RetryPolicy.parseRetryAfter("Tue, 14 Nov 2023 22:13:40 GMT", now: now)
        #expect(later == 20)
        #expect(RetryPolicy.parseRetryAfter("soon") == nil)
    }

    @Test func sendsUserAgentNamingPlacesAndItsVersion() async throws {
        let fake = try await FakeUpstream.start { _ in .json("{}") }
        defer { Task { await fake.shutdown() } }
        _ = try await get(makeClient("google", fake: fake))
        #expect(fake.requests.first?.header("User-Agent") == "places/0.0.0-test")
    }
}
