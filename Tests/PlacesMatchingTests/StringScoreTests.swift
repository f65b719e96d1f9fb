import Testing
@testable import PlacesMatching

@Suite struct StringScoreTests {
    /// The reference table in docs/matching.md, computed with the original JavaScript.
    static let references: [(String, String, Double?, Double)] = [
        ("hello world", "ow", nil, 0.35454545454545455),
        ("hello world", "e", nil, 0.1090909090909091),
        ("hello world", "h", nil, 0.5863636363636363),
        ("hello world", "H", nil, 0.5318181818181817),
        ("hello world", "hello worl", nil, 0.9136363636363636),
        ("hello world", "hello wor1", 0.5, 0.6081818181818182),
        ("hello world", "axl", 0.5, 0.021212121212121213),
        ("Hello World", "HW", nil, 0.6818181818181818),
        ("Hello", "H", nil, 0.63),
        ("Hillsdale Michigan", "HiMi", nil, 0.6694444444444444),
        ("He", "hello world", 0.5, 0.2305785123966942),
        ("hello world", "HiMi", 0.7, 0.21279904306220093),
    ]

    @Test("every reference value of the original algorithm", arguments: 0..<references.count)
    func reference(_ index: Int) {
        let (string, word, fuzziness, expected) = Self.references[index]
        #expect(abs(StringScore.score(string, word, fuzziness: fuzziness) - expected) < 1e-12)
    }

    @Test func identicalStringsScoreOneAndEmptyWordZero() {
        #expect(StringScore.score("Kappeli", "Kappeli") == 1)
        #expect(StringScore.score("Kappeli", "") == 0)
    }

    @Test func missingCharacterWithoutFuzzinessScoresZero() {
        #expect(StringScore.score("hello world", "hello wor1") == 0)
        #expect(StringScore.score("hello world", "hello wor1", fuzziness: 0) == 0)
        // The documented weakness that makes it unfit to be the only signal.
        #expect(StringScore.score("Joes Pizza", "Joe's Pizza") == 0)
    }
}
