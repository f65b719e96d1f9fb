import Foundation
import PlaceIndex
import PlacesCore
import ScratchDirectory
import Testing

/// A serving process (`places serve`) remembers what its searches asked the index about words (how many places a
/// word is in, whether a name is a city's) for as long as the index file does not change. Its answers must be
/// those of a one-command process reading the same file, before and after an import.
@Suite struct ServedSearchTests {
    /// The ranking fixture in a file, opened as `places serve` opens it and as one command does.
    private func servedAndRead(in scratch: ScratchDirectory) throws -> (served: PlaceIndexStore, read: PlaceIndexStore) {
        let path = scratch.appendingPathComponent("index.sqlite")
        let served = try PlaceIndexStore(path: path, keepInMemory: true)
        try SearchRankingTests.fill(served)
        return (served, try PlaceIndexStore(path: path, concurrentReaders: false))
    }

    /// What a user sees of a search: the places in order, the other name that matched, whether a typo was corrected.
    private func shown(_ places: [Place]) -> [String] {
        places.map { "\($0.id) \($0.searchMatch?.matchedName ?? "-") \($0.searchMatch?.fuzzy == true)" }
    }

    @Test func aServingIndexFindsWhatOneCommandFinds() throws {
        let scratch = try ScratchDirectory("places-served-search")
        let (served, read) = try servedAndRead(in: scratch)
        let here = SearchRankingTests.helsinki
        // Category words with a name, city names, addresses with and without a city, beginnings, typos, nothing.
        let queries = ["maya bar", "paris", "pharmacy", "pharmacy kaivo", "bar", "tukholma", "Mikonkatu 18, Helsinki",
                       "mikonkatu 18, Tampere", "kiasm", "kaisma", "maya grll", "r kioski", "qqqqzz", "paris bar"]
        for query in queries {
            for near in [nil, here] {
                let expected = shown(try read.search(text: query, near: near))
                // Twice: the second search answers its questions about the words from memory.
                #expect(shown(try served.search(text: query, near: near)) == expected, "\(query) near \(String(describing: near))")
                #expect(shown(try served.search(text: query, near: near)) == expected, "\(query) near \(String(describing: near)), again")
            }
        }
        for prefix in ["tukh", "p", "k", "ma", "maya g"] {
            #expect(try served.suggest(prefix: prefix, near: here).map(\.id) == read.suggest(prefix: prefix, near: here).map(\.id), "\(prefix)")
            #expect(try served.suggest(prefix: prefix, near: here).map(\.id) == read.suggest(prefix: prefix, near: here).map(\.id), "\(prefix)")
        }
    }

    @Test func aServingIndexFindsWhatAnImportAddedAfterASearchFoundNothing() throws {
        let scratch = try ScratchDirectory("places-served-import")
        let (served, _) = try servedAndRead(in: scratch)
        // "zorbas" is neither an indexed word nor the beginning of one, and no indexed word is one typo from it.
        #expect(try served.search(text: "zorbas", near: SearchRankingTests.helsinki).isEmpty)
        let taverna = Place(id: PlaceID(provider: "osm", nativeID: "node/30"), name: "Zorbastikos",
                            coordinate: SearchRankingTests.helsinki, categories: ["amenity=restaurant"], category: "restaurant")
        try served.write { writer in
            try writer.insert(taverna, kind: .poi, source: "more", keywords: ["restaurant"], importance: 0.1)
            try writer.finishSource("more", kind: "osm.pbf", places: 1, cities: 0)
        }
        // Found as the beginning of its name (not as a corrected typo): the search knows the word begins one now.
        let found = try served.search(text: "zorbas", near: SearchRankingTests.helsinki)
        #expect(shown(found) == ["osm:node/30 - false"])
    }
}
