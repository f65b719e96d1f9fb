import Foundation
@testable import LocalProvider
import PlacesCore
import Testing

@Suite struct OSMPlaceExtractorTests {
    /// An import decodes only the tags `OSMPlaceExtractor.readsTag` keeps. Over every object of the bundled
    /// extract, what the tags make of an object is the same with all its tags and with only those: a tag read
    /// in `tagged` but missing from the list would change a place here.
    @Test func theKeptTagsMakeTheSamePlacesAsAllTags() throws {
        var compared = 0, candidates = 0
        try OSMPBFReader(url: TestData.helsinkiPBF).forEachElement { element in
            let kept: OSMElement
            switch element {
            case .node(var node): node.tags = node.tags.filter { OSMPlaceExtractor.readsTag($0.key) }; kept = .node(node)
            case .way(var way): way.tags = way.tags.filter { OSMPlaceExtractor.readsTag($0.key) }; kept = .way(way)
            case .relation(var relation):
                relation.tags = relation.tags.filter { OSMPlaceExtractor.readsTag($0.key) }
                kept = .relation(relation)
            }
            let full = Self.summary(OSMPlaceExtractor.tagged(element)), filtered = Self.summary(OSMPlaceExtractor.tagged(kept))
            #expect(full == filtered, "\(element.type)/\(element.id)")
            compared += 1
            if full?.place != nil { candidates += 1 }
        }
        #expect(compared == 30_010)
        // 1,467 places and 500 address points, as the importer counts them (shared/data/README.md, pyosmium).
        #expect(candidates >= 1_967)
    }

    /// An import's selection (`OSMPlaceExtractor.tagSelection`) refuses an object's tags from its keys alone:
    /// over every object of the bundled extract, what `tagged` makes of a refused object is nothing, and the
    /// selection refuses most tagged objects.
    @Test func objectsTheSelectionRefusesMakeNothing() throws {
        let selection = OSMPlaceExtractor.tagSelection
        var refused = 0, kept = 0
        try OSMPBFReader(url: TestData.helsinkiPBF).forEachElement { element in
            let tags = element.tags.filter { selection.mark($0.key) != nil }
            guard !tags.isEmpty else { return }
            let marks = tags.keys.reduce(UInt8(0)) { $0 | selection.mark($1)! }
            if selection.keepsObject(marks) {
                kept += 1
            } else {
                refused += 1
                #expect(OSMPlaceExtractor.tagged(element) == nil, "\(element.type)/\(element.id)")
            }
        }
        #expect(refused > kept)
        #expect(kept >= 1_967)
    }

    /// The file's country, for phone numbers without a prefix, is the one its addresses name most; when two lead
    /// equally there is none (the numbers stay as written), whatever order the votes were counted in.
    @Test func theFilesCountryIsTheOneItsAddressesNameMostAndNoneOnATie() {
        func extractor(consuming countries: [String]) -> OSMPlaceExtractor {
            var extractor = OSMPlaceExtractor()
            for (offset, country) in countries.enumerated() {
                let node = OSMElement.node(OSMNode(id: Int64(offset + 1), latitude: 60.17, longitude: 24.94,
                                                   tags: ["addr:country": country]))
                _ = extractor.consume(node, tagged: OSMPlaceExtractor.tagged(node))
            }
            return extractor
        }
        #expect(extractor(consuming: []).fileCountry == nil)
        #expect(extractor(consuming: ["SE", "FI", "FI"]).fileCountry == "FI")
        #expect(extractor(consuming: ["FI", "SE", "FI", "SE"]).fileCountry == nil)
        #expect(extractor(consuming: ["SE", "FI", "SE", "FI"]).fileCountry == nil)
        #expect(extractor(consuming: ["EE", "SE", "FI", "SE", "FI", "FI"]).fileCountry == "FI")
    }

    /// A street is mapped as many ways; it is one place per name within reach, placed on itself. Pohjoisesplanadi is 7
    /// ways in the extract (osmium: w24336395, w24336544, w24336602, w30528412, w75507121, w75507125, w211460772), all
    /// within a kilometre; the first, w24336395 (`highway=primary`, `name:sv=Norra Esplanaden`), has 7 nodes, and its
    /// middle one, n264005640, is at 60.1677926, 24.9526419 (`osmium getid`).
    @Test func aStreetOfManyWaysIsOnePlaceOnItself() throws {
        let candidates = try Self.candidates()
        let streets = candidates.filter { $0.kind == .street && $0.place.name == "Pohjoisesplanadi" }
        #expect(streets.map(\.place.id.description) == ["osm:way/24336395"])
        let street = try #require(streets.first)
        #expect(abs(street.place.coordinate.latitude - 60.1677926) < 1e-7 && abs(street.place.coordinate.longitude - 24.9526419) < 1e-7)
        #expect(street.place.categories == ["street", "highway=primary"])
        #expect(street.alternateNames.contains("Norra Esplanaden"))
        // It names no city; the addresses around it do: 1,677 of the extract's objects say addr:city=Helsinki, 8
        // something else ("7", "Helsingin kaupunki"; osmium).
        #expect(street.place.address?.city == "Helsinki")
        // A named bus stop (n175881540, "Postitalo", `highway=bus_stop`) is not a street.
        #expect(!candidates.contains { $0.place.id.description == "osm:node/175881540" })
    }

    /// Parts of the city by name (osmium): Kluuvi is a `place=suburb` node (n1376356019) and a district boundary of
    /// the same name (r184713, admin_level 10): one place, the node. Kamppi is a boundary only (r184714, admin_level
    /// 10, `name:sv=Kampen`). Narinkkatori (w4369051) is a `place=square` that is also a pedestrian way: a square.
    /// Helsinki's `place=city` node (n1372477580) is left to GeoNames.
    @Test func partsOfTheCityAreOnePlaceEach() throws {
        let areas = try Self.candidates().filter { $0.kind == .area }
        let ids = Set(areas.map(\.place.id.description))
        #expect(ids.contains("osm:node/1376356019"))
        #expect(!ids.contains("osm:relation/184713"))
        let kamppi = try #require(areas.first { $0.place.id.description == "osm:relation/184714" })
        #expect(kamppi.place.name == "Kamppi")
        #expect(kamppi.place.categories == ["neighbourhood", "boundary=administrative"])
        #expect(kamppi.alternateNames.contains("Kampen"))
        #expect(areas.first { $0.place.id.description == "osm:way/4369051" }?.place.categories == ["square", "place=square"])
        #expect(!ids.contains("osm:node/1372477580"))
    }

    /// Two streets of one name are two places when they lie farther apart than a street's reach (1.5 km), and
    /// one when closer: 0.009° of latitude is ~1 km, 0.018° ~2 km.
    @Test func streetsOfOneNameFarApartAreTwoPlaces() {
        var extractor = OSMPlaceExtractor()
        let latitudes = [60.170, 60.171, 60.179, 60.180, 60.188, 60.189]
        extractor.record(OSMNodePositions(ids: ArraySlice(1...6), latitudes: ArraySlice(latitudes),
                                          longitudes: ArraySlice(repeating: 24.94, count: 6)))
        let placed = [(10, [1, 2]), (11, [3, 4]), (12, [5, 6])].compactMap { id, nodes -> String? in
            let way = OSMElement.way(OSMWay(id: Int64(id), nodeRefs: nodes.map(Int64.init),
                                            tags: ["highway": "residential", "name": "Kalevankatu"]))
            return extractor.consume(way, tagged: OSMPlaceExtractor.tagged(way))?.place.id.description
        }
        // Way 11 lies ~1 km from way 10; way 12 ~2 km from way 10 (and ~1 km from 11, which made no place).
        #expect(placed == ["osm:way/10", "osm:way/12"])
    }

    /// A postcode is a place at the mean position of the addresses that name it, in the city they name most; an
    /// address naming two ("00100;00120") counts for both, and text that is no postcode makes none. The same code
    /// 150 km away (1.5° of latitude; the reach is 30 km) is another place.
    @Test func postcodesArePlacesWhereTheirAddressesAre() {
        var extractor = OSMPlaceExtractor()
        let addresses: [(Double, String, String)] = [
            (60.0, "00100", "Helsinki"), (60.2, "00100", "Helsinki"), (60.1, "00100;00120", "Helsingfors"), (60.3, "n/a", "Helsinki"),
            (60.4, " sw1a   1aa ", "London"), (61.5, "00100", "Tampere"),
        ]
        for (offset, (latitude, postcode, city)) in addresses.enumerated() {
            let node = OSMElement.node(OSMNode(id: Int64(offset + 1), latitude: latitude, longitude: 24.9, tags: [
                "addr:street": "Mikonkatu", "addr:housenumber": "\(offset + 1)", "addr:postcode": postcode, "addr:city": city,
            ]))
            _ = extractor.consume(node, tagged: OSMPlaceExtractor.tagged(node))
        }
        let postcodes = extractor.postcodeCandidates()
        #expect(postcodes.map(\.place.name) == ["00100", "00100", "00120", "SW1A 1AA"])
        #expect(postcodes.allSatisfy { $0.kind == .area && $0.place.categories == ["postcode"] })
        #expect(postcodes.map(\.place.id.description)
                == ["osm:postcode/00100", "osm:postcode/00100/2", "osm:postcode/00120", "osm:postcode/SW1A 1AA"])
        #expect(abs(postcodes[0].place.coordinate.latitude - 60.1) < 1e-9)
        #expect(abs(postcodes[1].place.coordinate.latitude - 61.5) < 1e-9)
        #expect(postcodes.map(\.place.address?.city) == ["Helsinki", "Tampere", "Helsingfors", "London"])
    }

    /// Every candidate an import makes of the bundled extract, read as ``LocalImporter`` reads it.
    private static func candidates() throws -> [OSMPlaceExtractor.Candidate] {
        let reader = try OSMPBFReader(url: TestData.helsinkiPBF)
        var extractor = OSMPlaceExtractor(fileSize: reader.fileSize)
        var found: [OSMPlaceExtractor.Candidate] = []
        try reader.forEachElement(selectingTags: OSMPlaceExtractor.tagSelection, nodePositions: { extractor.record($0) },
                                  preparing: OSMPlaceExtractor.tagged) { element, tagged in
            if let candidate = extractor.consume(element, tagged: tagged) { found.append(candidate) }
        }
        return found
    }

    private struct Summary: Equatable {
        var place: Place?
        var kind: OSMPlaceExtractor.IndexedKind?
        var keywords: [String]
        var rawPhone: String?
        var alternateNames: [String]
        /// A street's or an area's name, kind, label, tag, importance, same-name key, other-name tags and address.
        var feature: String?
        var importance: Double
        var country: String?
    }

    private static func summary(_ tagged: OSMPlaceExtractor.Tagged?) -> Summary? {
        tagged.map { tagged in
            Summary(place: tagged.candidate?.place, kind: tagged.candidate?.kind, keywords: tagged.candidate?.keywords ?? [], rawPhone: tagged.candidate?.rawPhone,
                    alternateNames: tagged.candidate?.alternateNames ?? [],
                    feature: tagged.feature.map { feature in
                        "\(feature.name) \(feature.kind) \(feature.label) \(feature.tag) \(feature.importance) \(feature.sameNameKey) "
                            + "\(feature.alternateNameTags.map { "\($0.key)=\($0.value)" }) \(String(describing: feature.address))"
                    },
                    importance: tagged.candidate?.importance ?? 0,
                    country: tagged.country)
        }
    }
}
