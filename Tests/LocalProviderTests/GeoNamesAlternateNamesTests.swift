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

    /// The Latin names kept as Swift reads them: trimmed of whitespace Characters, then every scalar in a Latin block
    /// and of no numeric type (the reference ``GeoNamesRecord/latinCandidate(_:)`` must agree with).
    static func referenceLatinCandidate(_ candidate: Substring) -> String? {
        let start = candidate.drop(while: \.isWhitespace)
        let trimmed = String(start[..<(start.lastIndex { !$0.isWhitespace }.map(start.index(after:)) ?? start.startIndex)])
        let isLatin = { (scalar: Unicode.Scalar) in
            switch scalar.value {
            case 0x20...0x24F, 0x1E00...0x1EFF, 0x2019: scalar.properties.numericType == nil
            default: false
            }
        }
        return !trimmed.isEmpty && trimmed.unicodeScalars.allSatisfy(isLatin) ? trimmed : nil
    }

    @Test(arguments: [
        "Kraków", " Kraków", "Kraków ", "\u{3000}Kraków", "Kraków\u{3000}", "Kraków \u{301}", "\u{A0}Zürich\u{A0}", "Zürich\u{85}",
        "Хельсинки", " Хельсинки", "Helsinkі", "Kraków 2", "Kraków²", "½ Kraków", "Ḩalab", "Ḩalab\u{301}", "Ḩ", "É", "\u{2019}s-Hertogenbosch",
        "Kraków\u{600}", "\u{600}Kraków", "Kraków\u{200D}", "é\u{1F3FB}", "\u{80}Kraków\u{9F}", "Kraków\u{AD}", "\u{301}Kraków", " ", "\u{3000}",
    ])
    func aNonASCIINameIsKeptAsSwiftTrimsAndReadsIt(candidate: String) {
        #expect(GeoNamesRecord.latinCandidate(Substring(candidate)) == Self.referenceLatinCandidate(Substring(candidate)))
    }

    @Test func everyNonASCIINameOfTheBundledCitiesIsKeptAsSwiftTrimsAndReadsIt() throws {
        let url = TestData.directory.appendingPathComponent("geonames-cities15000.txt.gz")
        var candidates = 0, kept = 0
        try GeoNamesReader(url: url, container: .gzip).forEachRecord { record in
            for candidate in record.alternateNameCandidates where !candidate.utf8.allSatisfy({ $0 < 0x80 }) {
                candidates += 1
                let reference = Self.referenceLatinCandidate(candidate)
                if reference != nil { kept += 1 }
                #expect(GeoNamesRecord.latinCandidate(candidate) == reference, "\(candidate)")
            }
        }
        // cities15000 holds ~156,000 non-ASCII names, ~25,000 of them Latin.
        #expect(candidates > 100_000 && kept > 10_000)
    }

    @Test func latinScalarsAreThoseOfTheLatinBlocksWithoutNumbers() {
        for value in UInt32(0)...0x2100 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let expected: Bool = switch value {
            case 0x20...0x24F, 0x1E00...0x1EFF, 0x2019: scalar.properties.numericType == nil
            default: false
            }
            #expect(GeoNamesRecord.isLatinOrPunctuation(scalar) == expected, "U+\(String(value, radix: 16))")
        }
    }
}
