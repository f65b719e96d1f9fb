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
