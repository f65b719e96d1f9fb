import PlacesCore
import Testing
@testable import PlacesMatching

@Suite struct PlaceMatcherTests {
    let matcher = PlaceMatcher(thresholds: MatchThresholds(defaultRegion: "US"))
    let carmine = Coordinate(latitude: 40.730580, longitude: -74.002150)

    @Test func providerSpellingsOfOnePlaceMatch() {
        let pairs: [(String, String)] = [
            ("Joe's Pizza", "Joes Pizza"), ("The Cheesecake Factory", "Cheesecake Factory"),
            ("Arts Delicatessen", "Art's Deli"), ("Hotel Bel-Air", "Bel-Air Hotel"), ("Café Ekberg", "CAFE EKBERG"),
        ]
        for (a, b) in pairs {
            let result = matcher.compare(MatchRecord(id: "a", name: a, coordinate: carmine),
                                         MatchRecord(id: "b", name: b, coordinate: moved(carmine, metres: 12)))
            #expect(result.verdict == .match, "\(a) vs \(b): \(result.score) \(result.reasons)")
        }
    }

    @Test func phoneFormatsAgreeInE164() {
        let result = matcher.compare(MatchRecord(id: "a", name: "Hotel Bel-Air", phone: "310/246-1501"),
                                     MatchRecord(id: "b", name: "Bel-Air Hotel", phone: "+1 310-246-1501"))
        #expect(result.verdict == .match)
        #expect(result.reasons.contains { $0.signal == .phone && $0.agreement == .agrees })
    }

    @Test func chainBranchesFarApartDoNotMatch() {
        let a = MatchRecord(id: "a", name: "Starbucks", address: "100 Broadway", coordinate: carmine)
        let b = MatchRecord(id: "b", name: "Starbucks", address: "455 Broadway", coordinate: moved(carmine, metres: 400))
        let result = matcher.compare(a, b)
        #expect(result.verdict == .nonMatch)
        #expect(result.reasons.contains { $0.signal == .location && $0.agreement == .limits })
        let nearish = matcher.compare(a, MatchRecord(id: "c", name: "Starbucks", coordinate: moved(carmine, metres: 110)))
        #expect(nearish.verdict != .match)
    }

    @Test func chainBranchWithEqualPhoneStillMatchesAcrossTheStreet() {
        let a = MatchRecord(id: "a", name: "Starbucks", phone: "212 555 0100", coordinate: carmine)
        let b = MatchRecord(id: "b", name: "Starbucks", phone: "+1 212 555 0100", coordinate: moved(carmine, metres: 110))
        #expect(matcher.compare(a, b).verdict == .match)
    }

    @Test func neighbourWithDifferentNameDoesNotMatch() {
        let a = MatchRecord(id: "a", name: "Joe's Pizza", coordinate: carmine)
        let b = MatchRecord(id: "b", name: "Bleecker Street Pizza", coordinate: moved(carmine, metres: 30))
        #expect(matcher.compare(a, b).verdict == .nonMatch)
    }

    @Test func differentHouseNumbersWeighAgainst() {
        let a = MatchRecord(id: "a", name: "Kappeli", address: "Eteläesplanadi 1", coordinate: carmine)
        let same = matcher.compare(a, MatchRecord(id: "b", name: "Kappeli", address: "Eteläesplanadi 1", coordinate: carmine))
        let other = matcher.compare(a, MatchRecord(id: "b", name: "Kappeli", address: "Eteläesplanadi 9", coordinate: carmine))
        #expect(same.score > other.score)
        #expect(other.reasons.contains { $0.signal == .houseNumber && $0.agreement == .disagrees })
    }

    @Test func nameAloneWithoutAnyLocationIsOnlyReview() {
        let result = matcher.compare(MatchRecord(id: "a", name: "Starbucks"), MatchRecord(id: "b", name: "Starbucks"))
        #expect(result.verdict == .review)
    }

    @Test func scoreIsSymmetricAndBounded() {
        let a = matcher.prepare(MatchRecord(id: "a", name: "Ravintola Savoy", address: "Eteläesplanadi 14", coordinate: carmine))
        let b = matcher.prepare(MatchRecord(id: "b", name: "Savoy Restaurant", coordinate: moved(carmine, metres: 60)))
        #expect(matcher.score(a, b) == matcher.score(b, a))
        #expect((0...1).contains(matcher.score(a, b)))
    }

    @Test func fastPathsAgreeWithTheDefinitions() {
        // The one-word LCS writes only the table rows its pattern uses; a textbook dynamic programme over random code
        // strings (repeated letters, every code 0–63, lengths 0–80, so both the one-word and the multi-word path) says
        // what it must return.
        func lcsByTable(_ a: [UInt8], _ b: [UInt8]) -> Int {
            var row = [Int](repeating: 0, count: b.count + 1)
            for x in a {
                var diagonal = 0
                for j in 1...max(1, b.count) where !b.isEmpty {
                    let above = row[j]
                    row[j] = x == b[j - 1] ? diagonal + 1 : max(row[j], row[j - 1])
                    diagonal = above
                }
            }
            return row[b.count]
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(n))
        }
        for _ in 0..<300 {
            let alphabet = 1 + next(64)
            let a = (0..<next(81)).map { _ in UInt8(next(alphabet)) }, b = (0..<next(81)).map { _ in UInt8(next(alphabet)) }
            let lcs = a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in EditDistance.lcs(pa, pb) } }
            #expect(lcs == lcsByTable(a, b), "\(a) / \(b)")
        }
        // The pair distance with each record's latitude worked out once is GeoMath's, to the bit.
        let m = PlaceMatcher()
        for _ in 0..<200 {
            let p = Coordinate(latitude: Double(next(170_000)) / 1_000 - 85, longitude: Double(next(360_000)) / 1_000 - 180)
            let q = Coordinate(latitude: p.latitude + Double(next(2_001)) / 10_000 - 0.1, longitude: p.longitude + Double(next(2_001)) / 10_000 - 0.1)
            let (a, b) = (m.prepare(MatchRecord(id: "a", name: "A", coordinate: p)), m.prepare(MatchRecord(id: "b", name: "B", coordinate: q)))
            #expect(a.distance(to: b)?.bitPattern == GeoMath.distance(p, q).bitPattern)
        }
        #expect(m.prepare(MatchRecord(id: "a", name: "A")).distance(to: m.prepare(MatchRecord(id: "b", name: "B", coordinate: carmine))) == nil)
        // Names with no word in common skip the token-set copy: the score is still the better of the sorted words' and
        // the names' as written edit-distance ratios.
        for (x, y) in [("Kalevan Baari", "Ravintola Loiste"), ("Zetor", "Sea Horse"), ("Mito Kala", "Vesi Tori"), ("Bar Abc", "Cba")] {
            let (a, b) = (m.prepare(MatchRecord(id: "a", name: x)), m.prepare(MatchRecord(id: "b", name: y)))
            let expected = a.withName { na in
                b.withName { nb -> Double in
                    let total = na.sorted.count + nb.sorted.count
                    let aligned = 1 - Double(total - 2 * lcsByTable(Array(na.sorted), Array(nb.sorted))) / Double(total)
                    return max(aligned, Double(2 * lcsByTable(Array(na.ordered), Array(nb.ordered))) / Double(na.ordered.count + nb.ordered.count))
                }
            }
            #expect(m.nameSimilarity(a, b) == expected, "\(x) / \(y)")
        }
    }

    @Test func queryAndPlaceRecordsCompare() {
        let place = Place(id: PlaceID(provider: "osm", nativeID: "node/1"), name: "Joes Pizza", coordinate: carmine,
                          address: PostalAddress(houseNumber: "7", street: "Carmine St", countryCode: "US"))
        let query = MatchQuery(name: "Joe's Pizza", near: moved(carmine, metres: 5), address: "7 Carmine Street")
        let result = matcher.compare(MatchRecord(query: query), MatchRecord(place: place))
        #expect(result.verdict == .match)
    }

    @Test func editDistanceMeasuresMatchTheirDefinitions() {
        // ratio("kitten", "sitting"): LCS 4 → 2·4/13.
        #expect(abs(EditDistance.ratio(TextCode.encode("kitten"), TextCode.encode("sitting")) - 8.0 / 13) < 1e-12)
        // Long strings take the multi-word path and still agree with the definition.
        let long = String(repeating: "abcdefghij", count: 10)
        #expect(EditDistance.ratio(TextCode.encode(long), TextCode.encode(long + "x")) == 200.0 / 201)
        #expect(abs(EditDistance.jaroWinkler(TextCode.encode("martha"), TextCode.encode("marhta")) - 0.9611111111111111) < 1e-12)
        let m = PlaceMatcher()
        func name(_ a: String, _ b: String) -> Double {
            m.nameSimilarity(m.prepare(MatchRecord(id: "a", name: a)), m.prepare(MatchRecord(id: "b", name: b)))
        }
        #expect(name("The Cheesecake Factory", "Cheesecake Factory") == 1)
        #expect(name("Kolera-allas", "allas Kolera") == 1)
        // A strict subset is a sub-venue as often as the same place: well below a full match.
        #expect(name("Stockmann", "Stockmann Herkku") < 0.6)
        // A typo costs a little: "kappeli" vs "kapelli" has LCS 6 of 7.
        #expect(abs(name("Kappeli", "Kapelli") - 12.0 / 14) < 1e-12)
    }

    func moved(_ c: Coordinate, metres: Double) -> Coordinate {
        Coordinate(latitude: c.latitude + metres / 111_320, longitude: c.longitude)
    }
}
