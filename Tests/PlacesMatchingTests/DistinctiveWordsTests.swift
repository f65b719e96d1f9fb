import PlacesCore
import Testing
@testable import PlacesMatching

/// Two businesses whose names share only generic or local words ("Books", "Helsinki") are different
/// places, however close; the lookup pipeline accepts a cheap answer on `match`, so a wrong `match` costs
/// a wrong answer, while a `review` only costs one paid call.
@Suite struct DistinctiveWordsTests {
    let matcher = PlaceMatcher(thresholds: MatchThresholds(defaultRegion: "FI"))
    let kamppi = Coordinate(latitude: 60.169, longitude: 24.932)

    func compare(_ a: String, _ b: String, metres: Double) -> MatchResult {
        matcher.compare(MatchRecord(id: "a", name: a, coordinate: kamppi),
                        MatchRecord(id: "b", name: b, coordinate: moved(kamppi, metres: metres)))
    }

    @Test func neighboursSharingGenericAndLocalityWordsDoNotMatch() {
        let result = compare("Silta Books Helsinki", "Karhu Books Helsinki", metres: 60)
        #expect(result.verdict != .match, "\(result.score) \(result.reasons)")
        // Words the generic list does not know ("Records") still count, and the shared ones no longer decide.
        let unknownCategory = compare("Nordic Records Punavuori", "Baltic Records Punavuori", metres: 20)
        #expect(unknownCategory.verdict != .match, "\(unknownCategory.score) \(unknownCategory.reasons)")
        #expect(unknownCategory.reasons.contains { $0.signal == .name && $0.agreement == .limits })
    }

    @Test func hardNegativesWithOneDifferentDistinctiveWord() {
        let pairs: [(String, String)] = [
            ("Silta Books", "Karhu Books"),
            ("Kuu Café", "Kuusi Café"),  // short words must be equal: "kuu" is not a typo of "kuusi"
            ("Luna Pizzeria Kallio", "Nova Pizzeria Kallio"),
            ("Aalto Pharmacy Töölö", "Kivi Pharmacy Töölö"),
            ("Helmi Studio Kamppi", "Lumi Studio Kamppi"),
            ("Nordic Records Punavuori", "Baltic Records Punavuori"),
            ("Ravintola Savoy Helsinki", "Ravintola Kappeli Helsinki"),
        ]
        for (a, b) in pairs {
            for metres in [0.0, 20, 60] {
                let result = compare(a, b, metres: metres)
                #expect(result.verdict != .match, "\(a) vs \(b) at \(metres) m: \(result.score) \(result.reasons)")
            }
        }
    }

    @Test func partialNameWithAmpersandAndGenericWordMatches() {
        let result = compare("Maya Bar", "Maya Bar & Grill", metres: 0)
        #expect(result.verdict == .match, "\(result.score) \(result.reasons)")
        #expect(compare("Maya Bar & Grill", "Maya Bar and Grill", metres: 10).verdict == .match)
        // The kind words ("Kahvila ja Leipomo") need a category that says that kind, or a phone or address:
        // on distance alone the bare "Sävy" may be another venue beside the bakery (issue 13).
        #expect(compare("Kahvila ja Leipomo Sävy", "Sävy", metres: 5).verdict == .review)
        let bakery = MatchRecord(id: "b", name: "Sävy", coordinate: moved(kamppi, metres: 5), category: "bakery")
        #expect(matcher.compare(MatchRecord(id: "a", name: "Kahvila ja Leipomo Sävy", coordinate: kamppi), bakery).verdict == .match)
    }

    @Test func hardPositivesWithTyposAbbreviationsAndSplitWordsStillMatch() {
        let pairs: [(String, String)] = [
            ("Kultainen Kitchen", "Kultanien Kitchen"),  // transposition
            ("Vaahtera Deli", "Vahtera Deli"),  // one letter dropped
            ("Bel Air Hotel", "Belair Hotel"),  // word break moved
            ("J Karjalainen Books", "Juha Karjalainen Books"),  // initial
            ("Ravintola Juuri", "Juuri Restaurant"),
            ("Silta Books Helsinki", "SILTA BOOKS, Helsinki"),
            ("Pohjola Bistro Kallio", "Kallio Pohjola Bistro"),
        ]
        for (a, b) in pairs {
            let result = compare(a, b, metres: 12)
            #expect(result.verdict == .match, "\(a) vs \(b): \(result.score) \(result.reasons)")
        }
    }

    @Test func equalPhoneStillIdentifiesARenamedListing() {
        let a = MatchRecord(id: "a", name: "Silta Books", phone: "09 123 4567", coordinate: kamppi)
        let b = MatchRecord(id: "b", name: "Karhu Books", phone: "+358 9 1234567", coordinate: moved(kamppi, metres: 10))
        let withPhone = matcher.compare(a, b)
        var withoutPhone = b
        withoutPhone.phone = nil
        #expect(withPhone.score > matcher.compare(a, withoutPhone).score)
        #expect(!withPhone.reasons.contains { $0.signal == .name && $0.agreement == .limits })
    }

    @Test func chainBranchesStillNeedProximity() {
        let result = compare("Maya Bar & Grill", "Maya Bar", metres: 120)
        #expect(result.verdict != .match)
    }

    @Test func wordsAlikeFollowsTheLibpostalRule() {
        func alike(_ a: String, _ b: String) -> Bool {
            let x = TextCode.encode(a), y = TextCode.encode(b)
            return x.withUnsafeBufferPointer { px in y.withUnsafeBufferPointer { py in NameSimilarity.wordsAlike(px, py) } }
        }
        #expect(alike("kultainen", "kultanien"))
        #expect(alike("vaahtera", "vahtera"))
        #expect(alike("bel", "belair"))
        #expect(alike("j", "juha"))
        #expect(!alike("kuu", "kuusi"))
        #expect(!alike("silta", "karhu"))
        #expect(!alike("luna", "nova"))
        #expect(!alike("21", "12"))
        #expect(!alike("1", "12"))
    }

    func moved(_ c: Coordinate, metres: Double) -> Coordinate {
        Coordinate(latitude: c.latitude + metres / 111_320, longitude: c.longitude)
    }
}
