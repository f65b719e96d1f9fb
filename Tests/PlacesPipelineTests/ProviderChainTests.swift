import BudgetLedger
import Foundation
import PlacesCore
import PlacesPipeline
import Testing

@Suite("Lookup chain: cheap first, costly fallback")
struct ProviderChainTests {
    @Test("the local index answers and no paid call is made")
    func localAnswers() async throws {
        let rig = try PipelineRig(local: [mayaLocal()], cheap: [mayaCheap()])
        let outcome = try await rig.lookup()
        #expect(outcome.isAccepted)
        #expect(outcome.place?.id.provider == "osm")
        #expect(rig.local.calls == 1 && rig.cheap.calls == 0 && rig.costly.calls == 0)
        #expect(outcome.cost == .zero && outcome.cache == .miss && outcome.stopReason == .accepted)
    }

    @Test("providers are tried cheapest first whatever the configured order")
    func costOrder() async throws {
        let rig = try PipelineRig()
        let request = LookupRequest(query: MatchQuery(name: "x", near: maya))
        #expect(rig.pipeline.chain(for: request).map(\.provider.name) == ["local", "yelp", "google"])
    }

    @Test("a cheap provider's good match is accepted and the costly one is not called")
    func cheapAccepted() async throws {
        let rig = try PipelineRig(cheap: [mayaCheap()])
        let outcome = try await rig.lookup(fields: [.phone])
        #expect(outcome.isAccepted)
        #expect(outcome.place?.phone == "+358912345678")
        #expect(outcome.place?.provenance[.phone]?.provider == "yelp")
        #expect(rig.costly.calls == 0 && outcome.cost == .zero)
    }

    @Test("a poor cheap match costs exactly one costly call, and the repeat is a cache hit with no upstream call")
    func costlyFallbackThenCacheHit() async throws {
        let rig = try PipelineRig(cheap: [mayaElsewhere()])
        let first = try await rig.lookup()
        #expect(first.isAccepted && first.place?.id.provider == "google")
        #expect(rig.costly.calls == 1)
        #expect(first.cost == .perThousand(dollars: 35))
        let callsBefore = rig.upstreamCalls
        let second = try await rig.lookup()
        #expect(second.cache == .hit && second.cost == .zero)
        #expect(second.place?.id == first.place?.id)
        #expect(rig.upstreamCalls == callsBefore)
    }

    @Test("a nearby repeat within the grid cell is a cache hit")
    func gridSnapping() async throws {
        let rig = try PipelineRig(cheap: [mayaCheap()])
        _ = try await rig.lookup()
        let again = try await rig.lookup(near: Coordinate(latitude: maya.latitude + 0.00005, longitude: maya.longitude))
        #expect(again.cache == .hit)
    }

    @Test("a match missing requested fields goes on to the next provider and merges field by field")
    func mergeWithProvenance() async throws {
        let rig = try PipelineRig(local: [mayaLocal()], cheap: [mayaCheap()])
        let outcome = try await rig.lookup(fields: [.phone, .hours, .website])
        #expect(rig.local.calls == 1 && rig.cheap.calls == 1 && rig.costly.calls == 1)
        let place = try #require(outcome.place)
        #expect(place.openingHoursText == "Mo-Su 16:00-02:00")
        #expect(place.provenance[.hours]?.provider == "google")
        #expect(place.provenance[.website]?.provider == "google")
        #expect(place.id.provider == "google")
        #expect(Set(place.alternateIDs.map(\.provider)) == ["osm", "yelp"])
        #expect(place.attribution?.contains("OpenStreetMap") == true)
    }

    @Test("only the fields asked for are worth paying for: a local match without an address is accepted")
    func requiredFieldsOnly() async throws {
        var bare = mayaLocal()
        bare.formattedAddress = nil
        let rig = try PipelineRig(local: [bare])
        let query = MatchQuery(name: "Maya Bar & Grill", near: maya)  // asks providers for the usual fields
        let lenient = try await rig.pipeline.lookup(LookupRequest(query: query, requiredFields: [.id, .name, .coordinate]))
        #expect(lenient.isAccepted && lenient.place?.id.provider == "osm" && rig.costly.calls == 0)
        let strict = try await rig.pipeline.lookup(LookupRequest(query: query))  // requires every asked field
        #expect(strict.place?.provenance[.address]?.provider == "google" && rig.costly.calls == 1)
    }

    @Test("--offline asks only the cache and the local index")
    func offline() async throws {
        let rig = try PipelineRig(cheap: [mayaCheap()])
        let outcome = try await rig.lookup(offline: true)
        #expect(rig.local.calls == 1 && rig.cheap.calls == 0 && rig.costly.calls == 0)
        #expect(outcome.place == nil)
    }

    @Test("--explain steps name the cache status, every provider, the candidates and why it stopped")
    func explainSteps() async throws {
        let rig = try PipelineRig(cheap: [mayaElsewhere()])
        let outcome = try await rig.lookup()
        let text = outcome.steps.map(\.description).joined(separator: "\n")
        #expect(text.contains("cache: miss"))
        #expect(text.contains("called yelp") && text.contains("Maya Hair Studio"))
        #expect(text.contains("called google") && text.contains("match Maya Bar & Grill"))
        #expect(outcome.steps.last?.kind == .stopped)
    }

    @Test("a failing provider is reported with what the answer rests on instead")
    func failureIsReported() async throws {
        let rig = try PipelineRig(local: [mayaLocal()])
        rig.costly.fail(with: serverError)
        // The local index has no phone, so the costly provider is asked, and fails.
        let outcome = try await rig.lookup(fields: [.phone])
        #expect(outcome.place?.id == mayaLocal().id)
        #expect(outcome.failures == [ProviderFailure(provider: "google", message: serverError.message)])
        #expect(outcome.errors == ["google: 503 UNAVAILABLE after 2 retries"])
        #expect(outcome.answeredBy == "local")
    }

    @Test("an exact name with no namesake among the candidates is accepted a few hundred metres away; a chain is not")
    func uniqueNameTolerance() async throws {
        let far = Coordinate(latitude: maya.latitude + 300 / 111_320, longitude: maya.longitude)
        var distant = mayaLocal()
        distant.coordinate = far
        let unique = try PipelineRig(local: [distant], costly: [])
        #expect(try await unique.lookup().isAccepted)

        var branch = mayaLocal()
        branch.id = PlaceID(provider: "osm", nativeID: "node/102")
        branch.coordinate = Coordinate(latitude: maya.latitude - 500 / 111_320, longitude: maya.longitude)
        let chain = try PipelineRig(local: [distant, branch], costly: [])
        #expect(try await chain.lookup().isAccepted == false)
    }
}

