import Foundation
import GRDB
import PlacesCore

/// What a local search found, and what to tell the user when it found nothing.
public struct IndexSearchResult: Sendable {
    public var places: [Place]
    /// When nothing was found but a typed word is close to an indexed one: the query with it corrected.
    public var didYouMean: String?
    /// For "pharmacy near kiasma" (``AroundPhrase``): the place the words after "near" named, which the places were
    /// searched around; `nil` for a search read as typed, or around the search's own point ("pharmacy near me").
    public var around: Place? = nil
}

extension PlaceIndexStore {
    /// Finds places by any of their names, their address, or a category word, best first.
    ///
    /// Ranking blends how well the text matches (bm25 over the main name, other names, brand, category
    /// words and address), how important the place is (population, Wikipedia links, kind) and, with `near`,
    /// how close it is, so a nearby POI beats a far city of the same name while without `near` the capital
    /// beats a village. With `near` and `radius`, results outside the circle are dropped.
    ///
    /// When whole words find nothing, every word is tried as a prefix, then the words run together
    /// ("k market" → "kmarket"), then a word not in the index is corrected to indexed words within one
    /// typo (two for 8+ letters); such results carry ``SearchMatch/fuzzy``.
    public func search(text: String, near: Coordinate? = nil, radius: Double? = nil, category: String? = nil,
                       limit: Int = 10) throws -> [Place] {
        try searchExplained(text: text, near: near, radius: radius, category: category, limit: limit).places
    }

    /// ``search(text:near:radius:category:limit:)`` with the "did you mean" correction when nothing was found.
    public func searchExplained(text: String, near: Coordinate? = nil, radius: Double? = nil, category: String? = nil,
                                limit: Int = 10) throws -> IndexSearchResult {
        let words = SearchText.words(text)
        guard !words.isEmpty, limit > 0 else { return IndexSearchResult(places: [], didYouMean: nil) }
        let segments = text.split(separator: ",").map { SearchText.words(String($0)) }.filter { !$0.isEmpty }
        let facts = snapshotInMemory()?.searchFacts
        return try readInOneTransaction { db in
            try LocalSearch(db: db, words: words, near: near, radius: radius, filter: CategoryFilter(category), limit: limit,
                            facts: facts)
                .search(segments: segments)
        }
    }

    /// Search-as-you-type: the last word is a prefix, any name counts, results are biased towards `near`.
    public func suggest(prefix: String, near: Coordinate? = nil, limit: Int = 8) throws -> [Place] {
        let words = SearchText.words(prefix)
        guard !words.isEmpty, limit > 0 else { return [] }
        let facts = snapshotInMemory()?.searchFacts
        return try readInOneTransaction { db in
            try LocalSearch(db: db, words: words, near: near, radius: nil, filter: nil, limit: limit, facts: facts).suggest()
        }
    }
}

/// One search, inside one read transaction.
struct LocalSearch {
    let db: Database
    let words: [String]
    let near: Coordinate?
    let radius: Double?
    let filter: CategoryFilter?
    let limit: Int
    /// A serving process's answers to the questions below about this version of the index; `nil`: ask the index.
    var facts: SearchFacts? = nil

    /// How many of the best candidates a ranking reads for a page of `limit`: enough that a category, a circle or
    /// the merge with other matches still leaves a full page.
    var candidatesRead: Int { max(limit * 20, 200) }

    /// This search as if `words` had been typed: a ranking gives a place named exactly so its whole-name
    /// bonus, which it gives by the words typed.
    func asIfTyped(_ words: [String]) -> LocalSearch {
        LocalSearch(db: db, words: words, near: near, radius: radius, filter: filter, limit: limit, facts: facts)
    }

    /// A matching row, scored but not yet read in full.
    struct Hit {
        var rowid: Int64
        var score: Double
        var fuzzy = false
    }

    /// The order hits are shown in: best score first, then the nearest, then in row order, so places that tie
    /// (one object imported from two files, at one spot) come out in the same order whatever order the R*Tree
    /// or the full-text index handed them over in.
    static func ranksBefore(_ a: Hit, _ aDistance: Double, _ b: Hit, _ bDistance: Double) -> Bool {
        (-a.score, aDistance, a.rowid) < (-b.score, bDistance, b.rowid)
    }

    func search(segments: [[String]]) throws -> IndexSearchResult {
        if let around = AroundPhrase(words: words), let found = try search(around) { return found }
        let phrase = CategoryWords.find(in: words)
        var hits: [Hit] = []
        if let phrase, phrase.rest.isEmpty {
            // A bare category ("restaurant", "cafe"): its members come before any text match, so when they
            // fill the page the full-text ranking is not needed. At a country's scale the word is in tens of
            // thousands of rows, and ranking them all cost more than finding the nearest members.
            hits = try categoryMembers(phrase, anchorAllowed: false)
            if hits.count >= limit { return try result(Array(hits.prefix(limit)), words: words, correction: nil) }
        }
        var text: [Hit]
        if segments.count >= 2, let inCity = try rankedAddressInCity(segments) {
            text = inCity
        } else {
            text = try ranked(every: words)
            if segments.count >= 2, text.count < limit {
                // "Mikonkatu 18, Helsinki": the part before the comma is the address, the rest where it is;
                // places there that do not name the city themselves follow those that do (when those that do
                // leave room on the page). When they are found, every word is not also tried as a prefix:
                // "mikonkatu* 25* helsinki*" merges the entries of every word beginning with them, ~25 ms at a
                // country's scale, to guess at other house numbers.
                var seen = Set(text.map(\.rowid))
                text += try ranked(every: segments[0]).filter { seen.insert($0.rowid).inserted }
            }
            if words.count == 1, !text.isEmpty, text.count < limit, words[0].unicodeScalars.count >= 4,
               near == nil, radius == nil, filter == nil {
                // A page the word fills only in part is filled with the places whose main name begins with it, as a
                // Finnish name begins with its stem: "Esplanadi" found only K-Market Esplanadi, not the park
                // Esplanadinpuisto. After the places holding the word itself.
                var seen = Set(text.map(\.rowid))
                text += try mainNamesBeginning(with: words[0]).filter { seen.insert($0.rowid).inserted }
            }
        }
        if text.isEmpty, hits.isEmpty, let found = try searchWithoutThePostcode(segments) { return found }
        if segments.count >= 2 {
            let named = try namedBeforeTheCity(segments)
            var seen = Set(named.map(\.rowid))
            text = named + text.filter { seen.insert($0.rowid).inserted }
        }
        if text.isEmpty, try everyWordBeginsAnIndexedWord(words) {
            text = try ranked(FullTextQuery.all(words, prefixAll: true))
            if words.count == 1, near == nil, radius == nil, filter == nil {
                // "mannerheimint": the places whose main name begins so first, most important first (the street
                // before the POIs whose address holds the word). Not with a point, a circle or a category, which
                // the importance order knows nothing of.
                var seen = Set<Int64>()
                text = try mainNamesBeginning(with: words[0]).filter { seen.insert($0.rowid).inserted }
                    + text.filter { seen.insert($0.rowid).inserted }
            }
        }
        if text.isEmpty, words.count >= 2 { text = try ranked(FullTextQuery.all([words.joined()], prefixAll: true)) }
        if let phrase, !phrase.rest.isEmpty { hits = try categoryMembers(phrase, anchorAllowed: text.isEmpty) }
        if text.isEmpty, hits.isEmpty { text = try addressOnAStreet(segments) }
        var correctedWords = words
        var correction: TypoCorrection?
        if text.isEmpty, hits.isEmpty {
            correction = try TypoCorrection(words: words, db: db)
            if let correction {
                // The likeliest correction first; any close one only when that finds nothing. Ranked as if typed
                // right: "manerheimintie" listed two POIs on Mannerheimintie before the street.
                let typedRight = asIfTyped(correction.bestWords)
                text = try typedRight.ranked(every: correction.bestWords)
                if text.isEmpty { text = try typedRight.ranked(correction.match) }
                text = text.map { Hit(rowid: $0.rowid, score: $0.score, fuzzy: true) }
                correctedWords = correction.bestWords
            }
        }
        if text.isEmpty, hits.isEmpty, words.count >= 2 {
            // Any word may match ("maya bar and grill" finds "Maya Bar & Grill"); bm25 puts names matching
            // more of the words first. A word nothing holds is left out: when one word is left ("00150 helsinki",
            // "zzqx helsinki") it is ranked as typed alone, where a word in thousands of places takes the quick road
            // (the city first); ranked with bm25 over every place holding it, it took ~130 ms at a country's scale
            // and put "Casino Helsinki" first.
            let found = try words.filter { try fullTextMatches(FullTextQuery.quoted($0), upTo: 1) > 0 }
            text = found.count == 1 ? try ranked(every: found) : found.isEmpty ? [] : try ranked(FullTextQuery.any(found))
        }
        var seen = Set(hits.map(\.rowid))
        hits += try exactHouseNumberFirst(text, segments).filter { seen.insert($0.rowid).inserted }
        return try result(Array(hits.prefix(limit)), words: correctedWords, correction: correction)
    }

    /// "Annankatu 31": the places at number 31 before those at the range 31-33, which the ranking put first (a range's
    /// address holds the number twice, "31 33 31-33", and bm25 counts it twice). Only when the words typed (before a
    /// comma) read as an address; the order among each part is kept.
    private func exactHouseNumberFirst(_ ranked: [Hit], _ segments: [[String]]) throws -> [Hit] {
        guard let address = TypedAddress(segments.first ?? words), let number = address.numbers.last,
              let padded = PaddedRowids(ranked.prefix(candidatesRead).map(\.rowid)) else { return ranked }
        // On the street typed: a street typed by another name is found through its main name, in its own order.
        let exact = try Set(Int64.fetchAll(db.cachedStatement(sql: """
            SELECT rowid FROM place WHERE rowid IN (\(padded.placeholders)) AND lower(house_number) IN (?, ?)
                AND instr(' ' || search_address || ' ', ?) > 0
            """), arguments: padded.arguments + [number, address.numbers.first ?? number,
                                                   " \(address.street.joined(separator: " ")) "]))
        guard !exact.isEmpty, exact.count < ranked.count else { return ranked }
        return ranked.filter { exact.contains($0.rowid) } + ranked.filter { !exact.contains($0.rowid) }
    }

    /// "pharmacy near kiasma": what comes before the connecting word, searched around the place the words after it
    /// name best (as a search for them alone ranks it, near the search's point when it has one), within
    /// ``aroundRadius`` unless a radius was given; around the search's point for "pharmacy near me" (without one,
    /// the words before the connector alone). `nil`, and the query is searched as typed, when its words together
    /// name a place ("Barrow in Furness") or when the words after the connector name none (a misspelt name with a
    /// connector in it is then still corrected). Nothing found around the place named is the answer ("sushi in
    /// tokyo" on an index without Tokyo's POIs). Read as typed, the connector was a name word like any other:
    /// "near" found Chicago's Near North Side before any pharmacy, "in" Giugliano in Campania, and the place named
    /// was not searched around.
    private func search(_ around: AroundPhrase) throws -> IndexSearchResult? {
        guard try ranked(every: words).isEmpty else { return nil }
        var anchor: Place?
        if !around.place.isEmpty {
            let named = LocalSearch(db: db, words: around.place, near: near, radius: nil, filter: nil, limit: 1, facts: facts)
            guard let place = try named.search(segments: [around.place]).places.first else { return nil }
            anchor = place
        }
        let center = anchor?.coordinate ?? near
        let there = LocalSearch(db: db, words: around.what, near: center, radius: center == nil ? nil : radius ?? Self.aroundRadius,
                                filter: filter, limit: limit, facts: facts)
        var found = try there.search(segments: [around.what])
        found.around = anchor
        return found
    }

    /// How far from the place named after "near" (or "in": a city's point is its centre) places are looked for when
    /// no radius is given: a sushi bar 4,000 km away is not near Kamppi, however few sushi bars the index has.
    static let aroundRadius = 20_000.0

    /// "Bulevardi 1 00100 Helsinki", "Mannerheimintie 5, 00100 Helsinki": an address typed with its postcode, which
    /// places do not hold among their words (the postcode is a place of its own): the search without it, places in
    /// that postcode first. `nil` when no word is an indexed postcode, or nothing is found without it. Read with it,
    /// the words found together nothing, and the any-word fallback put the postcode's area first.
    private func searchWithoutThePostcode(_ segments: [[String]]) throws -> IndexSearchResult? {
        guard words.count >= 2, let code = try words.first(where: isIndexedPostcode) else { return nil }
        let others = words.filter { $0 != code }
        // The postcode parts the address from the city as a comma would: "Bulevardi 1 00100 Helsinki" is searched
        // as "Bulevardi 1, Helsinki".
        let otherSegments = segments.flatMap { segment in
            segment.split(separator: code, omittingEmptySubsequences: true).map(Array.init)
        }
        var found = try asIfTyped(others).search(segments: otherSegments)
        guard !found.places.isEmpty else { return nil }
        let inPostcode = found.places.filter { $0.address?.postcode.map(SearchText.words) == [code] }
        found.places = inPostcode + found.places.filter { $0.address?.postcode.map(SearchText.words) != [code] }
        found.didYouMean = nil
        return found
    }

    /// Whether `word` is a postcode the index holds as a place of its own (``IndexedPlaceKind/area``, `osm:postcode/…`).
    private func isIndexedPostcode(_ word: String) throws -> Bool {
        guard word.first?.isNumber == true, word.count <= 10 else { return false }
        return try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM place WHERE id = 'osm:postcode/' || upper(?))"),
                                 arguments: [word]) ?? false
    }

    /// "Mikonkatu 25, Helsinki" when the last part is a city's main name: the places holding the words before it,
    /// ranked by those words alone, those whose names or address hold the city's name first, then the others
    /// holding the first part ("Kaivopiha, Mannerheimintie 3, Helsinki": "kaivopiha"). `nil` when the last part
    /// is not a city, or when the street's best-ranked places may have left out places in the city (its words
    /// are in more places than are ranked, and fewer than a page of the best name the city): the caller then
    /// ranks every word, the city's with them.
    ///
    /// The city's words are not ranked with the others because bm25 first counts every row holding each word,
    /// and a city's name is in the address of every place in it ("helsinki": 272,212 rows at the scale
    /// benchmark's size, ~6 ms, against ~0.3 ms for "mikonkatu" and "25"); holding it is what matters, not how
    /// rare it is.
    private func rankedAddressInCity(_ segments: [[String]]) throws -> [Hit]? {
        guard let city = try cityAfterTheLastComma(segments) else { return nil }
        let street = Array(segments.dropLast().joined())
        let streetHits = try ranked(every: street)
        let inCity = try rowids(holding: city, among: streetHits.map(\.rowid))
        var there = streetHits.filter { inCity.contains($0.rowid) }
        if there.count < limit, streetHits.count >= candidatesRead { return nil }
        // A place whose main name is every word typed, the city's with them, as ranked(every:) would add.
        var seen = Set(there.map(\.rowid))
        let named = try mainNames(words.joined(separator: " "), continued: false).map(\.hit).filter { seen.insert($0.rowid).inserted }
        if !named.isEmpty {
            there = (there + named).enumerated().sorted { a, b in
                a.element.score != b.element.score ? a.element.score > b.element.score : a.offset < b.offset
            }.map(\.element)
        }
        // The others only follow a page that those in the city do not fill.
        if there.count >= limit { return there }
        let others = segments.count == 2 ? streetHits : try ranked(every: segments[0])
        return there + others.filter { seen.insert($0.rowid).inserted }
    }

    /// An address the words typed do not find as they are, on a street the index holds: the nearest the index
    /// comes to it, as a geocoder answers an address it cannot place more closely.
    /// - "Mannerheimintie 999", "999 Mannerheimintie": a house number the street does not have finds the street.
    ///   Read as typos, the number had found a memorial with "100" in its name, or the POIs on the street first.
    /// - "Norra Esplanaden 33", "Mannerheimvägen 5, Helsinki": a street typed by another of its names (the other
    ///   language's, a nickname) finds the address on its main name, which is the one addresses are written with.
    ///   Read word by word, "Mannerheimvägen 5" had put the Romanian city "Sector 5" first.
    /// - "Fredrikinkatu 22 B 5" (staircase and apartment), "Kaivokatu 8a" (a letter the index lacks), "Eerikinkatu
    ///   14-16" (a range): the house number alone, then the street. Read word by word, the extra words had found
    ///   "Sector 5" and French arrondissements.
    private func addressOnAStreet(_ segments: [[String]]) throws -> [Hit] {
        var typed = words
        if try cityAfterTheLastComma(segments) != nil {
            typed = Array(segments.dropLast().joined())
        }
        guard let address = TypedAddress(typed) else { return [] }
        let streetName = address.street.joined(separator: " ")
        var streets: [(rowid: Int64, mainName: String)] = []
        let named = try mainNames(streetName, continued: false).map(\.hit.rowid)
        if let padded = PaddedRowids(named) {
            streets = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT rowid, search_name FROM place WHERE kind = 'street' AND rowid IN (\(padded.placeholders))
                """), arguments: padded.arguments).map { ($0[0], $0[1]) }
        }
        if streets.isEmpty {
            // Other names are kept as "| name | other name |" (see PreparedPlace). The words are looked for as one
            // phrase among them, in a bounded number of places: a street's other name is rarely in thousands of
            // other places' names.
            streets = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT p.rowid, p.search_name
                FROM (SELECT rowid FROM place_fts WHERE place_fts MATCH ?1 LIMIT \(candidatesRead * 5)) f
                CROSS JOIN place p ON p.rowid = f.rowid
                WHERE p.kind = 'street' AND instr(p.search_alt, ?2) > 0
                """), arguments: ["{search_alt} : " + FullTextQuery.quoted(streetName), "| \(streetName) |"])
                .map { ($0[0], $0[1]) }
        }
        guard !streets.isEmpty else { return [] }
        let mainNames = Set(streets.map(\.mainName)).sorted()
        for number in address.numbers {
            var addresses: [Hit] = []
            var seen = Set<Int64>()
            for mainName in mainNames {
                // Ranked as if typed so (a place named the address itself first).
                let onTheStreet = mainName.split(separator: " ").map(String.init) + number.split(separator: " ").map(String.init)
                addresses += try asIfTyped(onTheStreet).ranked(every: onTheStreet).filter { seen.insert($0.rowid).inserted }
            }
            if !addresses.isEmpty { return addresses.sorted { $0.score > $1.score } }
        }
        let order = Dictionary(named.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        return streets.sorted { (order[$0.rowid] ?? .max) < (order[$1.rowid] ?? .max) }.map { Hit(rowid: $0.rowid, score: 0) }
    }

    /// "Mannerheimintie, Helsinki", "Kamppi, Helsinki": the places whose main name is the words before the last
    /// comma and that lie in the city after it (their address or names hold it), which come first. Words that
    /// appear in hundreds of addresses in that city rank those addresses with the city's name above the street or
    /// the part of the city that bears the name. Nothing when the last part is not a city's name.
    private func namedBeforeTheCity(_ segments: [[String]]) throws -> [Hit] {
        guard let city = try cityAfterTheLastComma(segments) else { return [] }
        let named = try mainNames(segments.dropLast().joined().joined(separator: " "), continued: false).map(\.hit)
        let inCity = try rowids(holding: city, among: named.map(\.rowid))
        return named.filter { inCity.contains($0.rowid) }
    }

    /// Which of `rowids` are places whose main name, other names or address hold `phrase` (folded words joined by
    /// spaces) as whole words.
    private func rowids(holding phrase: String, among rowids: [Int64]) throws -> Set<Int64> {
        guard let padded = PaddedRowids(rowids) else { return [] }
        let word = " \(phrase) "
        return try Set(Int64.fetchAll(db.cachedStatement(sql: """
            SELECT rowid FROM place WHERE (instr(' ' || search_address || ' ', ?1) > 0 OR instr(' ' || search_name || ' ', ?1) > 0
                OR instr(search_alt, ?1) > 0) AND rowid IN (\(padded.placeholders))
            """), arguments: StatementArguments([word]) + padded.arguments))
    }

    /// Reads the hits' rows in order and says which name matched (for a fuzzy hit, by the corrected words).
    private func result(_ hits: [Hit], words correctedWords: [String], correction: TypoCorrection?) throws -> IndexSearchResult {
        let fuzzy = Set(hits.filter(\.fuzzy).map(\.rowid))
        let places = try PlaceRow.fetch(db, rowids: hits.map(\.rowid)) { row -> Place in
            var place = PlaceRow.place(row)
            let rowid: Int64 = row[PlaceRow.rowidColumn]
            let isFuzzy = fuzzy.contains(rowid)
            let matchedName = Self.matchedName(of: place, alternates: row[PlaceRow.altNamesColumn], words: isFuzzy ? correctedWords : words)
            if matchedName != nil || isFuzzy { place.searchMatch = SearchMatch(matchedName: matchedName, fuzzy: isFuzzy) }
            return place
        }
        let didYouMean = places.isEmpty ? correction?.bestWords.joined(separator: " ") : nil
        return IndexSearchResult(places: places, didYouMean: didYouMean)
    }

    /// Completes what is being typed. The cost of a full-text prefix query grows with the number of names
    /// it matches, and one to three letters match a large share of the world's names, so a single short
    /// word completes from the neighbourhood (the R*Tree around `near`) and then from the most important
    /// places whose name begins with it (``NamePrefixes``); a short last word after others is checked on
    /// the rows the other words find. Only names count (not category words or addresses): "hel" near a
    /// Helsinki street completes names, not every address in Helsinki.
    func suggest() throws -> [Place] {
        let last = words[words.count - 1]
        let lastLength = last.unicodeScalars.count
        var hits: [Hit] = []
        if words.count == 1, lastLength <= NamePrefixes.longestPrefix {
            if let near { hits = try neighbours(around: near, namedWith: last) }
            if hits.count < limit {
                var seen = Set(hits.map(\.rowid))
                hits += try mostImportant(startingWith: last).filter { seen.insert($0.rowid).inserted }
            }
        } else if lastLength == 1 {
            hits = try ranked(FullTextQuery.names(FullTextQuery.all(Array(words.dropLast()))), nameWordStartingWith: last)
        } else {
            hits = try ranked(FullTextQuery.names(FullTextQuery.all(words, prefixLast: true)))
            if words.count == 1, near == nil {
                // Without a point, the most important places whose main name begins so come first: ranked by the
                // full-text index, "mann" listed five Indian towns with few other names before Mannheim.
                var seen = Set<Int64>()
                hits = try mainNamesBeginning(with: last).filter { seen.insert($0.rowid).inserted }
                    + hits.filter { seen.insert($0.rowid).inserted }
            }
            if hits.isEmpty, words.count >= 2 {
                hits = try ranked(FullTextQuery.names(FullTextQuery.all([words.joined()], prefixLast: true)))
            }
        }
        return try PlaceRow.fetch(db, rowids: hits.prefix(limit).map(\.rowid)) { row -> Place in
            var place = PlaceRow.place(row)
            if let matched = Self.matchedName(of: place, alternates: row[PlaceRow.altNamesColumn], words: words) {
                place.searchMatch = SearchMatch(matchedName: matched)
            }
            return place
        }
    }

    /// Places around `center` with a name word beginning with `prefix`, best first: those in the box of 1 km
    /// around it, or, when that holds fewer than `limit`, every one within 5 km. Scored like
    /// ``ranked(_:within:around:nameWordStartingWith:)`` with near, a main name that begins with the prefix
    /// counting as the best match.
    ///
    /// The places are read one of two ways, whichever reads fewer rows; both find the same places (but for
    /// the R*Tree's rounding of box edges to 32-bit floats, which may let in a place centimetres outside). A
    /// prefix few names share ("bur", "kia": hundreds of names in a country) is read through the full-text
    /// index, every place with a name word that begins with it, wherever it is, and those outside the 5 km
    /// box are dropped. A prefix many names share ("hel", "ma") is read from the R*Tree: the 1 km box, then
    /// the ring out to 5 km (the R*Tree skips the inner box's entries before their rows are read). Reading
    /// a 5 km ring in a city costs tens of thousands of rows (~32,000 at the scale benchmark's centre),
    /// which is why a rare prefix does not take that road.
    private func neighbours(around center: Coordinate, namedWith prefix: String) throws -> [Hit] {
        let outerRadius = 5_000.0
        let inner = GeoMath.boundingBoxes(around: center, radius: 1_000)
        let outer = GeoMath.boundingBoxes(around: center, radius: outerRadius)
        let nameTest = """
            p.kind != 'address' AND (substr(p.search_name, 1, length(?)) = ? OR instr(p.search_name, ' ' || ?) > 0
                OR instr(p.search_alt, ' ' || ?) > 0)
            """
        let nameArguments: StatementArguments = [prefix, prefix, prefix, prefix]
        let columns = "p.lat, p.lon, p.importance, substr(p.search_name, 1, length(?)) = ?, p.search_name = ?"
        let columnArguments: StatementArguments = [prefix, prefix, prefix]
        var found: [(hit: Hit, distance: Double, inInnerBox: Bool)] = []
        func take(_ row: SQLiteRow, inInnerBox isInner: Bool) {
            let distance = GeoMath.distance(center, Coordinate(latitude: row.double(1), longitude: row.double(2)))
            guard isInner || distance <= outerRadius else { return }
            let relevance: Double = row.bool(4) ? 1 : 0.7
            let score = 0.45 * relevance + 0.35 / (1 + distance / 1_000) + 0.2 * row.double(3) + (row.bool(5) ? 0.15 : 0)
            found.append((Hit(rowid: row.int64(0), score: score), distance, isInner))
        }
        if try namesStarting(with: prefix, fewerThan: Self.fewNamesForNeighbours) {
            // The pieces of one box share their latitudes (GeoMath.boundingBoxes).
            let inOuterBox = "p.lat BETWEEN ? AND ? AND ("
                + Array(repeating: "p.lon BETWEEN ? AND ?", count: outer.count).joined(separator: " OR ") + ")"
            let outerArguments = StatementArguments([outer[0].minLatitude, outer[0].maxLatitude]
                + outer.flatMap { [$0.minLongitude, $0.maxLongitude] })
            try SQLiteRow.forEach(db.cachedStatement(sql: """
                SELECT p.rowid, \(columns) FROM place_fts f CROSS JOIN place p ON p.rowid = f.rowid
                WHERE place_fts MATCH ? AND \(inOuterBox) AND \(nameTest)
                """), arguments: columnArguments + [FullTextQuery.names(FullTextQuery.quoted(prefix) + "*", brand: false)]
                  + outerArguments + nameArguments) { row in
                let point = Coordinate(latitude: row.double(1), longitude: row.double(2))
                take(row, inInnerBox: inner.contains { $0.contains(point) })
            }
            if found.filter(\.inInnerBox).count >= limit { found.removeAll { !$0.inInnerBox } }
        } else {
            var readingInnerBox = true
            try PlacesAround(db: db, center: center, columns: columns, columnArguments: columnArguments, condition: nameTest,
                             arguments: nameArguments)
                .read(radii: [1_000, outerRadius]) { row in take(row, inInnerBox: readingInnerBox) } enough: { _ in
                    readingInnerBox = false
                    return found.count >= limit
                }
        }
        found.sort { Self.ranksBefore($0.hit, $0.distance, $1.hit, $1.distance) }
        return found.map(\.hit)
    }

    /// Up to this many names beginning with a prefix are read through the full-text index by
    /// ``neighbours(around:namedWith:)``: each costs a row read (~1 µs), as each entry of the R*Tree's
    /// 1 km box does, and a city centre's 1 km box holds a few thousand.
    static let fewNamesForNeighbours = 2_000

    /// Whether fewer than `count` places have a main or other name with a word beginning with `prefix`, known
    /// without reading them all. Only for a prefix of ASCII letters and digits of two or more: the full-text
    /// index then holds every such word under the prefix (its two- and three-letter prefix indexes; ASCII
    /// letters and digits are token characters it keeps as they are), so its prefix query finds every place
    /// the SQL name test in ``neighbours(around:namedWith:)`` accepts. The prefix index counts every column's
    /// words; counting it first (cheap, entries only) bounds the count of names (which the column filter
    /// finds by skipping through every column's entries).
    private func namesStarting(with prefix: String, fewerThan count: Int) throws -> Bool {
        guard prefix.utf8.count >= 2,
              prefix.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return false }
        let anyColumn = FullTextQuery.quoted(prefix) + "*"
        // Skipping through ten times `count` entries of other columns costs about what reading `count` rows does.
        let entries = try fullTextMatches(anyColumn, upTo: 10 * count)
        if entries < count { return true }
        if entries >= 10 * count { return false }
        return try fullTextMatches(FullTextQuery.names(anyColumn, brand: false), upTo: count) < count
    }

    /// Whether each of `words` is an indexed word or the beginning of one, so that the words as beginnings
    /// (``FullTextQuery/all(_:prefixLast:prefixAll:)`` with `prefixAll`) may find something. That query merges
    /// the entries of every indexed word beginning with each typed word before it intersects them, whether or
    /// not another word finds nothing: a typo among common words ("autoklnikka helsinki fastfix": "helsinki*"
    /// merges 272,212 entries at the scale benchmark's size) cost ~15 ms to find nothing. A word that is
    /// indexed whole is known from its first entry; only the others are looked up as beginnings, which costs
    /// at most what the query would spend on them.
    private func everyWordBeginsAnIndexedWord(_ words: [String]) throws -> Bool {
        for word in words where try fullTextMatches(FullTextQuery.quoted(word), upTo: 1) == 0 {
            // A one-letter word is never a beginning in that query (FullTextQuery.all).
            guard word.unicodeScalars.count >= 2, try fullTextMatches(FullTextQuery.quoted(word) + "*", upTo: 1) > 0 else { return false }
        }
        return true
    }

    /// How many places `match` finds, counted up to `limit` only, in the full-text index alone (no row is read):
    /// what decides between reading a word's places and reading another way.
    private func fullTextMatches(_ match: String, upTo limit: Int) throws -> Int {
        try remembered(.fullTextMatches(match, upTo: limit)) {
            try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM (SELECT 1 FROM place_fts WHERE place_fts MATCH ? LIMIT ?)"),
                             arguments: [match, limit]) ?? 0
        }
    }

    /// `ask`'s answer, from ``facts`` when this process remembers it for this version of the index.
    private func remembered(_ question: SearchFacts.Question, ask: () throws -> Int) throws -> Int {
        guard let facts else { return try ask() }
        return try facts.answer(question, ask: ask)
    }

    // MARK: Ranking

    /// The places holding every one of `matchWords`, best first, as ``ranked(_:within:around:nameWordStartingWith:)``
    /// ranks them, with every place whose main name is the words among them (bm25 may leave it out of its
    /// best 200: a city's many other names and a short address holding the word make it rank below
    /// hundreds of addresses). When each word is in ``commonMatches`` places or more, they are ranked without bm25,
    /// from a bounded set when they are together in that many (``rankedCommon(_:words:together:)``); the name of a
    /// city in that many places typed with rarer words only filters their places (``rankedInCity(_:others:)``).
    func ranked(every matchWords: [String]) throws -> [Hit] {
        let match = FullTextQuery.all(matchWords)
        // A place named by the words besides a city's ("Helsinki, Mannerheimintie 5": the address point) ranks as if
        // they alone had been typed; before, the pharmacy whose address holds them came first.
        let city = matchWords.count >= 2 ? try matchWords.first(where: isCityName) : nil
        let withNames = { (hits: [Hit]) throws -> [Hit] in
            let named = try self.withMainNames(hits, words: matchWords)
            guard let city else { return named }
            return try self.withMainNames(named, words: matchWords.filter { $0 != city }, holding: city)
        }
        if radius == nil, filter == nil {
            if let city, try isCommon(city), let hits = try rankedInCity(city, others: matchWords.filter { $0 != city }) {
                return try withNames(hits)
            }
            // The words' places are counted from their entries alone, up to commonMatches only: a small part of
            // ranking them ("52 aleksanterinkatu": 8,684 places at the scale benchmark's size, ~11 ms to rank).
            // Together they are in that many only if each is: the longest words, most often the rarest, are
            // counted first, and the first in fewer ends the count; several words are then counted together
            // by intersecting their entries. Words each in that many places are not ranked by bm25 either when they
            // are together in fewer than fewTogether places: its weighing of the words first reads every entry of each
            // ("annankatu 14": 27,221 and 13,363 entries for 501 places, ~2 of the ~3 ms bm25 took), and reading
            // their few places costs less ("street N" addresses at the scale benchmark's size).
            if try matchWords.sorted(by: { $0.count > $1.count }).allSatisfy(isCommon) {
                let together = try matchWords.count == 1 ? Self.commonMatches : fullTextMatches(match, upTo: Self.commonMatches)
                if together >= Self.commonMatches || together < Self.fewTogether {
                    return try rankedCommon(match, words: matchWords, together: together)
                }
            }
        }
        return try withNames(try ranked(match))
    }

    /// `ranked` (ranked(_:) order) with every place whose main name is `matchWords` merged in by score; one already
    /// there takes the better of its two scores (ranked for other words typed with these, a city's: "Helsinki,
    /// Mannerheimintie 5" gives the address point the whole-name score of "Mannerheimintie 5").
    /// - Parameter city: when given, only the places so named that hold it (their address or names).
    private func withMainNames(_ ranked: [Hit], words matchWords: [String], holding city: String? = nil) throws -> [Hit] {
        var named = try mainNames(matchWords.joined(separator: " "), continued: false).map(\.hit)
        if let city, !named.isEmpty {
            let inCity = try rowids(holding: city, among: named.map(\.rowid))
            named = named.filter { inCity.contains($0.rowid) }
        }
        guard !named.isEmpty else { return ranked }
        var namedScores = Dictionary(named.map { ($0.rowid, $0.score) }, uniquingKeysWith: max)
        var hits = ranked.map { hit in
            var hit = hit
            if let score = namedScores.removeValue(forKey: hit.rowid) { hit.score = max(hit.score, score) }
            return hit
        }
        hits += named.filter { namedScores.removeValue(forKey: $0.rowid) != nil }
        // ranked(_:) orders equal scores by distance; the merged list keeps its order among them.
        return hits.enumerated().sorted { a, b in
            a.element.score != b.element.score ? a.element.score > b.element.score : a.offset < b.offset
        }.map(\.element)
    }

    /// The places holding `others` whose names or address hold `city` (the name of a city in ``commonMatches``
    /// places or more), ranked by bm25 over `others` alone, or `nil` when `others` are in candidatesRead places or
    /// more (their best-ranked could leave out those in the city; every word is then ranked together).
    ///
    /// bm25 first counts every place holding each word to weigh it, and a city's name is in the address of every
    /// place in it ("helsinki": 272,212 places at the scale benchmark's size, ~6 ms of "helsinki chamber of
    /// commerce", against ~0.5 ms to rank the other words); holding it is what matters, not how rare it is.
    private func rankedInCity(_ city: String, others: [String]) throws -> [Hit]? {
        let match = FullTextQuery.all(others)
        guard try fullTextMatches(match, upTo: candidatesRead) < candidatesRead else { return nil }
        let hits = try ranked(match)
        let inCity = try rowids(holding: city, among: hits.map(\.rowid))
        return hits.filter { inCity.contains($0.rowid) }
    }

    /// Whether `word` is in ``commonMatches`` places or more.
    private func isCommon(_ word: String) throws -> Bool {
        try fullTextMatches(FullTextQuery.quoted(word), upTo: Self.commonMatches) >= Self.commonMatches
    }

    /// The main name (folded) of the city the part after the last comma names: by its main name, or by another
    /// of its names ("Mannerheimvägen 5, Helsingfors": addresses name the city Helsinki). By another name, the most
    /// important city so called. `nil` without a comma or when that part names no city.
    private func cityAfterTheLastComma(_ segments: [[String]]) throws -> String? {
        guard segments.count >= 2 else { return nil }
        // "…, 00100 Helsinki": a postcode beside the city is not part of its name.
        let last = try segments[segments.count - 1].filter { try !isIndexedPostcode($0) }
        guard !last.isEmpty else { return nil }
        let name = last.joined(separator: " ")
        if try isCityName(name) { return name }
        let rowid = try remembered(.cityByOtherName(name)) {
            // Other names are kept as "| name | other name |" (see PreparedPlace).
            try Int.fetchOne(db.cachedStatement(sql: """
                SELECT p.rowid FROM place_fts f CROSS JOIN place p ON p.rowid = f.rowid
                WHERE place_fts MATCH ?1 AND p.kind = 'city' AND instr(p.search_alt, ?2) > 0
                ORDER BY p.importance DESC LIMIT 1
                """), arguments: [FullTextQuery.names(FullTextQuery.all(last), brand: false), "| \(name) |"]) ?? 0
        }
        guard rowid != 0 else { return nil }
        return try String.fetchOne(db.cachedStatement(sql: "SELECT search_name FROM place WHERE rowid = ?"), arguments: [rowid])
    }

    /// Whether `name` (folded words joined by spaces) is the main name of a city in the index.
    private func isCityName(_ name: String) throws -> Bool {
        try remembered(.cityName(name)) {
            try Bool.fetchOne(db.cachedStatement(sql: """
                SELECT EXISTS (SELECT 1 FROM place INDEXED BY place_by_search_name WHERE search_name = ? AND kind = 'city')
                """), arguments: [name]) == true ? 1 : 0
        } == 1
    }

    /// Words each in this many places or more are ranked through ``rankedCommon(_:words:together:)`` (but when
    /// together in ``fewTogether`` to this many): bm25 costs ~1.3 µs a place, so ranking this many costs about
    /// half of a 5 ms search.
    static let commonMatches = 2_000

    /// Words each in ``commonMatches`` places or more but together in fewer than this many are ranked by reading
    /// every place holding them (``rankedCommon(_:words:together:)``), not by bm25: a place read costs ~0.4 µs more
    /// than bm25's work on it, and bm25 first reads every entry of each word (2,000 or more each, ~45 ns an
    /// entry). "Kaivokatu 8" (1,503 places, 14,700 entries) cost as much either way at the scale benchmark's size.
    static let fewTogether = 1_000

    /// Ranks words that are each in ``commonMatches`` places or more (at a country's scale, "helsinki" is
    /// in 272,212: every address in the city; "52 aleksanterinkatu" in 8,684 at the scale benchmark's size)
    /// without bm25, which cost ~400 ms for "helsinki". `together`: in how many places the words are together,
    /// counted up to ``commonMatches``; when in fewer than ``fewTogether``, every one of them is read and the best
    /// ``candidatesRead`` are returned, as ``ranked(_:within:around:nameWordStartingWith:)`` returns its best.
    ///
    /// bm25 cannot tell such places apart by the words: every one holds all of them, and FTS5 clamps the
    /// weight of a word in more than half the rows to almost nothing, so its best 200 were copies of
    /// "Casino Helsinki" and the city was not among them. What tells them apart is whether a main name is
    /// the words or begins with them, which the index on the main name (`place_by_search_name`) finds
    /// directly, most important first. The others are known only by reading them, so when they are together in
    /// ``commonMatches`` places or more only the first ``candidatesRead`` the full-text index holds are read, to
    /// fill a page that names alone do not: a place that holds the words elsewhere in a name, in another name or
    /// in its address may be missed, which is the price of a bounded search for words that say this little.
    /// Those are not ranked by bm25 either: it first counts every row holding each word (~6 ms for "helsinki")
    /// to weigh the words, and the weight of words this common says nothing. A main name holding every word
    /// counts as a full match ("52 aleksanterinkatu": the address point "Aleksanterinkatu 52"), any other place
    /// holding them as half of one.
    private func rankedCommon(_ match: String, words matchWords: [String], together: Int) throws -> [Hit] {
        let typed = matchWords.joined(separator: " ")
        let readsAll = together < Self.commonMatches
        var hits = try mainNames(typed, continued: true)
        var seen = Set(hits.map(\.hit.rowid))
        // Whether the main name holds every word, each a whole word of it, tested in SQL on the text it already holds.
        let inMainName = matchWords.indices.map { "instr(' ' || p.search_name || ' ', ?\($0 + 5)) > 0" }.joined(separator: " AND ")
        try SQLiteRow.forEach(db.cachedStatement(sql: """
            SELECT p.rowid, p.lat, p.lon, p.importance, p.search_name = ?1 OR instr(p.search_alt, ?2) > 0, \(inMainName)
            FROM (SELECT rowid FROM place_fts WHERE place_fts MATCH ?3 LIMIT ?4) f
            CROSS JOIN place p ON p.rowid = f.rowid
            """), arguments: [typed, "| \(typed) |", match, readsAll ? Self.commonMatches : candidatesRead]
                + StatementArguments(matchWords.map { " \($0) " })) { row in
            guard seen.insert(row.int64(0)).inserted else { return }
            let wholeName = row.bool(4)
            let inMainName = row.bool(5)
            let distance = near.map { GeoMath.distance($0, Coordinate(latitude: row.double(1), longitude: row.double(2))) } ?? 0
            hits.append((Hit(rowid: row.int64(0), score: score(relevance: wholeName || inMainName ? 1 : 0.5, wholeName: wholeName,
                                                                importance: row.double(3), distance: distance)), distance))
        }
        hits.sort { Self.ranksBefore($0.hit, $0.distance, $1.hit, $1.distance) }
        return readsAll ? hits.prefix(candidatesRead).map(\.hit) : hits.map(\.hit)
    }

    /// Places whose main name is `typed` (folded words joined by spaces) or, with `continued`, begins with
    /// it, the most important first, through the index on the main name, scored as the best text match:
    /// a main name holding every word from its first is as good a match as bm25 gives. Within the search's
    /// circle and category, when it has them.
    private func mainNames(_ typed: String, continued: Bool) throws -> [(hit: Hit, distance: Double)] {
        let best = candidatesRead
        // [typed, typed + "!") holds the name that is the words and every name that continues them after a
        // space: no other character a folded name holds sorts in between.
        let circle = near.flatMap { center in radius.map { (center: center, radius: $0) } }
        // Without a circle or category the index alone picks the most important (no row is read for the others).
        let unrestricted = circle == nil && filter == nil
        var sql = """
            SELECT p.rowid, p.lat, p.lon, p.importance, p.search_name = ?1
            FROM (SELECT rowid FROM place INDEXED BY place_by_search_name
                  WHERE search_name >= ?1 AND search_name \(continued ? "< ?2" : "<= ?1")
                  \(unrestricted ? "ORDER BY importance DESC LIMIT \(best)" : "")) n
            CROSS JOIN place p ON p.rowid = n.rowid WHERE 1
            """
        var arguments: StatementArguments = continued ? [typed, typed + "!"] : [typed]
        restrict(&sql, &arguments, to: circle)
        if !unrestricted { sql += " ORDER BY p.importance DESC LIMIT \(best)" }
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).compactMap { row in
            let coordinate = Coordinate(latitude: row[1], longitude: row[2])
            if let circle, GeoMath.distance(circle.center, coordinate) > circle.radius { return nil }
            let distance = near.map { GeoMath.distance($0, coordinate) } ?? 0
            return (Hit(rowid: row[0], score: score(relevance: 1, wholeName: row[4], importance: row[3], distance: distance)), distance)
        }
    }

    /// How text relevance (0…1), a whole-name match, importance and, with `near`, distance make a score.
    private func score(relevance: Double, wholeName: Bool, importance: Double, distance: Double) -> Double {
        let exact = wholeName ? 0.15 : 0
        return near == nil
            ? 0.6 * relevance + 0.4 * importance + exact
            : 0.45 * relevance + 0.35 / (1 + distance / 1_000) + 0.2 * importance + exact
    }

    /// Full-text matches, best first: text relevance blended with importance and, with `near`, distance.
    /// - Parameter nameWordStartingWith: keeps only places with a name word that begins with it (how a
    ///   one-letter last word is completed without a full-text prefix query over every word with that letter).
    func ranked(_ match: String, within: Double? = nil, around: Coordinate? = nil,
                nameWordStartingWith namePrefix: String? = nil) throws -> [Hit] {
        let typed = words.joined(separator: " ")
        let circle: (center: Coordinate, radius: Double)? = around.flatMap { center in within.map { (center, $0) } }
            ?? near.flatMap { center in radius.map { (center, $0) } }
        let bm25 = "bm25(place_fts, 10.0, 6.0, 3.0, 1.0, 6.0)"
        let wholeName = "p.search_name = ? OR instr(p.search_alt, ?) > 0"
        let best = candidatesRead
        var sql: String
        var arguments: StatementArguments
        if circle == nil, filter == nil, namePrefix == nil {
            // Nothing to check on the place rows: rank in the full-text index alone and read only the best
            // rows ("helsinki" matches every address in Helsinki; half its cost was reading their rows).
            sql = """
                SELECT p.rowid, p.lat, p.lon, f.rank, p.importance, \(wholeName) AS whole_name
                FROM (SELECT rowid, \(bm25) AS rank FROM place_fts WHERE place_fts MATCH ? ORDER BY rank LIMIT \(best)) f
                CROSS JOIN place p ON p.rowid = f.rowid
                """
            arguments = [typed, "| \(typed) |", match]
        } else {
            sql = """
                SELECT p.rowid, p.lat, p.lon, \(bm25) AS rank, p.importance, \(wholeName) AS whole_name
                FROM place_fts CROSS JOIN place p ON p.rowid = place_fts.rowid
                WHERE place_fts MATCH ?
                """
            arguments = [typed, "| \(typed) |", match]
            restrict(&sql, &arguments, to: circle)
            if let namePrefix {
                sql += " AND (substr(p.search_name, 1, length(?)) = ? OR instr(p.search_name, ' ' || ?) > 0 OR instr(p.search_alt, ' ' || ?) > 0)"
                arguments += [namePrefix, namePrefix, namePrefix, namePrefix]
            }
            sql += " ORDER BY rank LIMIT \(best)"
        }
        let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
        // bm25 is negative, lower is better; relevance 1 is the best match of this query.
        let bestRank = rows.map { -($0[3] as Double) }.max() ?? 1
        var hits: [(hit: Hit, distance: Double)] = []
        hits.reserveCapacity(rows.count)
        for row in rows {
            let coordinate = Coordinate(latitude: row[1], longitude: row[2])
            let distance = near.map { GeoMath.distance($0, coordinate) } ?? 0
            if let circle, GeoMath.distance(circle.center, coordinate) > circle.radius { continue }
            // Typing one of a place's names in full is as good a match whichever name it is: bm25 would
            // rank "Cantón" (one of Guangzhou's hundred names) below a town whose only name is "Canton".
            let wholeName: Bool = row[5]
            let relevance: Double = wholeName ? 1 : bestRank > 0 ? -(row[3] as Double) / bestRank : 1
            hits.append((Hit(rowid: row[0], score: score(relevance: relevance, wholeName: wholeName, importance: row[4],
                                                          distance: distance)), distance))
        }
        hits.sort { Self.ranksBefore($0.hit, $0.distance, $1.hit, $1.distance) }
        return hits.map(\.hit)
    }

    /// Adds the circle's bounding box (through the R*Tree) and `--category` to a query on `place p`.
    private func restrict(_ sql: inout String, _ arguments: inout StatementArguments,
                          to circle: (center: Coordinate, radius: Double)?) {
        if let circle {
            let boxes = GeoMath.boundingBoxes(around: circle.center, radius: circle.radius)
            sql += " AND p.rowid IN (" + Array(repeating: "SELECT id FROM place_rtree WHERE max_lat >= ? AND min_lat <= ? AND max_lon >= ? AND min_lon <= ?",
                                               count: boxes.count).joined(separator: " UNION ALL ") + ")"
            arguments += StatementArguments(boxes.flatMap { [$0.minLatitude, $0.maxLatitude, $0.minLongitude, $0.maxLongitude] })
        }
        if let filter {
            sql += " AND " + filter.sql
            arguments += filter.arguments
        }
    }

    /// Real members of a category ("chemist" → pharmacies and chemists), nearest first with `near`,
    /// otherwise most important first. Words besides the category must match the member too ("pharmacy
    /// kamppi"); when no member has them and nothing else matches the whole query, they name a place to
    /// search around instead.
    func categoryMembers(_ phrase: CategoryWords.Match, anchorAllowed: Bool) throws -> [Hit] {
        let keywords = "keywords : (" + phrase.keywords.map(FullTextQuery.quoted).joined(separator: " OR ") + ")"
        let category = CategoryKeywords(phrase.keywords)
        guard !phrase.rest.isEmpty else {
            guard let near else { return try mostImportantMembers(matching: keywords) }
            return try nearestMembers(category, matching: keywords, around: near, within: radius)
        }
        // The other words as beginnings: a word no indexed word begins with leaves nothing to find.
        guard try everyWordBeginsAnIndexedWord(phrase.rest) else { return [] }
        let withRest = keywords + " AND " + FullTextQuery.all(phrase.rest, prefixAll: true)
        var found = try near.map { try members(matching: withRest, around: $0, within: radius) }
            ?? mostImportantMembers(matching: withRest)
        if found.isEmpty, anchorAllowed,
           let anchor = try ranked(FullTextQuery.all(phrase.rest, prefixAll: true)).first,
           let place = try PlaceRow.fetch(db, rowids: [anchor.rowid]).first {
            found = try nearestMembers(category, matching: keywords, around: place.coordinate, within: 2_000)
        }
        return found
    }

    /// The members of a category (`match`: its keywords) nearest `center`, within `within` metres when given,
    /// read whichever way costs least for how many members it has, counted first in the full-text index
    /// alone (the count may include places `--category` then drops; the nearest members are the same page
    /// either way):
    /// - up to ``fewMembers``: every member, read by its row id and sorted;
    /// - up to ``memberSetLimit``: around the point (``membersAround(_:memberIDs:around:within:)``), the
    ///   R*Tree's entries tested against the members' row ids, so only members' rows are read;
    /// - more ("restaurant" in a country): around the point, every place row with keywords tested in turn:
    ///   a category that common has members close to most points, and its row ids cost more to collect
    ///   than the rows around the point do to read.
    private func nearestMembers(_ category: CategoryKeywords, matching match: String, around center: Coordinate,
                                within: Double?) throws -> [Hit] {
        // Counting and collecting the row ids are one read of the full-text index: a phrase ("fast food")
        // costs its position lists each time.
        let memberIDs = try SQLiteRow.int64s(db.cachedStatement(sql: "SELECT rowid FROM place_fts WHERE place_fts MATCH ? LIMIT ?"),
                                             arguments: [match, Self.memberSetLimit + 1])
        if memberIDs.count <= Self.fewMembers { return try members(memberIDs, around: center, within: within) }
        return try membersAround(category, memberIDs: memberIDs.count <= Self.memberSetLimit ? Set(memberIDs) : nil,
                                 around: center, within: within)
    }

    /// Up to this many members of a category are read whole by their row ids and sorted: each costs a row read
    /// (~1 µs), and the read around the point costs as much as reading the ring's entries.
    static let fewMembers = 2_000

    /// Up to this many members' row ids are collected (once per search, ~0.2 µs each) to test the R*Tree's
    /// entries around the point without reading their rows; in a city centre a sparse category ("hotel",
    /// 4,342 members at the scale benchmark's size) has its ten nearest 1 km out, among ~2,000 other POIs.
    static let memberSetLimit = 10_000

    /// The members nearest `center` (within `within` metres when given), nearest first, importance between
    /// equally near ones. Read from the R*Tree in boxes that double in size, each step reading only the
    /// ring outside the last box, until `limit` members lie closer than anything outside the box could be:
    /// the cost follows the neighbourhood, not how many members the category has in the whole index (a
    /// country holds tens of thousands of restaurants, and the first few thousand read in row order need
    /// not hold the nearest). With `memberIDs` (the full-text index's row ids for the category), an entry is a
    /// member when its row id is among them, tested before the row is read; without, each row's keywords are
    /// tested.
    private func membersAround(_ category: CategoryKeywords, memberIDs members: Set<Int64>?, around center: Coordinate,
                               within: Double?) throws -> [Hit] {
        var found: [Member] = []
        var condition = members == nil ? "p.keywords != ''" : "1"
        var arguments: StatementArguments = []
        if let filter {
            condition += " AND " + filter.sql
            arguments += filter.arguments
        }
        try PlacesAround(db: db, center: center, columns: "p.lat, p.lon, p.importance, p.keywords", condition: condition,
                         arguments: arguments, ids: members)
            .read(radii: within.map { [$0] } ?? PlacesAround.doubling(from: 250, upTo: nil)) { row in
                guard members != nil || category.contains(row.text(4)) else { return }
                let distance = GeoMath.distance(center, Coordinate(latitude: row.double(1), longitude: row.double(2)))
                if let within, distance > within { return }
                found.append(Member(rowid: row.int64(0), distance: distance, importance: row.double(3)))
            } enough: { boxRadius in
                // When `limit` members are settled, no member outside the box can be nearer than the page's last.
                PlacesAround.settled(found.map(\.distance), boxRadius: boxRadius) >= limit
            }
        return nearestFirst(found)
    }

    /// A category member read with its distance from the point searched around.
    private struct Member {
        var rowid: Int64
        var distance: Double
        var importance: Double
    }

    /// The page of members: nearest first, importance only between equally near ones, then row order.
    private func nearestFirst(_ members: [Member]) -> [Hit] {
        members.sorted { ($0.distance, -$0.importance, $0.rowid) < ($1.distance, -$1.importance, $1.rowid) }.prefix(limit).map {
            Hit(rowid: $0.rowid, score: 1 + 1 / (1 + $0.distance / 1_000))
        }
    }

    /// Without a point: the category's most important members.
    private func mostImportantMembers(matching match: String) throws -> [Hit] {
        var sql = """
            SELECT p.rowid, p.importance FROM place_fts CROSS JOIN place p ON p.rowid = place_fts.rowid
            WHERE place_fts MATCH ?
            """
        var arguments: StatementArguments = [match]
        restrict(&sql, &arguments, to: nil)
        sql += " ORDER BY p.importance DESC LIMIT \(limit)"
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { Hit(rowid: $0[0], score: 1 + ($0[1] as Double)) }
    }

    /// Every place `match` finds (a category's keywords, perhaps with other words), nearest `center` first
    /// (only those within `limitRadius` metres).
    private func members(matching match: String, around center: Coordinate, within limitRadius: Double?) throws -> [Hit] {
        var sql = """
            SELECT p.rowid, p.lat, p.lon, p.importance FROM place_fts CROSS JOIN place p ON p.rowid = place_fts.rowid
            WHERE place_fts MATCH ?
            """
        var arguments: StatementArguments = [match]
        restrict(&sql, &arguments, to: nil)
        var found: [Member] = []
        try SQLiteRow.forEach(db.cachedStatement(sql: sql), arguments: arguments) { row in
            if let member = member(row, around: center, within: limitRadius) { found.append(member) }
        }
        return nearestFirst(found)
    }

    /// The members whose row ids the full-text index gave (`memberIDs`, ascending), read by id, nearest `center`
    /// first (only those within `limitRadius` metres): what ``members(matching:around:within:)`` finds for the
    /// same match, without reading the full-text index a second time.
    private func members(_ memberIDs: [Int64], around center: Coordinate, within limitRadius: Double?) throws -> [Hit] {
        var found: [Member] = []
        try PlacesAround(db: db, center: center, columns: "p.lat, p.lon, p.importance", condition: filter?.sql ?? "1",
                         arguments: filter?.arguments ?? [])
            .read(rowids: memberIDs) { row in
                if let member = member(row, around: center, within: limitRadius) { found.append(member) }
            }
        return nearestFirst(found)
    }

    /// A row of `rowid, lat, lon, importance` as a member, or `nil` when it lies further than `limitRadius` metres.
    private func member(_ row: SQLiteRow, around center: Coordinate, within limitRadius: Double?) -> Member? {
        let distance = GeoMath.distance(center, Coordinate(latitude: row.double(1), longitude: row.double(2)))
        if let limitRadius, distance > limitRadius { return nil }
        return Member(rowid: row.int64(0), distance: distance, importance: row.double(3))
    }

    /// The places whose main name begins with `prefix` (four letters or more), most important first, addresses left
    /// out. Read from the main-name index alone (3,347 names begin "hels" at the scale benchmark's size: ~0.2 ms,
    /// against ~3.5 ms when every row was read to check its kind); the kinds of the few best are checked after.
    private func mainNamesBeginning(with prefix: String) throws -> [Hit] {
        let best = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT rowid, importance FROM place INDEXED BY place_by_search_name
            WHERE search_name >= ? AND search_name < ? ORDER BY importance DESC LIMIT ?
            """), arguments: [prefix, prefix + "\u{10FFFF}", limit * 4 + 20]).map { Hit(rowid: $0[0], score: $0[1]) }
        guard let padded = PaddedRowids(best.map(\.rowid)) else { return [] }
        let addresses = try Set(Int64.fetchAll(db.cachedStatement(sql: """
            SELECT rowid FROM place WHERE kind = 'address' AND rowid IN (\(padded.placeholders))
            """), arguments: padded.arguments))
        return Array(best.filter { !addresses.contains($0.rowid) }.prefix(limit))
    }

    /// The most important places whose main name begins with `prefix` (one to three letters), from
    /// ``NamePrefixes``' lists; for a longer list than those hold, from the importance index.
    private func mostImportant(startingWith prefix: String) throws -> [Hit] {
        if limit <= NamePrefixes.perPrefix {
            return try Row.fetchAll(db.cachedStatement(sql: """
                SELECT place, importance FROM name_prefix WHERE prefix = ? ORDER BY importance DESC LIMIT ?
                """), arguments: [prefix, limit]).map { Hit(rowid: $0[0], score: $0[1]) }
        }
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT rowid, importance FROM place INDEXED BY place_by_importance
            WHERE search_name >= ? AND search_name < ? AND kind != 'address' ORDER BY importance DESC LIMIT ?
            """), arguments: [prefix, prefix + "\u{10FFFF}", limit]).map { Hit(rowid: $0[0], score: $0[1]) }
    }

    // MARK: Which name matched

    /// The alternate name that holds every typed word (the last one possibly as a prefix) when the main
    /// name does not: what `matched_name` shows.
    static func matchedName(of place: Place, alternates: String, words: [String]) -> String? {
        guard !alternates.isEmpty else { return nil }
        func covers(_ nameWords: [String]) -> Int {
            let forms = nameWords + SearchText.joinedForms(nameWords)
            return words.filter { word in forms.contains { $0.hasPrefix(word) } }.count
        }
        let main = covers(SearchText.words(place.name))
        if main == words.count { return nil }
        var best: (name: String, covered: Int)?
        for alternate in alternates.split(separator: "\n") {
            let covered = covers(SearchText.words(String(alternate)))
            if covered > main, covered > (best?.covered ?? 0) { best = (String(alternate), covered) }
            if covered == words.count { break }
        }
        return best?.name
    }
}

/// The index keywords that mark a category's members, tested on a row's `keywords` text word by word the way
/// the full-text index splits it ("nightclub;restaurant" holds "restaurant"; "fast food" must be two words in a
/// row), so a member found through the R*Tree is one the full-text query `keywords : ("…")` would find.
struct CategoryKeywords {
    private let phrases: [[String]]

    init(_ keywords: [String]) {
        phrases = keywords.map(SearchText.words).filter { !$0.isEmpty }
    }

    func contains(_ keywords: String) -> Bool {
        let words = SearchText.words(keywords)
        return phrases.contains { phrase in
            words.count >= phrase.count && (0...(words.count - phrase.count)).contains { start in
                words[start..<(start + phrase.count)].elementsEqual(phrase)
            }
        }
    }
}

/// Typed words corrected to indexed words within one typo (4–7 letters) or two (8 and more).
///
/// The vocabulary (`search_term`, built at import) is looked up by each word's beginning and by its
/// ending: a typo leaves the part of the word before it and the part after it intact, so two index range
/// scans find every candidate, and only those are checked with a real edit distance. No name is scanned.
struct TypoCorrection {
    /// An FTS5 expression: each corrected word becomes "candidate OR candidate …".
    var match: String
    /// The closest correction of each word (the most used among equally close ones).
    var bestWords: [String]

    init?(words: [String], db: Database) throws {
        var parts: [String] = [], best: [String] = [], changed = false
        for word in words {
            let allowance = SearchText.typoAllowance(word)
            guard allowance > 0, try !Self.isIndexed(word, db: db) else {
                parts.append(FullTextQuery.quoted(word))
                best.append(word)
                continue
            }
            let candidates = try Self.candidates(for: word, allowance: allowance, db: db)
            guard let first = candidates.first else {
                parts.append(FullTextQuery.quoted(word))
                best.append(word)
                continue
            }
            changed = true
            parts.append("(" + candidates.prefix(8).map(FullTextQuery.quoted).joined(separator: " OR ") + ")")
            best.append(first)
        }
        guard changed else { return nil }
        match = parts.joined(separator: " AND ")
        bestWords = best
    }

    private static func isIndexed(_ word: String, db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM search_term WHERE length = ? AND term = ?)"),
                          arguments: [word.unicodeScalars.count, word]) ?? false
    }

    /// How long a beginning and an ending of a typed word of `length` letters are looked up by: one of
    /// the two is intact whatever the typos.
    ///
    /// With one typo at letter p (wrong, extra or missing), letters before p begin the indexed word and
    /// letters after it end it: a beginning of ⌈n/2⌉ letters and an ending of ⌊n/2⌋ cover every p. Only
    /// two neighbours swapped across the middle break both; ``candidates(for:allowance:db:)`` tries that
    /// one swap as a word of its own. The longer the keys, the fewer words a range holds ("kaisma": "kai…"
    /// and "…sma" rather than "ka…" and "…ma", a tenth of the vocabulary to check). With two typos (8 and
    /// more letters) each key is a little under half the word, so the typos may fall on either side of it.
    static func keyLengths(length: Int, allowance: Int) -> (head: Int, tail: Int) {
        if allowance == 1 { return ((length + 1) / 2, length / 2) }
        let half = max(1, (length - 1) / 2)
        return (half, half)
    }

    /// Indexed words within `allowance` edits, closest first, then the most used.
    static func candidates(for word: String, allowance: Int, db: Database) throws -> [String] {
        let scalars = Array(word.unicodeScalars)
        let keys = keyLengths(length: scalars.count, allowance: allowance)
        let head = String(String.UnicodeScalarView(scalars.prefix(keys.head)))
        let tail = String(String.UnicodeScalarView(scalars.reversed().prefix(keys.tail)))
        var middleSwap = scalars
        if allowance == 1, keys.head < scalars.count { middleSwap.swapAt(keys.head - 1, keys.head) }
        let lengths = ((scalars.count - allowance)...(scalars.count + allowance)).map(String.init).joined(separator: ",")
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT term, places FROM search_term WHERE length IN (\(lengths)) AND term >= ? AND term < ?
            UNION
            SELECT term, places FROM search_term WHERE length IN (\(lengths)) AND reversed >= ? AND reversed < ?
            UNION
            SELECT term, places FROM search_term WHERE length = ? AND term = ?
            """), arguments: [head, head + "\u{10FFFF}", tail, tail + "\u{10FFFF}",
                              scalars.count, String(String.UnicodeScalarView(middleSwap))])
        var found: [(term: String, distance: Int, places: Int)] = []
        while let row = try rows.next() {
            let term: String = row[0]
            if let distance = SearchText.editDistance(word, term, limit: allowance) { found.append((term, distance, row[1])) }
        }
        return found.sorted { ($0.distance, -$0.places, $0.term) < ($1.distance, -$1.places, $1.term) }.map(\.term)
    }
}

/// Builds FTS5 MATCH expressions from prepared words without letting punctuation become FTS syntax.
enum FullTextQuery {
    static func quoted(_ word: String) -> String {
        // Split and joined rather than Foundation's `replacingOccurrences`, which goes through NSString: a
        // one-command search paid for that bridge on every word.
        "\"" + word.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    static func any(_ words: [String]) -> String {
        words.map(quoted).joined(separator: " OR ")
    }

    /// Every word; with `prefixAll` or `prefixLast`, those words as beginnings too. A one-letter word is
    /// never a beginning: "k*" would merge the entries of every indexed word starting with k (there is no
    /// one-letter prefix index), tens of milliseconds for a match that says almost nothing.
    static func all(_ words: [String], prefixLast: Bool = false, prefixAll: Bool = false) -> String {
        words.enumerated().map { index, word in
            let prefix = (prefixAll || (prefixLast && index == words.count - 1)) && word.unicodeScalars.count >= 2
            return prefix ? quoted(word) + "*" : quoted(word)
        }.joined(separator: " AND ")
    }

    /// `match` restricted to the names (main, other and, with `brand`, the brand), as suggestions want.
    static func names(_ match: String, brand: Bool = true) -> String {
        (brand ? "{search_name search_alt brand} : (" : "{search_name search_alt} : (") + match + ")"
    }
}

/// Typed words read as an address on a street: the street's words and a house number, in either order ("Mannerheimintie
/// 999", "999 Mannerheimintie"), the number possibly followed by what addresses write after it: a staircase letter and
/// an apartment number ("Fredrikinkatu 22 B 5", "22 as 5"), a letter written apart ("8 a"), the other end of a range
/// ("14-16" is typed as two words). `nil` when the words are not so.
struct TypedAddress: Equatable {
    let street: [String]
    /// The forms of the number to look up, most precise first: with its letter, then the number alone.
    let numbers: [String]

    /// Words an address may hold after the number besides letters and numbers: apartment and floor.
    static let unitWords: Set<String> = ["as", "asunto", "krs", "lgh", "bst", "apt", "h"]

    init(street: [String], numbers: [String]) {
        self.street = street
        self.numbers = numbers
    }

    init?(_ typed: [String]) {
        guard typed.count >= 2, let first = typed.firstIndex(where: SearchText.isHouseNumber) else { return nil }
        let numberWord = typed[first]
        // "00150 Helsinki" is a postcode and a city: no house number begins with a zero.
        guard !numberWord.hasPrefix("0") else { return nil }
        let street: [String]
        var extras: [String] = []
        if first == 0 {
            street = Array(typed.dropFirst())
        } else {
            street = Array(typed[..<first])
            extras = Array(typed[(first + 1)...])
        }
        let isExtra = { (word: String) in
            word.allSatisfy(\.isNumber) && word.count <= 4 || word.count == 1 && word.allSatisfy(\.isLetter) || Self.unitWords.contains(word)
        }
        guard !street.isEmpty, !street.contains(where: { $0.first?.isNumber == true }), extras.count <= 3,
              extras.allSatisfy(isExtra) else { return nil }
        let digits = String(numberWord.prefix { $0.isNumber })
        var letter = numberWord.count > digits.count ? String(numberWord.dropFirst(digits.count)) : nil
        if letter == nil, let next = extras.first, next.count == 1, next.allSatisfy(\.isLetter) { letter = next }
        self.street = street
        numbers = letter.map { [digits + $0, digits] } ?? [digits]
    }
}
