import BudgetLedger
import FakeUpstream
import Foundation
import GoogleProvider
import LookupCache
import PlacesCore
import PlacesMatching
@testable import PlacesPipeline
import ProviderHTTP
import ScratchDirectory
import Testing

/// "Mito" typed 15 m from "Mito Bistro", the one place the local index lists there: `review` on its own, since
/// the place meant may be a restaurant called "Mito" the index lacks. Before paying Google, the pipeline asks
/// Google's free Text Search with the IDs-only mask how many places the words fit around the user, and which
/// place Google lists under the candidate's name. The Google fake answers by its own rule
/// (``FakeGoogleTextSearch``), not the matcher's.
@Suite("Free id probe before paying")
struct FreeIDProbeTests {
    static let user = Coordinate(latitude: 60.17210, longitude: 24.94500)
    static let localBistro = Place(id: PlaceID(provider: "osm", nativeID: "node/301"), name: "Mito Bistro",
                                   coordinate: Coordinate(latitude: 60.17223, longitude: 24.94505), category: "restaurant")
    static let googleBistro = FakeGoogleTextSearch.Place(id: "ChIJmitobistro", name: "Mito Bistro",
                                                         latitude: 60.17222, longitude: 24.94506)
    /// The namesake the local index lacks, 40 m away.
    static let googleMito = FakeGoogleTextSearch.Place(id: "ChIJmito", name: "Mito", latitude: 60.17245, longitude: 24.94480)
    /// A place no word typed fits.
    static let googleUnrelated = FakeGoogleTextSearch.Place(id: "ChIJsavy", name: "Kahvila Sävy",
                                                            latitude: 60.17300, longitude: 24.94600, types: ["cafe"])
    static let fields: Set<PlaceField> = [.id, .name, .coordinate]

    struct Rig {
        let google: FakeUpstream
        let local: CountingProvider
        let pipeline: LookupPipeline
        let ledger: any BudgetLedger

        func lookup(_ name: String) async throws -> LookupOutcome {
            try await pipeline.lookup(LookupRequest(query: MatchQuery(name: name, near: FreeIDProbeTests.user, fields: FreeIDProbeTests.fields)))
        }
    }

    static func rig(_ world: FakeGoogleTextSearch, local listed: [Place] = [localBistro], freeProbes: Bool = true) async throws -> Rig {
        let validator = try GoogleDiscoveryValidator()
        let google = try await FakeUpstream.start(handler: world.handler(validator: validator))
        let directory = try ScratchDirectory.lastingTheProcess("places-probe").url
        let ledger = try SQLiteBudgetLedger(path: directory.appendingPathComponent("budget.sqlite"))
        let client = HTTPClient(configuration: HTTPClientConfiguration(
            provider: "google", baseURL: google.baseURL, timeout: FakeUpstream.answerWithinSeconds, userAgent: UserAgent.make(product: "places/0.0.0-test"),
            retry: RetryPolicy(maxAttempts: 1), secrets: [FakeRoutes.testKey]), errorReader: GoogleProvider.errorReader)
        let local = CountingProvider(name: "local", places: listed, answersEveryName: true)
        let pipeline = LookupPipeline(providers: [local, GoogleProvider(client: client)], scorer: MatcherScorer(matcher: PlaceMatcher()),
                                      cache: try SQLiteLookupCacheStore(path: directory.appendingPathComponent("cache.sqlite")),
                                      ledger: ledger, policy: LookupPolicy(freeProbes: freeProbes))
        return Rig(google: google, local: local, pipeline: pipeline, ledger: ledger)
    }

    static func textQueries(_ fake: FakeUpstream) -> [String] {
        fake.requests.compactMap { $0.jsonBody?["textQuery"] as? String }
    }

    @Test("one id for the words, the same one first for the candidate's name: the local answer is accepted, $0 spent")
    func oneIDAcceptsTheCheapCandidate() async throws {
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleBistro, Self.googleUnrelated]))
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Mito")
        #expect(outcome.isAccepted && outcome.place?.id == Self.localBistro.id)
        #expect(outcome.cost == .zero && outcome.calls["google"] == nil && outcome.probes["google"] == 2)
        #expect(Self.textQueries(rig.google) == ["Mito", "Mito Bistro"])
        // Both requests are IDs-only Text Searches restricted to a rectangle around the user, and valid by the
        // discovery document (the fake's validator answers 400 otherwise).
        for request in rig.google.requests {
            #expect(request.header("X-Goog-FieldMask") == "places.id")
            #expect((request.jsonBody?["locationRestriction"] as? [String: Any])?["rectangle"] != nil)
            #expect(request.jsonBody?["locationBias"] == nil)
        }
        // The key travels in Google's header and nowhere else: not in a URL, a body, --explain or the outcome.
        for request in rig.google.requests {
            #expect(request.header("X-Goog-Api-Key") == FakeRoutes.testKey)
            #expect(!request.uri.contains(FakeRoutes.testKey))
            #expect(!String(decoding: request.body, as: UTF8.self).contains(FakeRoutes.testKey))
        }
        #expect(!outcome.steps.map(\.description).joined().contains(FakeRoutes.testKey))
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("one place fits \"Mito\"") })
        let report = try await rig.ledger.report()
        #expect(report.providers.first { $0.provider == "google" }?.today.spent ?? .zero == .zero)
        // The accepted answer is cached: the repeat reaches neither source.
        let again = try await rig.lookup("Mito")
        #expect(again.cache == .hit && again.isAccepted && rig.google.requests.count == 2)
    }

    @Test("two ids for the words (the namesake the local index lacks): Google is paid and finds it")
    func twoIDsPay() async throws {
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleBistro, Self.googleMito]))
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Mito")
        #expect(outcome.isAccepted && outcome.place?.id == PlaceID(provider: "google", nativeID: "ChIJmito"))
        // The words asked over the square, then over one twice as wide (both ids come back), then over the two
        // rectangles around the user (the namesake is 40 m off: it stays), then the paid call.
        #expect(outcome.cost > .zero && outcome.calls["google"] == 1 && outcome.probes["google"] == 4)
        #expect(Self.textQueries(rig.google) == ["Mito", "Mito", "Mito", "Mito", "Mito"])
        #expect(rig.google.requests.last?.header("X-Goog-FieldMask") != "places.id")
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("more than one place") })
    }

    @Test("an unrelated result that a square twice as wide returns too counts as a second place: Google is paid")
    func noiseCountsAsAnotherPlace() async throws {
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleBistro, Self.googleUnrelated], noise: 1))
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Mito")
        // The café is 114 m from the user, inside the rectangles around the user too: it stays.
        #expect(outcome.calls["google"] == 1 && outcome.cost > .zero && outcome.probes["google"] == 4)
        #expect(outcome.place?.name == "Mito Bistro")
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("more than one place fits \"Mito\"") })
    }

    /// 250 m north of the square's centre (the user snapped to the grid, 42 m south of the user): outside the
    /// 150 m square, inside the one twice as wide, and listed before ``googleUnrelated``, so the fake's one
    /// unrelated result is the café in the first square and this one in the second.
    static let googleUnrelatedFarther = FakeGoogleTextSearch.Place(id: "ChIJlumo", name: "Lumo Books", latitude: 60.17397,
                                                                   longitude: 24.94546, types: ["book_store"])

    @Test("an unrelated result missing from a square twice as wide is dropped: one place fits, accepted, $0")
    func noiseThatVanishesInTheWiderSquareIsDropped() async throws {
        let world = FakeGoogleTextSearch(places: [Self.googleBistro, Self.googleUnrelatedFarther, Self.googleUnrelated], noise: 1)
        // The premise, by the fake's own rule: the café comes back in the 150 m square, not in the 300 m one.
        let center = LookupPolicy().grid.snap(Self.user)
        func ids(_ halfSide: Double) -> [String] {
            let (low, high) = ProbeQuery(text: "Mito", center: center, halfSide: halfSide).corners
            return world.answer("Mito", restriction: ((low.latitude, low.longitude), (high.latitude, high.longitude)),
                                center: (center.latitude, center.longitude)).map(\.id)
        }
        #expect(ids(150) == ["ChIJmitobistro", "ChIJsavy"] && ids(300) == ["ChIJmitobistro", "ChIJlumo"])
        let rig = try await Self.rig(world)
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Mito")
        #expect(outcome.isAccepted && outcome.place?.id == Self.localBistro.id)
        #expect(outcome.cost == .zero && outcome.calls["google"] == nil && outcome.probes["google"] == 3)
        #expect(Self.textQueries(rig.google) == ["Mito", "Mito", "Mito Bistro"])
        let halfSides = rig.google.requests.compactMap { request -> Double? in
            guard let rectangle = (request.jsonBody?["locationRestriction"] as? [String: Any])?["rectangle"] as? [String: Any],
                  let low = rectangle["low"] as? [String: Any], let high = rectangle["high"] as? [String: Any],
                  let south = low["latitude"] as? Double, let north = high["latitude"] as? Double else { return nil }
            return ((north - south) / 2 * 111_195).rounded()
        }
        #expect(halfSides == [150, 300, 150])
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("1 loosely related result(s) missing") })
    }

    @Test("the wider square's page is full: nothing is dropped, since a fitting place may have been cut; Google is paid")
    func fullWiderPageDropsNothing() async throws {
        // Twenty places called "Mito …" in the wider square, outside the first: they outrank the café there.
        let crowd = (0..<20).map { i in
            FakeGoogleTextSearch.Place(id: "ChIJmito\(i)", name: "Mito \(i)", latitude: 60.17397, longitude: 24.94300 + Double(i) * 0.0001)
        }
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleBistro, Self.googleUnrelated] + crowd, noise: 1))
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Mito")
        #expect(outcome.calls["google"] == 1 && outcome.cost > .zero && outcome.probes["google"] == 4)
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("more than one place fits \"Mito\"") })
    }

    @Test("the one place Google finds for the words is not the one it lists under the candidate's name: Google is paid")
    func anotherPlaceFirstPays() async throws {
        // Google lists the local bistro under another name, so the words fit only the namesake.
        var renamed = Self.googleBistro
        renamed.name = "Bistro Kalomi"
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [renamed, Self.googleMito]))
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Mito")
        #expect(outcome.calls["google"] == 1 && outcome.probes["google"] == 2)
        #expect(outcome.isAccepted && outcome.place?.id == PlaceID(provider: "google", nativeID: "ChIJmito"))
    }

    // A slip typed with the kind word: "Vamaa Bakery" 20 m from the one "Vama Bakery" the local index lists, among
    // other bakeries Google knows nearby.
    static let localBakery = Place(id: PlaceID(provider: "osm", nativeID: "node/302"), name: "Vama Bakery",
                                   coordinate: Coordinate(latitude: 60.17228, longitude: 24.94500), category: "bakery")
    static let googleBakery = FakeGoogleTextSearch.Place(id: "ChIJvamabakery", name: "Vama Bakery",
                                                         latitude: 60.17228, longitude: 24.94501, types: ["bakery"])
    static let googleOtherBakery = FakeGoogleTextSearch.Place(id: "ChIJlumobakery", name: "Lumo Bakery",
                                                              latitude: 60.17300, longitude: 24.94520, types: ["bakery"])

    @Test("a slip typed with a kind word: only the distinctive word is probed, so other bakeries do not count; accepted, $0")
    func typoWithKindWordProbesTheDistinctiveWord() async throws {
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleBakery, Self.googleOtherBakery, Self.googleUnrelated]),
                                     local: [Self.localBakery])
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Vamaa Bakery")
        #expect(outcome.isAccepted && outcome.place?.id == Self.localBakery.id)
        #expect(outcome.cost == .zero && outcome.calls["google"] == nil && outcome.probes["google"] == 2)
        #expect(Self.textQueries(rig.google) == ["Vamaa", "Vama Bakery"])
        // By Google's own rule, the whole name typed fits both bakeries: the probe on it could never settle.
        #expect(FakeGoogleTextSearch(places: [Self.googleBakery, Self.googleOtherBakery]).answer(
            "Vamaa Bakery", restriction: nil, center: nil).count == 2)
    }

    @Test("a slip typed with a kind word, and a namesake the local index lacks one slip away: Google is paid and finds it")
    func typoWithKindWordBesideAMissingNamesakePays() async throws {
        // "Vamaa" is one slip from "Vama" and from "Vamas": the place meant may be either.
        let namesake = FakeGoogleTextSearch.Place(id: "ChIJvamasbakery", name: "Vamas Bakery", latitude: 60.17232,
                                                  longitude: 24.94496, types: ["bakery"])
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleBakery, namesake, Self.googleOtherBakery]),
                                     local: [Self.localBakery])
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Vamaa Bakery")
        // The square, the wider one, the two 150 m rectangles around the user, the word with a letter added.
        #expect(outcome.calls["google"] == 1 && outcome.cost > .zero && outcome.probes["google"] == 5)
        #expect(Self.textQueries(rig.google).first == "Vamaa")
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("more than one place fits \"Vamaa\"") })
    }

    /// A place `north` metres north of the user.
    static func google(_ id: String, _ name: String, north: Double, types: [String] = ["restaurant"]) -> FakeGoogleTextSearch.Place {
        FakeGoogleTextSearch.Place(id: id, name: name, latitude: user.latitude + north / 111_195, longitude: user.longitude, types: types)
    }

    @Test("a slip over 1 km with a one-slip neighbour 600 m off not named by the word typed: dropped; accepted, $0")
    func farSlipNeighbourIsDropped() async throws {
        // "vamra" is one slip from "vamaa" as "vama" is; 600 m off, only a place named "Vamaa" could be the paid answer.
        let neighbour = Self.google("ChIJvamra", "Vamra Café", north: 600, types: ["cafe"])
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleBakery, neighbour, Self.googleOtherBakery]),
                                     local: [Self.localBakery])
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Vamaa Bakery")
        #expect(outcome.isAccepted && outcome.place?.id == Self.localBakery.id)
        #expect(outcome.cost == .zero && outcome.calls["google"] == nil && outcome.probes["google"] == 6)
        #expect(Self.textQueries(rig.google) == ["Vamaa", "Vamaa", "Vamaa", "Vamaa", "Vamaaq", "Vama Bakery"])
        #expect(outcome.steps.contains {
            $0.kind == .probed && $0.message.contains("once 1 place(s) farther than 150 m from the point and not named \"Vamaa\" are dropped")
        })
    }

    @Test("the same with a place named Vamaa 600 m off, which the paid answer would take: it stays, and Google is paid")
    func farPlaceNamedAsTypedPays() async throws {
        let named = Self.google("ChIJvamaa", "Vamaa", north: 600)
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleBakery, named, Self.googleOtherBakery]),
                                     local: [Self.localBakery])
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Vamaa Bakery")
        #expect(outcome.calls["google"] == 1 && outcome.cost > .zero && outcome.probes["google"] == 5)
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("more than one place fits \"Vamaa\" within 1000 m; paying") })
    }

    @Test("a slip Google does not forgive (a letter dropped from a four-letter word): no id, so nothing paid; the bakery is review")
    func slipNoPlaceFitsIsNotPaid() async throws {
        let world = FakeGoogleTextSearch(places: [Self.googleBakery, Self.googleOtherBakery])
        // By Google's own rule "Vma" fits no word of either bakery (a slip needs four letters on both sides).
        #expect(world.answer("Vma", restriction: nil, center: nil).isEmpty)
        let rig = try await Self.rig(world, local: [Self.localBakery])
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Vma Bakery")
        #expect(!outcome.isAccepted && outcome.place?.id == Self.localBakery.id && outcome.match?.verdict == .review)
        #expect(outcome.cost == .zero && outcome.calls["google"] == nil && outcome.probes["google"] == 1)
        #expect(Self.textQueries(rig.google) == ["Vma"])
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("no place fits \"Vma\"") && $0.message.contains("not paying") })
        #expect(outcome.steps.contains { $0.kind == .skipped && $0.provider == "google" && $0.message.contains("Vama Bakery stays review") })
        let again = try await rig.lookup("Vma Bakery")
        #expect(again.cache == .hit && again.place?.id == Self.localBakery.id && again.match?.verdict == .review)
        #expect(rig.google.requests.count == 1)

        // What the paid call would have bought: Google's answer for the whole name (every bakery, by "Bakery"), and
        // no place in it the matcher accepts.
        let paying = try await Self.rig(world, local: [Self.localBakery], freeProbes: false)
        defer { Task { await paying.google.shutdown() } }
        let paid = try await paying.lookup("Vma Bakery")
        #expect(paid.calls["google"] == 1 && paid.cost > .zero && !paid.isAccepted)
    }

    @Test("the same slip with a phone typed: the paid answer's phone could settle it, so Google is paid")
    func slipNoPlaceFitsWithAPhonePays() async throws {
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleBakery, Self.googleOtherBakery]), local: [Self.localBakery])
        defer { Task { await rig.google.shutdown() } }
        let query = MatchQuery(name: "Vma Bakery", near: Self.user, phone: "+358 9 1234567", fields: Self.fields)
        let outcome = try await rig.pipeline.lookup(LookupRequest(query: query))
        #expect(outcome.calls["google"] == 1 && outcome.cost > .zero && outcome.probes["google"] == 1)
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("no place fits \"Vma\" within 1000 m; paying") })
    }

    // A bare name whose one cheap venue carries a word the matcher does not strip as a kind word: "Kasa" 15 m from
    // "Kasa Studio" (`nonMatch` on the name alone).
    static let localStudio = Place(id: PlaceID(provider: "osm", nativeID: "node/303"), name: "Kasa Studio",
                                   coordinate: Coordinate(latitude: 60.17223, longitude: 24.94505), category: "gallery")
    static let googleStudio = FakeGoogleTextSearch.Place(id: "ChIJkasastudio", name: "Kasa Studio",
                                                         latitude: 60.17222, longitude: 24.94506, types: ["art_gallery"])
    /// A place called Kasa 500 m north of the user.
    static let googleFarKasa = FakeGoogleTextSearch.Place(id: "ChIJkasa", name: "Kasa", latitude: 60.17210 + 500 / 111_320.0,
                                                          longitude: 24.94500)

    @Test("a bare name held by the one venue nearby (nonMatch on the name alone): one id within 1 km, accepted, $0")
    func bareNameHeldByOneVenueIsProbed() async throws {
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleStudio, Self.googleUnrelated]), local: [Self.localStudio])
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Kasa")
        #expect(outcome.isAccepted && outcome.place?.id == Self.localStudio.id)
        #expect(outcome.cost == .zero && outcome.calls["google"] == nil)
        #expect(Self.textQueries(rig.google) == ["Kasa", "Kasa Studio"])
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("within 1000 m") })
    }

    @Test("the same, with a place called Kasa 500 m off (the paid answer would take it): Google is paid")
    func bareNameHeldByOneVenueWithAFarNamesakePays() async throws {
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleStudio, Self.googleFarKasa]), local: [Self.localStudio])
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Kasa")
        // 500 m is beyond the 150 m rectangles around the user, but the place is named by the word typed: "Kasaq"
        // fits it by one slip, so it stays.
        #expect(outcome.calls["google"] == 1 && outcome.cost > .zero && outcome.probes["google"] == 5)
        #expect(Self.textQueries(rig.google).prefix(5) == ["Kasa", "Kasa", "Kasa", "Kasa", "Kasaq"])
    }

    @Test("a bare name held by a venue that Google does not know by that word: no id, and the venue only holds the words, so Google is paid")
    func bareNameHeldByAVenueNoIDPays() async throws {
        // Google's coverage should include the venue; when its search finds nothing for a word the venue's own name
        // holds, the probe's premise fails, and no answer is settled either way.
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleUnrelated]), local: [Self.localStudio])
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Kasa")
        #expect(outcome.calls["google"] == 1 && outcome.cost > .zero && outcome.probes["google"] == 1)
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("no place fits \"Kasa\" within 1000 m; paying") })
    }

    // "Kasa" 15 m from the one "Kasa Gallery" the local index lists: "Gallery" is a kind word, so the gallery is
    // `review` for the bare name (a namesake of it in the matcher's eyes), and the square is 150 m.
    static let localGallery = Place(id: PlaceID(provider: "osm", nativeID: "node/306"), name: "Kasa Gallery",
                                    coordinate: Coordinate(latitude: 60.17223, longitude: 24.94505), category: "gallery")
    static let googleGallery = FakeGoogleTextSearch.Place(id: "ChIJkasagallery", name: "Kasa Gallery",
                                                          latitude: 60.17222, longitude: 24.94506, types: ["art_gallery"])

    @Test("a bare name beside the one gallery carrying it: probed over 150 m, so a Kasa 500 m off does not count; accepted, $0")
    func bareNameBesideAGalleryProbesTheNearSquare() async throws {
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleGallery, Self.googleFarKasa]), local: [Self.localGallery])
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Kasa")
        #expect(outcome.isAccepted && outcome.place?.id == Self.localGallery.id)
        #expect(outcome.cost == .zero && outcome.calls["google"] == nil && outcome.probes["google"] == 2)
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("one place fits \"Kasa\" within 150 m") })
    }

    @Test("the same, with a place called Kasa 100 m off, inside the square: Google is paid")
    func bareNameBesideAGalleryWithANearNamesakePays() async throws {
        let near = FakeGoogleTextSearch.Place(id: "ChIJkasanear", name: "Kasa", latitude: 60.17210 - 90 / 111_320.0, longitude: 24.94500)
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleGallery, near]), local: [Self.localGallery])
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Kasa")
        #expect(outcome.calls["google"] == 1 && outcome.cost > .zero && outcome.probes["google"] == 4)
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("more than one place fits \"Kasa\" within 150 m") })
    }

    /// "rojosu" typed beside the museum Rojosu (20 m south of the user), which the local index lacks; the hotel it
    /// lists as "Rojosu Hotelli", which Google lists as "Rojosu Hotel", `metres` north of the user.
    static func rojosu(hotelNorthOfUser metres: Double) -> (hotel: Place, googleHotel: FakeGoogleTextSearch.Place,
                                                            museum: FakeGoogleTextSearch.Place) {
        let latitude = user.latitude + metres / 111_320
        return (Place(id: PlaceID(provider: "osm", nativeID: "node/304"), name: "Rojosu Hotelli",
                      coordinate: Coordinate(latitude: latitude, longitude: user.longitude), category: "hotel"),
                FakeGoogleTextSearch.Place(id: "ChIJrojosuhotel", name: "Rojosu Hotel", latitude: latitude, longitude: user.longitude,
                                           types: ["lodging"]),
                FakeGoogleTextSearch.Place(id: "ChIJrojosu", name: "Rojosu", latitude: user.latitude - 20 / 111_320.0,
                                           longitude: user.longitude, types: ["museum"]))
    }

    @Test("a candidate outside the square around the snapped point is not probed: a namesake inside it could be taken for it")
    func candidateOutsideTheSquarePays() async throws {
        // The square is centred 42 m south of the user (the point snapped to the 100 m grid); the hotel, listed in
        // Finnish by the local index and in English by Google, is 125 m north of the user (167 m from the centre),
        // the museum Rojosu the user means 20 m south.
        let (hotel, googleHotel, museum) = Self.rojosu(hotelNorthOfUser: 125)
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [googleHotel, museum]), local: [hotel])
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("rojosu")
        #expect(outcome.place?.id != hotel.id || !outcome.isAccepted)
        #expect(outcome.calls["google"] == 1 && outcome.probes["google"] == nil)
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("outside the square") })
    }

    @Test("the hotel inside the square beside the museum meant: dropping the unrelated result keeps both, and Google is paid")
    func droppingUnrelatedResultsKeepsTheNamesake() async throws {
        // The "rojosu" case with the candidate inside the square: 100 m north of its centre, 58 m north of the user;
        // the museum the user means 20 m south. Google lists the hotel under a name carrying the word typed, so
        // the square twice as wide returns it again and it is never dropped: two places stay.
        let (hotel, googleHotel, museum) = Self.rojosu(hotelNorthOfUser: 58)
        let world = FakeGoogleTextSearch(places: [googleHotel, museum, Self.googleUnrelatedFarther, Self.googleUnrelated], noise: 1)
        let rig = try await Self.rig(world, local: [hotel])
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("rojosu")
        #expect(outcome.calls["google"] == 1 && outcome.cost > .zero && outcome.probes["google"] == 4)
        #expect(outcome.steps.contains {
            $0.kind == .probed && $0.message.contains("more than one place fits \"rojosu\"") && $0.message.contains("1 loosely related")
        })
        #expect(outcome.place?.id != hotel.id || !outcome.isAccepted)
    }

    /// A place called "Mito" `east` metres east and `south` metres south of the user: the namesake the local index
    /// lacks, inside the square around the snapped point (42 m south of the user) either way.
    static func mito(east: Double, south: Double) -> FakeGoogleTextSearch.Place {
        FakeGoogleTextSearch.Place(id: "ChIJmitocorner", name: "Mito", latitude: user.latitude - south / 111_195,
                                   longitude: user.longitude + east / (111_195 * cos(user.latitude * .pi / 180)))
    }

    /// The premise of the two tests below, by the geometry alone: the namesake is inside the square (and the one
    /// twice as wide), and `metres` from the user.
    static func inTheSquare(_ place: FakeGoogleTextSearch.Place, metres: Double) -> Bool {
        let (low, high) = ProbeQuery(text: "Mito", center: LookupPolicy().grid.snap(user), halfSide: 150).corners
        let at = Coordinate(latitude: place.latitude, longitude: place.longitude)
        return (low.latitude...high.latitude).contains(at.latitude) && (low.longitude...high.longitude).contains(at.longitude)
            && abs(GeoMath.distance(user, at) - metres) < 2
    }

    @Test("a namesake in the square's corner, 170 m from the user: outside both rectangles around the user, dropped; accepted, $0")
    func namesakeBeyondTheReachIsDropped() async throws {
        let corner = Self.mito(east: 120, south: 120)
        #expect(Self.inTheSquare(corner, metres: 170))
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleBistro, corner]))
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Mito")
        #expect(outcome.isAccepted && outcome.place?.id == Self.localBistro.id)
        // The square, the square twice as wide, the two rectangles around the user, the candidate's own name.
        #expect(outcome.cost == .zero && outcome.calls["google"] == nil && outcome.probes["google"] == 5)
        #expect(Self.textQueries(rig.google) == ["Mito", "Mito", "Mito", "Mito", "Mito Bistro"])
        let centres = rig.google.requests.compactMap { request -> Double? in
            guard let rectangle = (request.jsonBody?["locationRestriction"] as? [String: Any])?["rectangle"] as? [String: Any],
                  let low = rectangle["low"] as? [String: Any], let high = rectangle["high"] as? [String: Any],
                  let south = low["latitude"] as? Double, let north = high["latitude"] as? Double else { return nil }
            return (south + north) / 2
        }
        // The rectangles are centred on the user's own point, the squares on the snapped one.
        #expect(centres.count == 5 && abs(centres[2] - Self.user.latitude) < 1e-9 && abs(centres[3] - Self.user.latitude) < 1e-9)
        #expect(abs(centres[0] - LookupPolicy().grid.snap(Self.user).latitude) < 1e-9)
        #expect(outcome.steps.contains {
            $0.kind == .probed && $0.message.contains("one place fits \"Mito\" within 150 m once 1 place(s) farther than 150 m")
        })
    }

    @Test("the same namesake 134 m from the user, inside one rectangle around the user: it stays, and Google is paid")
    func namesakeWithinTheReachPays() async throws {
        let near = Self.mito(east: 60, south: 120)
        #expect(Self.inTheSquare(near, metres: 134))
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleBistro, near]))
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Mito")
        #expect(outcome.calls["google"] == 1 && outcome.cost > .zero && outcome.probes["google"] == 4)
        #expect(outcome.steps.contains { $0.kind == .probed && $0.message.contains("more than one place fits \"Mito\" within 150 m; paying") })
    }

    @Test("with free probes off, the doubtful answer pays as before and no probe is sent")
    func probesOff() async throws {
        let rig = try await Self.rig(FakeGoogleTextSearch(places: [Self.googleBistro]), freeProbes: false)
        defer { Task { await rig.google.shutdown() } }
        let outcome = try await rig.lookup("Mito")
        #expect(outcome.calls["google"] == 1 && outcome.probes.isEmpty)
        #expect(rig.google.requests.allSatisfy { $0.header("X-Goog-FieldMask") != "places.id" })
    }
}

/// Which cheap candidates a probe may settle (``IDProbe/candidate``), with the production matcher.
@Suite("Free id probe: which candidates")
struct IDProbeCandidateTests {
    static let scorer = MatcherScorer(matcher: PlaceMatcher())
    static let user = FreeIDProbeTests.user

    static func candidate(_ typed: String, _ places: [Place], near: Coordinate? = user,
                          required: Set<PlaceField> = [.id, .name, .coordinate]) -> IDProbe.Candidate? {
        let query = MatchQuery(name: typed, near: near)
        let scored = zip(places, scorer.score(query, candidates: places)).map { (place: $0, score: $1) }
            .sorted { $0.score.score > $1.score.score }
        return IDProbe.candidate(query, scored: scored, provider: "local", scorer: scorer, required: required,
                                 merger: PlaceMerger(), clock: { Date(timeIntervalSince1970: 1_790_000_000) })
    }

    static func place(_ name: String, metres north: Double, category: String = "restaurant") -> Place {
        Place(id: PlaceID(provider: "osm", nativeID: name), name: name,
              coordinate: Coordinate(latitude: user.latitude + north / 111_320, longitude: user.longitude), category: category)
    }

    @Test("a bare name beside the one venue carrying it is probed, and settles as a match")
    func bareName() {
        let probed = Self.candidate("Mito", [Self.place("Mito Bistro", metres: 15)])
        #expect(probed?.place.name == "Mito Bistro" && probed?.settledScore.verdict == .match)
    }

    @Test("a bare name held by a venue whose other word the matcher keeps (nonMatch) is probed over 1 km")
    func bareNameHeldByTheName() throws {
        let probed = try #require(Self.candidate("Kasa", [Self.place("Kasa Studio", metres: 15, category: "gallery")]))
        #expect(probed.settledScore.verdict == .match && !probed.nameFits)
        #expect(IDProbe.halfSide(MatchQuery(name: "Kasa", near: Self.user), probed, policy: LookupPolicy()) == 1_000)
        // A nonMatch that does not hold every word typed is no candidate.
        #expect(Self.candidate("Kasi", [Self.place("Kasa Studio", metres: 15, category: "gallery")]) == nil)
        #expect(Self.candidate("Kasa Books", [Self.place("Kasa Studio", metres: 15, category: "gallery")]) == nil)
        // "Gallery" and "Sushi" are kind words: the bare name is `review` for those venues, and the square 150 m.
        for venue in ["Kasa Gallery", "Kasa Sushi"] {
            let beside = try #require(Self.candidate("Kasa", [Self.place(venue, metres: 15, category: venue.hasSuffix("Sushi") ? "restaurant" : "gallery")]))
            #expect(beside.nameFits && IDProbe.halfSide(MatchQuery(name: "Kasa", near: Self.user), beside, policy: LookupPolicy()) == 150)
        }
    }

    @Test("a name typed as listed is already a match: nothing to probe")
    func exactName() {
        #expect(Self.candidate("Mito Bistro", [Self.place("Mito Bistro", metres: 15)]) == nil)
    }

    @Test("a candidate too far to be a match by its own name is not probed")
    func tooFar() {
        #expect(Self.candidate("Mito", [Self.place("Mito Bistro", metres: 1_500)]) == nil)
    }

    @Test("the square is 150 m for the candidate's own words nearby, 1 km for a slip or a candidate farther off")
    func reach() throws {
        let policy = LookupPolicy()
        func listed(_ place: Place) -> IDProbe.Candidate {
            IDProbe.Candidate(place: place, provider: "local", score: CandidateScore(score: 0.8, verdict: .review),
                              settledScore: CandidateScore(score: 1, verdict: .match))
        }
        let near = listed(Self.place("Mito Bistro", metres: 15)), far = listed(Self.place("Mito Bistro", metres: 400))
        let query = MatchQuery(name: "Mito", near: Self.user)
        #expect(IDProbe.halfSide(query, near, policy: policy) == 150)
        #expect(IDProbe.halfSide(query, far, policy: policy) == 1_000)
        #expect(IDProbe.halfSide(MatchQuery(name: "Mtio", near: Self.user), near, policy: policy) == 1_000)
        // Probed at 400 m all the same: by its own name it is an exact name no other candidate shares within 1 km.
        #expect(try #require(Self.candidate("Mito", [far.place])).settledScore.verdict == .match)
    }

    @Test("an ambiguous question is not probed: the cheap source already shows two places")
    func ambiguous() {
        #expect(Self.candidate("Mito", [Self.place("Mito Bistro", metres: 15), Self.place("Mito Grill", metres: 20)]) == nil)
    }

    @Test("no point, no area to probe")
    func withoutAPoint() {
        #expect(Self.candidate("Mito", [Self.place("Mito Bistro", metres: 15)], near: nil) == nil)
    }

    @Test("a candidate lacking a required field is not probed: the paid call is needed anyway")
    func missingField() {
        #expect(Self.candidate("Mito", [Self.place("Mito Bistro", metres: 15)], required: [.id, .name, .coordinate, .phone]) == nil)
    }

    @Test("the two rectangles around the user hold every point within the reach of it; a point a tenth beyond, on the diagonal, is in neither")
    func crossHoldsTheDisc() {
        for reach in [150.0, 1_000] {
            let arms = IDProbe.cross("Mito", around: Self.user, reach: reach).map(\.corners)
            func inside(_ point: Coordinate) -> Bool {
                arms.contains { point.latitude >= $0.low.latitude && point.latitude <= $0.high.latitude
                    && point.longitude >= $0.low.longitude && point.longitude <= $0.high.longitude }
            }
            for degrees in stride(from: 0.0, to: 360, by: 0.5) {
                let angle = degrees * .pi / 180
                let north = reach * cos(angle), east = reach * sin(angle)
                let point = Coordinate(latitude: Self.user.latitude + north / 111_195,
                                       longitude: Self.user.longitude + east / (111_195 * cos(Self.user.latitude * .pi / 180)))
                #expect(inside(point), "\(degrees)° at \(reach) m")
                #expect(GeoMath.distance(Self.user, point) <= reach * 1.005)
            }
            // A point on the diagonal a tenth beyond the reach is in neither.
            let beyond = reach * 1.1 / 2.squareRoot()
            #expect(!inside(Coordinate(latitude: Self.user.latitude + beyond / 111_195,
                                       longitude: Self.user.longitude + beyond / (111_195 * cos(Self.user.latitude * .pi / 180)))))
        }
    }

    @Test("a probe's key holds its exact centre and shape: two points of one grid cell, or a square and a rectangle, differ")
    func probeKeys() {
        let grid = LookupPolicy().grid
        let centre = grid.snap(Self.user)
        let square = ProbeQuery(text: "Mito", center: centre, halfSide: 150, limit: 20)
        // A snapped centre keys as it did when the key snapped it.
        #expect(square.canonicalForm(grid: grid).contains("at=\(String(format: "%.6f,%.6f", centre.latitude, centre.longitude))|"))
        var atUser = square
        atUser.center = Self.user
        var tall = square
        tall.halfHeight = 106
        #expect(Set([square, atUser, tall].map { $0.canonicalForm(grid: grid) }).count == 3)
        let (low, high) = tall.corners
        #expect(abs(GeoMath.distance(centre, Coordinate(latitude: high.latitude, longitude: centre.longitude)) - 106) < 1)
        #expect(abs(GeoMath.distance(centre, Coordinate(latitude: centre.latitude, longitude: low.longitude)) - 150) < 1)
    }

    @Test("the probe asks for ids only, at $0, in a square around the point")
    func probeShape() {
        let query = ProbeQuery(text: "Mito", center: Self.user, halfSide: 1_000)
        let (low, high) = query.corners
        #expect(abs(GeoMath.distance(Self.user, Coordinate(latitude: high.latitude, longitude: Self.user.longitude)) - 1_000) < 5)
        #expect(abs(GeoMath.distance(Self.user, Coordinate(latitude: Self.user.latitude, longitude: low.longitude)) - 1_000) < 5)
        #expect(GoogleFieldMask.idsOnlySearchMask == "places.id")
        let client = HTTPClient(configuration: HTTPClientConfiguration(
            provider: "google", baseURL: URL(string: "http://127.0.0.1:9")!, timeout: 1,
            userAgent: UserAgent.make(product: "places/0.0.0-test"), retry: RetryPolicy(maxAttempts: 1), secrets: []),
                                errorReader: GoogleProvider.errorReader)
        let google = GoogleProvider(client: client)
        #expect(IDProbe.offered(by: google) && google.price(of: .probe, fields: [.id]).cost == .zero)
        let priced = GoogleProvider(client: client, prices: PriceTable(provider: "google", dollarsPerThousand: ["search.ids-only": 1]))
        #expect(!IDProbe.offered(by: priced))
    }
}
