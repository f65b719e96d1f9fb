import FakeUpstream
import Foundation
import PlacesCore
import ProviderHTTP
import Testing

@Suite("Circuit breaker")
struct CircuitBreakerTests {
    func get(_ client: HTTPClient) async throws {
        _ = try await client.send(HTTPRequest(method: .get, url: HTTPRequest.url(base: client.baseURL, path: "/x")))
    }

    @Test func opensAfterConsecutiveFailuresAndStopsCalling() async throws {
        let fake = try await FakeUpstream.start { _ in .serverError() }
        defer { Task { await fake.shutdown() } }
        let clock = VirtualClock()
        let breaker = CircuitBreaker(failureThreshold: 2, coolDown: 30, clock: clock)
        let client = makeClient("google", fake: fake, clock: clock, retry: .never, breaker: breaker)
        #expect(await providerError { try await get(client) }?.kind == .server)
        #expect(await providerError { try await get(client) }?.kind == .server)
        let paused = await providerError { try await get(client) }
        #expect(paused?.kind == .circuitOpen)
        #expect(paused?.description.hasPrefix("google: paused after 2 failures in a row; next try in 30 s") == true)
        #expect(fake.requests.count == 2)
    }

    @Test func halfOpensAfterCoolDownAndClosesOnSuccess() async throws {
        let fake = try await FakeUpstream.start { _ in .json("{}") }
        defer { Task { await fake.shutdown() } }
        fake.enqueue(.serverError(), .serverError())
        let clock = VirtualClock()
        let breaker = CircuitBreaker(failureThreshold: 2, coolDown: 30, clock: clock)
        let client = makeClient("yelp", fake: fake, clock: clock, retry: .never, breaker: breaker)
        _ = await providerError { try await get(client) }
        _ = await providerError { try await get(client) }
        clock.advance(by: 29)
        #expect(await providerError { try await get(client) }?.kind == .circuitOpen)
        clock.advance(by: 1)
        try await get(client)   // the trial call
        #expect(await breaker.state == .closed(consecutiveFailures: 0))
        try await get(client)
        #expect(fake.requests.count == 4)
    }

    @Test func aFailedTrialReopensForAnotherCoolDown() async throws {
        let clock = VirtualClock()
        let breaker = CircuitBreaker(failureThreshold: 1, coolDown: 10, clock: clock)
        await breaker.recordFailure()
        #expect(await breaker.admit() == 10)
        clock.advance(by: 10)
        #expect(await breaker.admit() == nil)
        #expect(await breaker.admit() != nil)   // only one trial at a time
        await breaker.recordFailure()
        #expect(await breaker.state == .open(until: clock.now() + 10))
    }

    @Test func refusalsDoNotTripTheBreaker() async throws {
        let fake = try await FakeUpstream.start { _ in .forbidden() }
        defer { Task { await fake.shutdown() } }
        let clock = VirtualClock()
        let breaker = CircuitBreaker(failureThreshold: 2, coolDown: 30, clock: clock)
        let client = makeClient("google", fake: fake, clock: clock, breaker: breaker)
        for _ in 0..<3 { #expect(await providerError { try await get(client) }?.kind == .authentication) }
        #expect(fake.requests.count == 3)
    }
}
