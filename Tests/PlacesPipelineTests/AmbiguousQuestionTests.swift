import Foundation
import PlacesCore
import PlacesPipeline
import Testing

/// "Kalmari" when Kalmari Grill and Kalmari Pizzeria share a building: the words typed fit both, and a paid
/// provider would only answer with its own guess. The lookup answers `review` with both, pays nothing, and
/// gives the same answer again; `payWhenAmbiguous` asks the paid provider anyway.
@Suite("Ambiguous questions")
struct AmbiguousQuestionTests {
    static let grill = Place(id: PlaceID(provider: "osm", nativeID: "node/201"), name: "Kalmari Grill",
                             coordinate: Coordinate(latitude: 60.17215, longitude: 24.94505), category: "restaurant")
    static let pizzeria = Place(id: PlaceID(provider: "osm", nativeID: "node/202"), name: "Kalmari Pizzeria",
                                coordinate: Coordinate(latitude: 60.17205, longitude: 24.94490), category: "restaurant")
    /// The paid provider's own guess: one of the two.
    static let guess = Place(id: PlaceID(provider: "google", nativeID: "ChIJkalmari"), name: "Kalmari Grill",
                             coordinate: Coordinate(latitude: 60.17215, longitude: 24.94505), category: "restaurant")

    @Test("an ambiguous question is answered review with every fitting place, without a paid call, twice alike")
    func ambiguousIsReviewWithoutPaying() async throws {
        let rig = try PipelineRig(local: [Self.grill, Self.pizzeria], costly: [Self.guess])
        let first = try await rig.lookup("Kalmari")
        #expect(!first.isAccepted && first.match?.verdict == .review)
        #expect(first.stopReason == .ambiguous)
        #expect(Set(first.ambiguousCandidates.map(\.name)) == ["Kalmari Grill", "Kalmari Pizzeria"])
        #expect(first.place == first.ambiguousCandidates.first)
        #expect(rig.costly.calls == 0 && first.cost == .zero)

        let again = try await rig.lookup("Kalmari")
        #expect(again.cache == .hit && !again.isAccepted && again.match?.verdict == .review)
        #expect(again.ambiguousCandidates.map(\.name) == first.ambiguousCandidates.map(\.name))
        #expect(rig.costly.calls == 0)
    }

    @Test("a name that tells the two apart is accepted as usual")
    func fullNameIsAccepted() async throws {
        let rig = try PipelineRig(local: [Self.grill, Self.pizzeria], costly: [Self.guess])
        let outcome = try await rig.lookup("Kalmari Pizzeria", fields: [.id, .name, .coordinate])
        #expect(outcome.isAccepted && outcome.place?.name == "Kalmari Pizzeria" && outcome.ambiguousCandidates.isEmpty)
        #expect(rig.costly.calls == 0)
    }

    /// Two cafés named as typed, 207 m and 445 m from the user: a chain's branches, neither near enough to be taken
    /// for the one meant.
    static let branches = [
        Place(id: PlaceID(provider: "osm", nativeID: "node/301"), name: "Fazer Café",
              coordinate: Coordinate(latitude: maya.latitude + 0.00186, longitude: maya.longitude), category: "cafe"),
        Place(id: PlaceID(provider: "osm", nativeID: "node/302"), name: "Fazer Café",
              coordinate: Coordinate(latitude: maya.latitude - 0.004, longitude: maya.longitude), category: "cafe"),
    ]

    @Test("a chain's branches beyond reach are a review naming them, not \"no such place\", the same twice")
    func branchesBeyondReachAreListed() async throws {
        let rig = try PipelineRig(local: Self.branches, costly: [])
        let first = try await rig.lookup("Fazer Cafe")
        #expect(!first.isAccepted && first.match?.verdict == .review)
        #expect(first.ambiguousCandidates.map(\.id) == Self.branches.map(\.id))
        #expect(first.place?.id == Self.branches[0].id)
        let again = try await rig.lookup("Fazer Cafe")
        #expect(again.cache == .hit && again.match?.verdict == .review && again.ambiguousCandidates.count == 2)
    }

    @Test("a paid source that knows the branch where the user is still answers")
    func aNearerBranchFromAPaidSourceIsAccepted() async throws {
        let here = Place(id: PlaceID(provider: "google", nativeID: "ChIJfazer"), name: "Fazer Café", coordinate: maya,
                         category: "cafe")
        let rig = try PipelineRig(local: Self.branches, costly: [here])
        let outcome = try await rig.lookup("Fazer Cafe", fields: [.id, .name, .coordinate])
        #expect(rig.costly.calls == 1)
        #expect(outcome.isAccepted && outcome.place?.name == "Fazer Café" && outcome.ambiguousCandidates.isEmpty)
    }

    @Test("payWhenAmbiguous asks the paid provider, whose guess is still only a review")
    func payWhenAmbiguousPays() async throws {
        let rig = try PipelineRig(local: [Self.grill, Self.pizzeria], costly: [Self.guess])
        let request = LookupRequest(query: MatchQuery(name: "Kalmari", near: maya), payWhenAmbiguous: true)
        let outcome = try await rig.pipeline.lookup(request)
        #expect(rig.costly.calls == 1 && outcome.cost == .perThousand(dollars: 35))
        #expect(!outcome.isAccepted && outcome.ambiguousCandidates.count == 2)
        // Not the default's answer from the cache: the question asked to pay is its own.
        let byDefault = try await rig.lookup("Kalmari")
        #expect(byDefault.cache == .miss && rig.costly.calls == 1)
    }
}
