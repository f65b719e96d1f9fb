import Foundation
import PlacesCore
import PlacesPipeline
import Testing

/// "Mito Bistro" asked 15 m from the restaurant "Mito": the local index knows only the restaurant, and its
/// name lacks the kind the question names. The lookup must not accept it: the bistro may be a place of its
/// own that the local index lacks, and only a better source (or the user) can tell.
@Suite("Kind words in the question")
struct KindWordLookupTests {
    static let mito = Place(id: PlaceID(provider: "osm", nativeID: "node/301"), name: "Mito",
                            coordinate: Coordinate(latitude: 60.17223, longitude: 24.94505), category: "restaurant")
    static let bistro = Place(id: PlaceID(provider: "google", nativeID: "ChIJmitobistro"), name: "Mito Bistro",
                              coordinate: Coordinate(latitude: 60.17190, longitude: 24.94530), category: "restaurant")

    @Test("a kind word the local candidate's name lacks is not accepted: the paid provider finds the bistro")
    func kindWordTheCandidateLacksPays() async throws {
        let rig = try PipelineRig(local: [Self.mito], costly: [Self.bistro])
        let outcome = try await rig.lookup("Mito Bistro", fields: [.id, .name, .coordinate])
        #expect(outcome.isAccepted && outcome.place?.name == "Mito Bistro" && outcome.place?.id.provider == "google")
        #expect(rig.costly.calls == 1)
    }

    @Test("with no better source, the restaurant is only a review, and the next lookup gives the same answer")
    func withoutABetterSourceItIsAReview() async throws {
        let rig = try PipelineRig(local: [Self.mito], costly: [])
        let first = try await rig.lookup("Mito Bistro", fields: [.id, .name, .coordinate])
        #expect(!first.isAccepted && first.match?.verdict != .match)
        #expect(first.place?.name == "Mito" && first.match?.verdict == .review)
        let again = try await rig.lookup("Mito Bistro", fields: [.id, .name, .coordinate])
        #expect(!again.isAccepted && again.place?.name == "Mito" && again.match?.verdict == .review)
        // The restaurant's own name is accepted from the local index, without a paid call.
        let calls = rig.costly.calls
        let byName = try await rig.lookup("Mito", fields: [.id, .name, .coordinate])
        #expect(byName.isAccepted && byName.place?.name == "Mito" && rig.costly.calls == calls)
    }
}
