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

    private struct Summary: Equatable {
        var place: Place?
        var kind: OSMPlaceExtractor.IndexedKind?
        var keywords: [String]
        var rawPhone: String?
        var alternateNames: [String]
        var importance: Double
        var country: String?
    }

    private static func summary(_ tagged: OSMPlaceExtractor.Tagged?) -> Summary? {
        tagged.map { tagged in
            Summary(place: tagged.candidate?.place, kind: tagged.candidate?.kind, keywords: tagged.candidate?.keywords ?? [], rawPhone: tagged.candidate?.rawPhone,
                    alternateNames: tagged.candidate?.alternateNames ?? [], importance: tagged.candidate?.importance ?? 0,
                    country: tagged.country)
        }
    }
}
