import PlacesCore
import Testing

/// How typed and indexed text meet: words, run-together forms, house numbers, typo distance, category words.
@Suite struct SearchTextTests {
    @Test(arguments: [
        ("R-kioski", ["r", "kioski"]), ("R kioski", ["r", "kioski"]), ("McDonald's", ["mcdonalds"]),
        ("McDonald’s", ["mcdonalds"]), ("Café Ekberg", ["cafe", "ekberg"]), ("K-Market Esplanadi", ["k", "market", "esplanadi"]),
        ("Mikonkatu 18, Helsinki", ["mikonkatu", "18", "helsinki"]), ("  ", []),
        // ASCII-only text takes a byte-by-byte path; these match the Unicode path's rules by hand.
        ("ST. PETERSBURG", ["st", "petersburg"]), ("Joe`s Bar_2", ["joes", "bar", "2"]), ("Ølstue-9B", ["olstue", "9b"]),
    ])
    func wordsFoldCaseAccentsAndPunctuation(text: String, expected: [String]) {
        #expect(SearchText.words(text) == expected)
    }

    @Test func runTogetherFormsLetJoinedTypingMatch() {
        #expect(SearchText.joinedForms(["r", "kioski"]) == ["rkioski"])
        #expect(SearchText.joinedForms(["cafe", "art", "nouveau"]) == ["cafeartnouveau", "cafeart", "artnouveau"])
        #expect(SearchText.joinedForms(["kiasma"]).isEmpty)
    }

    @Test func houseNumbers() {
        #expect(SearchText.houseNumber("9 B") == "9b")
        #expect(SearchText.isHouseNumber("18"))
        #expect(SearchText.isHouseNumber("9b"))
        #expect(!SearchText.isHouseNumber("b9"))
        #expect(!SearchText.isHouseNumber("kiasma"))
    }

    /// Hand-computed optimal-string-alignment distances.
    @Test(arguments: [
        ("kiasma", "kiasma", 0), ("kiasma", "kaisma", 1), ("kiasma", "kisma", 1), ("kiasma", "kiasmaa", 1),
        ("kiasma", "kiasna", 1), ("stockmann", "stokmann", 1), ("helsinki", "helsnkii", 2), ("kitten", "sitting", 3),
    ])
    func editDistance(a: String, b: String, distance: Int) {
        #expect(SearchText.editDistance(a, b, limit: 3) == distance)
        #expect(SearchText.editDistance(a, b, limit: distance - 1) == nil || distance == 0)
    }

    @Test func typoAllowanceGrowsWithLength() {
        #expect(SearchText.typoAllowance("bar") == 0)
        #expect(SearchText.typoAllowance("kiasma") == 1)
        #expect(SearchText.typoAllowance("stockmann") == 2)
    }

    @Test func categoryPhrasesAndTheRestOfTheQuery() throws {
        let chemist = try #require(CategoryWords.find(in: ["chemist"]))
        #expect(chemist.keywords.contains("pharmacy"))
        #expect(chemist.rest.isEmpty)
        let cash = try #require(CategoryWords.find(in: ["cash", "machine", "kamppi"]))
        #expect(cash.phrase == ["cash", "machine"])
        #expect(cash.keywords == ["atm"])
        #expect(cash.rest == ["kamppi"])
        #expect(CategoryWords.find(in: ["bookshop"])?.keywords == ["books"])
        #expect(CategoryWords.find(in: ["jewellery"])?.keywords == ["jewelry"])
        #expect(CategoryWords.find(in: ["kiasma"]) == nil)
        // A cuisine is a phrase too; of two phrases as long, the last is the head ("italian embassy" is an embassy).
        let sushi = try #require(CategoryWords.find(in: ["sushi", "kamppi"]))
        #expect(sushi.keywords == ["sushi"])
        #expect(sushi.rest == ["kamppi"])
        let embassy = try #require(CategoryWords.find(in: ["italian", "embassy"]))
        #expect(embassy.keywords == ["embassy"])
        #expect(embassy.rest == ["italian"])
        #expect(CategoryWords.find(in: ["italian", "restaurant"])?.rest == ["italian"])
        // Words that praise or place the kind are no name to look for.
        #expect(CategoryWords.find(in: ["best", "pizza"])?.rest == [])
        #expect(CategoryWords.find(in: ["nearest", "pharmacy", "kamppi"])?.rest == ["kamppi"])
        // Every normalised category is a phrase people can type.
        for category in PlaceCategory.all where category != "city" {
            #expect(CategoryWords.isCategoryPhrase(category.replacingOccurrences(of: "_", with: " ")), "\(category)")
        }
    }
}
