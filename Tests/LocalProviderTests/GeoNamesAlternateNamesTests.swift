import Foundation
@testable import LocalProvider
import PlacesCore
import Testing

/// A dump's alternate names are cut at their commas byte by byte; what a search finds depends on the pieces, so they
/// must be the ones Swift's own Character-wise `split(separator: ",")` (the reference) cuts.
@Suite struct GeoNamesAlternateNamesTests {
    static func record(alternateNames: String) throws -> GeoNamesRecord {
        let columns = ["658225", "Helsinki", "Helsinki", alternateNames, "60.16952", "24.93545", "P", "PPLC", "FI", "", "01",
                       "", "", "", "558457", "", "26", "Europe/Helsinki", "2024-01-01"]
        let line = Array(columns.joined(separator: "\t").utf8)
        return try #require(try line.withUnsafeBytes { try GeoNamesReader.parse($0, lineNumber: 1, fileName: "test.txt") })
    }

    @Test(arguments: [
        "Helsingfors,Helsinki,Khel'sinki,Хельсинки,ヘルシンキ,赫尔辛基",
        ",,Helsingfors,,Stadi,",
        "",
        ",",
        "Hélsinki, Helsinki ,Helsinkі",
        // A combining acute accent right after a comma joins it into one Character: no cut there.
        "Helsinki,\u{301}Stadi,Helsingfors",
        // An Arabic number sign (a prepended mark) right before a comma joins it too.
        "Helsinki\u{600},Stadi,Helsingfors",
        // A zero-width joiner after a comma, an emoji modifier, a Devanagari vowel sign (a spacing mark).
        "a,\u{200D}b,c", "a,\u{1F3FB}b", "क,\u{93F}ख,ग",
    ])
    func piecesAreThoseOfACharacterWiseSplit(alternateNames: String) throws {
        let record = try Self.record(alternateNames: alternateNames)
        let expected = alternateNames.split(separator: ",").map { Array($0.unicodeScalars) }
        #expect(record.alternateNameCandidates.map { Array($0.unicodeScalars) } == expected)
    }

    @Test func aJoinedCommaKeepsWhatACharacterWiseSplitKept() throws {
        // "Helsinki" followed by a comma that a combining mark joins is not a name of its own: the piece holds the mark.
        let record = try Self.record(alternateNames: "Helsingfors,\u{301}Stadi,Pääkaupunki")
        #expect(record.alternateNameCandidates.count == 2)
        #expect(record.searchableAlternates.map(\.name) == ["Pääkaupunki"])
    }
}
