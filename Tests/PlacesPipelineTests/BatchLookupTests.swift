import Foundation
import PlacesCore
import PlacesPipeline
import Testing

@Suite("Batch lookup")
struct BatchLookupTests {
    @Test("a batch interrupted by provider failures resumes through the cache")
    func resume() async throws {
        let places = (0..<12).map { i in
            Place(id: PlaceID(provider: "google", nativeID: "b\(i)"), name: "Bakery \(i)",
                  coordinate: Coordinate(latitude: 60.2 + Double(i) * 0.01, longitude: 24.9))
        }
        let rows = places.map { BatchRow(id: $0.id.nativeID, query: MatchQuery(name: $0.name, near: $0.coordinate)) }
        let rig = try PipelineRig(costly: Array(places.prefix(8)))
        let first = try await rig.pipeline.runBatch(rows, concurrency: 4) { _, _ in }
        #expect(first.rows == 12 && first.accepted == 8 && first.callsPerProvider["google"] == 12)

        // The run is interrupted: the provider is down. Nothing new is answered, nothing wrong is cached.
        rig.costly.fail(with: serverError)
        let interrupted = try await rig.pipeline.runBatch(rows, concurrency: 4) { _, _ in }
        #expect(interrupted.cacheHits == 12)

        // Resumed later with more data: the 8 answered rows cost nothing, the 4 negatives stay cached until they expire.
        rig.costly.fail(with: nil)
        rig.costly.answer(places)
        let callsBefore = rig.costly.calls
        rig.clock.advance(3_601)
        let resumed = try await rig.pipeline.runBatch(rows, concurrency: 4) { _, _ in }
        #expect(resumed.cacheHits == 8)
        #expect(rig.costly.calls - callsBefore == 4)
        #expect(resumed.accepted == 12)
    }

    @Test("the summary counts rows, hits, calls and money, and every row is reported once")
    func summary() async throws {
        let rig = try PipelineRig(cheap: [mayaCheap()])
        let rows = (0..<6).map { BatchRow(id: "r\($0)", query: MatchQuery(name: "Maya Bar & Grill", near: maya)) }
        let seen = SeenRows()
        let summary = try await rig.pipeline.runBatch(rows, concurrency: 1) { result, done in seen.add(result.row.id, done) }
        #expect(summary.rows == 6 && summary.accepted == 6 && summary.cacheHits == 5)
        #expect(summary.callsPerProvider["yelp"] == 1 && summary.cost == .zero)
        #expect(seen.ids.sorted() == rows.map(\.id) && seen.lastDone == 6)
    }
}

final class SeenRows: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var ids: [String] = []
    private(set) var lastDone = 0
    func add(_ id: String, _ done: Int) { lock.withLock { ids.append(id); lastDone = done } }
}
