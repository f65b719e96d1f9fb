import FakeUpstream
import Foundation
import NominatimProvider
import PlacesCore
import ProviderHTTP
import Testing

@Suite("Client-side rate limiting")
struct RateLimiterTests {
    @Test func spacesCallsEvenlyInArrivalOrder() async throws {
        let clock = VirtualClock()
        let limiter = RateLimiter(requestsPerSecond: 2, clock: clock)
        var waits: [Double] = []
        for _ in 0..<3 { waits.append(try await limiter.acquire()) }
        // Sleeps move the virtual clock, so each caller waits exactly the 0.5 s spacing.
        #expect(waits == [0, 0.5, 0.5])
        #expect(clock.sleeps == [0.5, 0.5])
    }

    @Test func idleTimeIsNotBankedIntoABurst() async throws {
        let clock = VirtualClock()
        let limiter = RateLimiter(requestsPerSecond: 1, clock: clock)
        try await limiter.acquire()
        clock.advance(by: 10)
        #expect(try await limiter.acquire() == 0)
        #expect(try await limiter.acquire() == 1)
    }

    @Test func concurrentCallersQueueForSeparateSlots() async throws {
        let clock = VirtualClock()
        let limiter = RateLimiter(requestsPerSecond: 1, clock: clock)
        let waits = try await withThrowingTaskGroup(of: Double.self) { group in
            for _ in 0..<4 { group.addTask { try await limiter.acquire() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Each slot is reserved before its sleep, so no two callers share one.
        #expect(waits.filter { $0 == 0 }.count == 1)
        #expect(clock.sleeps.count == 3)
    }

    @Test func zeroRateMeansNoLimit() async throws {
        let limiter = RateLimiter(requestsPerSecond: 0, clock: VirtualClock())
        for _ in 0..<5 { #expect(try await limiter.acquire() == 0) }
    }

    @Test func nominatimIsPacedAtOneRequestPerSecondThroughItsLimiter() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.nominatim())
        defer { Task { await fake.shutdown() } }
        let clock = VirtualClock()
        let limiter = RateLimiter(requestsPerSecond: 1, clock: clock)
        let client = makeClient("nominatim", fake: fake, key: nil, clock: clock, limiter: limiter, contact: "ops@example.com")
        let provider = try NominatimProvider(client: client, contact: "ops@example.com")
        for _ in 0..<3 { _ = try await provider.search(SearchQuery(text: "maya bar")) }
        #expect(fake.requests.count == 3)
        #expect(clock.sleeps == [1, 1])
    }

    @Test func theProcessWideNominatimLimiterIsOneInstanceAtOnePerSecond() {
        #expect(RateLimiter.nominatimProcessWide === RateLimiter.nominatimProcessWide)
        #expect(RateLimiter.nominatimProcessWide.requestsPerSecond == 1)
    }
}
