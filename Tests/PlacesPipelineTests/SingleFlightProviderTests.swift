import Foundation
import PlacesCore
import Testing
@testable import PlacesPipeline

/// Holds callers until the test opens it: an event, not a sleep.
actor Gate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func pass() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for caller in waiting { caller.resume() }
        waiting = []
    }
}

/// A provider whose searches count themselves and then wait at a gate, so a call stays in flight for as
/// long as the test needs.
final class GatedProvider: PlaceProvider, @unchecked Sendable {
    let name = "google"
    let capabilities: ProviderCapabilities = [.textSearch]
    let cacheTerms: CacheTerms = .unlimited
    let gate = Gate()
    private let lock = NSLock()
    private var callCount = 0

    var calls: Int { lock.withLock { callCount } }

    func price(of operation: ProviderOperation, fields: Set<PlaceField>) -> PriceQuote {
        PriceQuote(sku: "google.search", cost: .perThousand(dollars: 32))
    }

    func search(_ query: SearchQuery) async throws -> [Place] {
        lock.withLock { callCount += 1 }
        await gate.pass()
        return [mayaCostly()]
    }
}

@Suite struct SingleFlightProviderTests {
    /// Waits until `condition` holds. The deadline only bounds a failure: it is long because in a full run
    /// other suites' blocking work can hold the cooperative pool's few threads, so the callers join late.
    func waitUntil(_ what: String, _ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(600)
        while !(await condition()) {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting until \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test func concurrentIdenticalSearchesMakeOneUpstreamCallAndAllGetItsAnswer() async throws {
        let upstream = GatedProvider()
        let shared = SingleFlightProvider(upstream)
        let query = SearchQuery(text: "Maya Bar & Grill", near: maya)
        let callers = 8
        let answers = try await withThrowingTaskGroup(of: [Place].self) { group in
            for _ in 0..<callers { group.addTask { try await shared.search(query) } }
            // One caller is upstream, held at the gate; the gate opens only once all the others wait on its call.
            try await waitUntil("\(callers - 1) callers wait on the one call") {
                upstream.calls == 1 ? await shared.waitingCallers() == callers - 1 : false
            }
            await upstream.gate.open()
            return try await group.reduce(into: [[Place]]()) { $0.append($1) }
        }
        #expect(upstream.calls == 1)
        #expect(answers.count == callers)
        #expect(answers.allSatisfy { $0.map(\.id) == [mayaCostly().id] })
        #expect(await shared.waitingCallers() == 0)
    }

    /// Sharing lasts while the call is in flight; keeping answers is the caching wrapper's job.
    @Test func aFinishedCallIsNotReused() async throws {
        let upstream = GatedProvider()
        let shared = SingleFlightProvider(upstream)
        await upstream.gate.open()
        let query = SearchQuery(text: "Maya Bar & Grill", near: maya)
        _ = try await shared.search(query)
        _ = try await shared.search(query)
        #expect(upstream.calls == 2)
    }
}
