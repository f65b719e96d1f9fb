import Foundation
import LocalProvider
import PlaceIndex
@testable import PlacesApp
import PlacesCore
import PlacesHours
@testable import PlacesPipeline
import Testing

/// The hand-written ``JSONWriter`` must print exactly what Foundation's `JSONEncoder` prints for the same
/// value through ``PlacesJSON/encoder(pretty:)`` (the `Encodable` conformances are the reference), for every
/// result shape the CLI and the server print, over every place of the bundled Helsinki extract and
/// hand-made edge cases, compact and pretty.
@Suite struct JSONWriterParityTests {
    /// A fixed instant, so `open_now` and `next_change` are the same in both encodings.
    static let moment = Date(timeIntervalSince1970: 1_763_900_000.75)  // 2025-11-23, a Sunday
    static let reference = Coordinate(latitude: 60.1699, longitude: 24.9384)

    static let bundledPlaces: [Place] = {
        do {
            let index = try PlaceIndexStore.inMemory()
            _ = try LocalImporter(index: index).importFile(try EmbeddedData.url("helsinki.osm.pbf"))
            return try index.nearby(center: reference, radius: 50_000, limit: 100_000)
        } catch {
            Issue.record("cannot import the bundled extract: \(error)")
            return []
        }
    }()

    static var edgeCases: [Place] {
        let fetched = Date(timeIntervalSince1970: 1_700_000_000.999)
        var everything = Place(
            id: PlaceID(provider: "google", nativeID: "ChIJ\"quoted\"\\back/slash"),
            name: "Café \"Kaffa\" \\ Roastery / Bar 😀 \u{0}\u{1}\u{8}\t\n\u{c}\r\u{1f}\u{7f}\u{2028}\u{85}é",
            coordinate: Coordinate(latitude: -89.999999999, longitude: 179.99999999999997),
            address: PostalAddress(houseNumber: "12 A", street: "Pursimiehenkatu", unit: "B 4", postcode: "00150",
                                   city: "Helsinki", district: "Punavuori", region: "Uusimaa", countryCode: "FI"),
            formattedAddress: "Pursimiehenkatu 12 A\n00150 Helsinki", phone: "+358 9 123 4567",
            website: "https://example.com/a?b=c&d=\"e\"", categories: ["cafe", "bar", "ünïcödé"], category: "cafe",
            brand: "Kaffa", openingHoursText: "Mo-Fr 08:00-18:00; Sa 10:00-02:00 \"late\"; PH off",
            timeZone: "Europe/Helsinki", rating: 4.5, ratingCount: 1_234, status: .operational,
            attribution: "© OpenStreetMap contributors",
            alternateIDs: [PlaceID(provider: "yelp", nativeID: "kaffa-helsinki"), PlaceID(provider: "osm", nativeID: "node/1")],
            provenance: [.phone: FieldSource(provider: "google", fetchedAt: fetched),
                         .name: FieldSource(provider: "yelp", fetchedAt: Date(timeIntervalSince1970: 0)),
                         .timeZone: FieldSource(provider: "local", fetchedAt: fetched)])
        everything.searchMatch = SearchMatch(matchedName: "Kaffa\u{0}", fuzzy: true)
        var closed = everything
        closed.status = .closedPermanently
        closed.rating = 1e-7
        closed.ratingCount = -1
        var periods = Place(id: PlaceID(provider: "google", nativeID: "p"), name: "Periods", coordinate: Coordinate(latitude: 0, longitude: -0.0),
                            openingPeriods: [WeeklyOpenPeriod(open: WeekTime(weekday: 1, minute: 0), close: nil),
                                             WeeklyOpenPeriod(open: WeekTime(weekday: 3, minute: 600), close: WeekTime(weekday: 4, minute: 120))],
                            utcOffsetMinutes: 330, rating: 100, status: .closedTemporarily)
        periods.searchMatch = SearchMatch(matchedName: nil, fuzzy: false)
        let bare = Place(id: PlaceID(provider: "osm", nativeID: "node/2"), name: "", coordinate: Coordinate(latitude: 1e-5, longitude: 123_456.789))
        let unparsable = Place(id: PlaceID(provider: "osm", nativeID: "way/3"), name: "Broken hours", coordinate: Coordinate(latitude: 60, longitude: 25),
                               openingHoursText: "Mo-Fr 9-5 \"ask\" sometimes", timeZone: "Not/AZone")
        let comment = Place(id: PlaceID(provider: "osm", nativeID: "way/4"), name: "Comment", coordinate: Coordinate(latitude: 60, longitude: 25),
                            openingHoursText: "\"by appointment\"", timeZone: "Europe/Helsinki")
        return [everything, closed, periods, bare, unparsable, comment]
    }

    static var corpus: [Place] { bundledPlaces + edgeCases }

    private func expectSame(_ written: Data, _ encoded: Data, _ what: @autoclosure () -> String) {
        if written != encoded {
            Issue.record("""
                \(what()) differs:
                writer:      \(String(decoding: written, as: UTF8.self))
                JSONEncoder: \(String(decoding: encoded, as: UTF8.self))
                """)
        }
    }

    @Test func theBundledExtractIsAllThere() {
        #expect(Self.bundledPlaces.count > 1_400)  // 1,467 named places (LocalImporterTests counts them with pyosmium)
    }

    @Test(arguments: [false, true]) func everyPlaceAlone(pretty: Bool) throws {
        for place in Self.corpus {
            for reference in [nil, Self.reference] {
                let json = PlaceJSON(place, reference: reference, at: Self.moment)
                expectSame(try PlacesJSON.place(place, reference: reference, at: Self.moment, pretty: pretty),
                           try PlacesJSON.encode(json, pretty: pretty), "\(place.id) pretty \(pretty)")
            }
        }
    }

    @Test(arguments: [false, true]) func searchResultsAndGeoJSON(pretty: Bool) throws {
        struct Geometry: Encodable { let type = "Point"; let coordinates: [Double] }
        struct Feature: Encodable { let type = "Feature"; let id: String; let geometry: Geometry; let properties: PlaceJSON }
        struct Collection: Encodable { let type = "FeatureCollection"; let features: [Feature] }
        for places in [[], Array(Self.corpus.prefix(40)), Self.edgeCases] {
            // `places` evaluates hours at the moment it writes; both encodings run within the same minute.
            let moment = Date()
            let expected = try PlacesJSON.encode(places.map { PlaceJSON($0, reference: Self.reference, at: moment) }, pretty: pretty)
            let written = try PlacesJSON.places(places, reference: Self.reference, pretty: pretty)
            let geoExpected = try PlacesJSON.encode(Collection(features: places.map {
                // GeoJSON coordinates have 7 decimals, as every coordinate in docs/json.md.
                Feature(id: $0.id.description, geometry: Geometry(coordinates: [PlacesJSON.degrees($0.coordinate.longitude),
                                                                                PlacesJSON.degrees($0.coordinate.latitude)]),
                        properties: PlaceJSON($0, reference: Self.reference, at: moment))
            }), pretty: pretty)
            let geoWritten = try PlacesJSON.geoJSON(places, reference: Self.reference, pretty: pretty)
            // A minute boundary between the two encodings may change `open_now`; only then may they differ.
            guard Calendar.current.component(.minute, from: Date()) == Calendar.current.component(.minute, from: moment) else { continue }
            expectSame(written, expected, "places list of \(places.count) pretty \(pretty)")
            expectSame(geoWritten, geoExpected, "GeoJSON of \(places.count) pretty \(pretty)")
        }
    }

    @Test(arguments: [false, true]) func reverseAndSuggestions(pretty: Bool) throws {
        for place in Self.edgeCases + Array(Self.bundledPlaces.prefix(20)) {
            let answers = [
                ReverseGeocode(coordinate: place.coordinate),
                ReverseGeocode(coordinate: Self.reference, nearest: place, nearestDistance: 12.345_67, city: "Helsinki \"HKI\"",
                               cityID: PlaceID(provider: "geonames", nativeID: "658225"), region: "Uusimaa", countryCode: "FI",
                               timeZone: "Europe/Helsinki", attribution: "GeoNames / OSM"),
            ]
            for answer in answers {
                expectSame(try PlacesJSON.reverse(answer, pretty: pretty), try PlacesJSON.encode(ReverseJSON(answer), pretty: pretty),
                           "reverse \(place.id)")
            }
        }
        let suggestions = [
            Suggestion(text: "Maya \"Bar\"\n"),
            Suggestion(text: "Kaffa", secondaryText: "Helsinki / Punavuori", placeID: PlaceID(provider: "osm", nativeID: "node/9"),
                       coordinate: Coordinate(latitude: 60.1634, longitude: 24.94)),
            Suggestion(text: "😀", coordinate: Coordinate(latitude: -0.0, longitude: 1e21)),
        ]
        for list in [[], suggestions] {
            expectSame(try PlacesJSON.suggestions(list, pretty: pretty),
                       try PlacesJSON.encode(list.map(SuggestionJSON.init), pretty: pretty), "suggestions")
        }
    }

    static func outcomes(_ place: Place?) -> [LookupOutcome] {
        let steps = [LookupStep(.cache, "miss"), LookupStep(.stopped, "accepted \"x\"\tdone")]
        var outcomes = [
            LookupOutcome(place: place, match: CandidateScore(score: 0.912_345, verdict: .match), cost: MicroDollars(41_990),
                          cache: .miss, budgetExhausted: false, budgetNote: nil, stopReason: .accepted,
                          calls: ["google": 1, "local": 1, "yelp": 2, "Zeta": 0], failures: [ProviderFailure(provider: "yelp", message: "503 \"busy\"")],
                          answeredBy: "google", coalesced: false, steps: steps),
            LookupOutcome(place: place, match: nil, cost: .zero, cache: .hit, budgetExhausted: true, budgetNote: "n",
                          stopReason: .cacheHit, calls: [:], failures: [], answeredBy: "cache", coalesced: true, steps: []),
            LookupOutcome(place: place, match: CandidateScore(score: 0.5, verdict: .review, ambiguous: true), cost: MicroDollars(1),
                          cache: .stale, budgetExhausted: false, budgetNote: nil, stopReason: .ambiguous, calls: ["local": 1],
                          failures: [], answeredBy: nil, coalesced: false, steps: steps,
                          ambiguousCandidates: Self.edgeCases + [Self.bundledPlaces.first].compactMap { $0 }),
        ]
        outcomes.append(LookupOutcome(place: nil, match: nil, cost: .zero, cache: .miss, budgetExhausted: false, budgetNote: nil,
                                      stopReason: .chainExhausted, calls: [:], failures: [], answeredBy: nil, coalesced: false, steps: []))
        return outcomes
    }

    @Test(arguments: [false, true]) func lookupResultsAndBatchLines(pretty: Bool) throws {
        for place in Self.edgeCases + Array(Self.bundledPlaces.prefix(30)) {
            for outcome in Self.outcomes(place) {
                for (reference, explain) in [(nil, false), (Self.reference, true)] as [(Coordinate?, Bool)] {
                    let moment = Date()
                    let written = try PlacesJSON.lookup(outcome, reference: reference, explain: explain, pretty: pretty)
                    let expected = try PlacesJSON.encode(LookupJSON(outcome, reference: reference, explain: explain), pretty: pretty)
                    if written != expected, Calendar.current.component(.minute, from: Date()) == Calendar.current.component(.minute, from: moment) {
                        expectSame(written, expected, "lookup \(place.id) \(outcome.cache)")
                    }
                }
                if !pretty {
                    let row = BatchRow(id: "row \"1\"", query: MatchQuery(name: place.name, near: Self.reference))
                    for result in [BatchRowResult(row: row, outcome: outcome, failure: nil),
                                   BatchRowResult(row: row, outcome: outcome, failure: "budget \"denied\""),
                                   BatchRowResult(row: row, outcome: nil, failure: "storage unavailable")] {
                        let moment = Date()
                        let written = try PlacesJSON.batchLine(result)
                        let expected = try PlacesJSON.encode(BatchLineJSON(result))
                        if written != expected, Calendar.current.component(.minute, from: Date()) == Calendar.current.component(.minute, from: moment) {
                            expectSame(written, expected, "batch line \(place.id)")
                        }
                    }
                }
            }
        }
    }

    @Test(arguments: [false, true]) func hoursReports(pretty: Bool) throws {
        let zones = [nil, TimeZone(identifier: "Europe/Helsinki"), TimeZone(identifier: "America/New_York")]
        let specs = ["Mo-Fr 09:00-19:00; Sa 09:00-18:00; PH off", "24/7", "Mo-Su 22:00-04:00", "Tu 10:00-12:00 \"call\"",
                     "sunrise-sunset", "garbage ¤ text", "Mo-Fr 08:00-12:00,13:00-17:00; Su off \"closed\\sunday\"", ""]
        for spec in specs {
            for zone in zones {
                let report = HoursReport.evaluate(OpeningHours(osm: spec), at: Self.moment, timeZone: zone)
                expectSame(PlacesJSON.hours(report, pretty: pretty), try PlacesJSON.encode(report, pretty: pretty), "hours \(spec)")
            }
        }
    }

    /// The escaping and number rules, checked against hand-written expectations rather than the encoder.
    @Test func escapingAndNumbersAreTheDocumentedOnes() {
        var writer = JSONWriter()
        writer.beginArray()
        writer.value("a\"b\\c/d\u{0}\u{8}\t\n\u{c}\r\u{1f}\u{7f}é😀")
        for number in [1.0, -0.0, 0.1 + 0.2, 1e-5, 1e16, 60.1721, 100] { writer.value(number) }
        writer.value(Double.nan)
        writer.value(Date(timeIntervalSince1970: 1_700_000_000.999))
        writer.value(-42)
        writer.endArray()
        #expect(String(decoding: writer.bytes, as: UTF8.self)
            == #"["a\"b\\c/d\u0000\b\t\n\f\r\u001f"# + "\u{7f}é😀\"," + #"1,-0,0.30000000000000004,1e-05,1e+16,60.1721,100,null,"2023-11-14T22:13:20Z",-42]"#)
    }
}
