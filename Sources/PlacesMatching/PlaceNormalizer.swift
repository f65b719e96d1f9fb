import PlacesCore

/// The text normalisation that makes two providers' spellings of one place comparable.
///
/// Every step is here so that the matcher, the file matcher and the tests agree on one meaning of
/// "the same name": accents and case via ``TextFolding/fold(_:)``, `&` as "and", apostrophes deleted
/// (so "Joe's" equals "Joes"), other punctuation as a space, and abbreviations spelled one way.
public enum PlaceNormalizer {
    /// Folded, punctuation-free text with single spaces: `"Joe's Café & Bar"` → `"joes cafe and bar"`.
    public static func normalize(_ text: String) -> String {
        if let ascii = normalizeASCII(text) { return ascii }
        let folded = TextFolding.fold(text)
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        func emit(_ scalar: Unicode.Scalar) {
            if pendingSpace, !out.isEmpty { out.append(" ") }
            pendingSpace = false
            out.append(scalar)
        }
        for scalar in folded.unicodeScalars {
            switch scalar {
            case "'", "`", "\u{00B4}": continue  // "Joe's" → "joes": providers drop apostrophes
            case "&", "+":
                pendingSpace = true
                for letter in "and".unicodeScalars { emit(letter) }
                pendingSpace = true
            default:
                if SearchText.isWordScalar(scalar) {
                    emit(scalar)
                } else {
                    pendingSpace = true
                }
            }
        }
        return String(out)
    }

    /// The same result for plain ASCII text in one pass over its bytes, where folding only lowercases;
    /// most names and every address in a large file take this path. `nil` for other text.
    static func normalizeASCII(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            var out = [UInt8]()
            out.reserveCapacity(bytes.count + 4)
            var pendingSpace = false
            for byte in bytes {
                guard byte < 0x80 else { return nil }
                switch byte {
                case UInt8(ascii: "'"), UInt8(ascii: "`"): continue
                case UInt8(ascii: "&"), UInt8(ascii: "+"):
                    if !out.isEmpty { out.append(0x20) }
                    out.append(contentsOf: [0x61, 0x6E, 0x64])
                    pendingSpace = true
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if pendingSpace, !out.isEmpty { out.append(0x20) }
                    pendingSpace = false
                    out.append(byte)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    if pendingSpace, !out.isEmpty { out.append(0x20) }
                    pendingSpace = false
                    out.append(byte + 0x20)
                default:
                    pendingSpace = true
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// The normalised tokens of a name with abbreviations spelled one way ("st" → "saint",
    /// "delicatessen" → "deli"), so word-level comparison sees them as equal.
    public static func nameTokens(_ name: String) -> [String] {
        var tokens = normalize(name).split(separator: " ").map { nameSynonyms[String($0)] ?? String($0) }
        // The directory style "Ivy, The" / "Bistro, Le": an article at the end belongs at the front.
        if tokens.count >= 2, let last = tokens.last, articles.contains(last) {
            tokens.insert(tokens.removeLast(), at: 0)
        }
        return tokens
    }

    /// A name without the qualifiers publishers add to it: a branch or city in parentheses
    /// ("Le Bistro (Los Angeles)"), and a host building or area after " - ", " – ", " | ", " @ " or " at "
    /// ("Orchid at the Westin", "Sakura - Japantown"). Two listings of one place agree on the head and
    /// differ in the qualifier. When nothing would remain, the name is kept as it is.
    public static func primaryName(_ name: String) -> String {
        guard name.contains(where: { qualifierStarts.contains($0) }) || name.localizedCaseInsensitiveContains(" at ") else {
            return name
        }
        var head = ""
        var depth = 0
        for character in name {
            switch character {
            case "(", "[": depth += 1
            case ")", "]": depth = max(0, depth - 1)
            default: if depth == 0 { head.append(character) }
            }
        }
        for separator in [" - ", " – ", " — ", " | ", " @ ", " at ", " At ", " AT "] {
            if let range = head.range(of: separator) {
                let before = String(head[..<range.lowerBound])
                if !normalize(before).isEmpty { head = before }
            }
        }
        return normalize(head).isEmpty ? name : head
    }

    private static let qualifierStarts: Set<Character> = ["(", "[", "-", "–", "—", "|", "@"]

    /// Articles a directory moves to the end of a name ("Oyster Bar, The").
    static let articles: Set<String> = ["the", "le", "la", "les", "el", "los", "las", "il", "der", "die", "das"]

    /// The distinctive part of a name: without "the", connecting words ("and", "ja", "och"), generic category words (cafe,
    /// restaurant, ravintola, hotel…) and legal suffixes (oy, inc, gmbh). It is never empty: a name
    /// made only of such words ("The Bar") keeps all its words.
    ///
    /// "The Cheesecake Factory" → "cheesecake factory"; "Hotel Bel-Air" → "bel air"; "Arts Delicatessen" → "arts".
    /// Qualifiers stay (see ``primaryName(_:)``): the matcher compares names with and without them.
    public static func coreName(_ name: String) -> String {
        coreTokens(nameTokens(name)).joined(separator: " ")
    }

    /// A name's words without articles, connecting words and company forms, kind words kept: "The Grill" →
    /// "grill", "Grill on the Alley" → "grill on alley".
    static func identifyingTokens(_ tokens: [String]) -> [String] {
        tokens.filter { !articles.contains($0) && !connectingWords.contains($0) && !legalSuffixes.contains($0) }
    }

    static func coreTokens(_ tokens: [String]) -> [String] {
        var kept = tokens
        // "The Cheesecake Factory", the directory style "Cheesecake Factory, The", "Restaurant The Zetor".
        kept.removeAll {
            $0 == "the" || connectingWords.contains($0) || genericClass($0) != nil || legalSuffixes.contains($0)
        }
        return kept.isEmpty ? tokens : kept
    }

    /// The words of a typed name that say which place it is, as typed: without kind words ("Bakery",
    /// "Ravintola", also mistyped), articles, connecting words, company forms, and a trailing locality that is
    /// one of `localities` (see ``trailingLocality(of:localities:)``). "Vamq Bakery" → "Vamq"; "Mito Bistro
    /// Helsinki" with Helsinki among the localities → "Mito". The whole name when nothing distinctive would
    /// remain ("The Bar"); "Vio Gallery" → "Vio", "Tola Sushi" → "Tola". The lookup's free id probe asks the paid source about these words only: the place
    /// meant carries each of them (or a word one slip from it), while a kind word also fits every other
    /// place of that kind nearby.
    public static func distinctiveWords(of name: String, localities: [String] = []) -> String {
        var words = name.split(whereSeparator: \.isWhitespace).map(String.init)
        if let split = trailingLocality(of: name, localities: localities) {
            var dropped = 0
            let localityWords = split.locality.split(separator: " ").count
            while dropped < localityWords, words.count > 1, let last = words.popLast() {
                dropped += max(1, normalize(last).split(separator: " ").count)
            }
            if words.count > 1, normalize(words[words.count - 1]) == "in" { words.removeLast() }
        }
        // Kind words here are wider than the matcher's generic words: also a kind of venue ("Sushi") and any
        // category a user may type ("Gallery", "Museum"), as bench/decoy_rates.py counts them.
        let kept = words.filter { word in
            nameTokens(word).contains {
                $0 != "the" && !connectingWords.contains($0) && !articles.contains($0) && genericClass($0) == nil
                    && !legalSuffixes.contains($0) && !kindWords.contains($0) && !CategoryWords.isCategoryPhrase($0)
            }
        }
        return (kept.isEmpty ? words : kept).joined(separator: " ")
    }

    /// The category classes a name's generic words announce ("Ravintola Savoy" → restaurant), so
    /// "Savoy Restaurant" agrees with it while "Savoy Bar" conflicts.
    static func genericClasses(_ tokens: [String]) -> Set<String> {
        Set(tokens.compactMap(genericClass))
    }

    /// The class of a generic word, also when mistyped ("Restuarant", "Ravintoal"): a long word
    /// within Jaro–Winkler 0.93 of a generic word is that word, or a typo would become the
    /// distinctive part of a name.
    static func genericClass(_ token: String) -> String? {
        if let exact = genericWordClass[token] { return exact }
        guard token.count >= 6 else { return nil }
        let codes = TextCode.encode(token)
        // A typo keeps the length within one and, almost always, the first letter.
        for (word, codesOfWord) in genericWordCodes
        where codesOfWord[0] == codes[0] && abs(codesOfWord.count - codes.count) <= 1
            && EditDistance.jaroWinkler(codes, codesOfWord) >= 0.93 {
            return genericWordClass[word]
        }
        return nil
    }

    private static let genericWordCodes: [(String, [UInt8])] = genericWordClass.keys.sorted()
        .filter { $0.count >= 6 }.map { ($0, TextCode.encode($0)) }

    /// A street line split into its house number and normalised street words ("Blv." → "boulevard",
    /// "Ninth" → "9th"). `"7 Carmine St."` → house number "7", street "carmine street".
    ///
    /// What publishers add around the street is dropped: text after the first comma, a suite, floor or
    /// cross-streets after the street type ("between 3rd and 4th sts."), and a directional at either end
    /// ("Main St. West" and "W Main St" are "main street"). "St" first is "Saint" ("St. Marks Pl").
    public static func address(_ text: String) -> NormalizedAddress {
        let streetLine = text.split(separator: ",", maxSplits: 1).first.map(String.init) ?? text
        var houseNumber: String?
        var street: [String] = []
        var typed = false
        for raw in normalize(streetLine).split(separator: " ") {
            let token = String(raw)
            if !street.isEmpty || houseNumber != nil, streetEnds.contains(token) { break }
            if let ordinal = ordinal(token) {
                if typed { break }
                street.append(ordinal)
                continue
            }
            if token.first?.isNumber == true {
                if houseNumber == nil { houseNumber = token }
                continue
            }
            // A single letter after the number ("12 B") is a staircase or unit, not a street word.
            if houseNumber != nil, token.count == 1, directionals[token] == nil { continue }
            if typed {
                // After the street type only a directional still belongs to the street.
                if directionals[token] != nil { continue }
                break
            }
            if street.isEmpty, token == "st" {
                street.append("saint")
                continue
            }
            let word = streetSynonyms[token] ?? directionals[token] ?? token
            if streetTypes.contains(word), street.contains(where: { !directionalWords.contains($0) }) { typed = true }
            street.append(word)
        }
        while street.count > 1, let first = street.first, directionalWords.contains(first) { street.removeFirst() }
        while street.count > 1, let last = street.last, directionalWords.contains(last) { street.removeLast() }
        return NormalizedAddress(houseNumber: houseNumber, street: street.joined(separator: " "))
    }

    /// "ninth", "9th", "9TH" → "9th"; `nil` for a word that is not an ordinal.
    static func ordinal(_ token: String) -> String? {
        if let number = ordinalWords[token] { return "\(number)th" }
        guard token.count >= 3, token.first?.isNumber == true else { return nil }
        let digits = token.prefix { $0.isNumber }
        guard ["st", "nd", "rd", "th"].contains(token.dropFirst(digits.count)) else { return nil }
        return digits + "th"
    }

    static let ordinalWords: [String: Int] = [
        "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
        "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
        "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
    ]

    /// Words after which a street line no longer names the street: units, floors, cross-streets.
    static let streetEnds: Set<String> = [
        "between", "btwn", "betw", "bet", "suite", "ste", "apt", "unit", "floor", "fl", "flr", "room", "rm",
        "level", "lvl", "near", "nr", "off", "corner", "cnr", "opposite", "opp", "inside", "in", "at", "and",
    ]

    static let streetTypes: Set<String> = Set(streetSynonyms.values).union(["way", "row", "walk", "mall"])

    static let directionalWords: Set<String> = Set(directionals.values)

    /// A city name reduced to what two listings of one place share: "W. Springfield" and "New York City"
    /// compare as "springfield" and "new york". Cities are weak evidence, so the reduction may be generous.
    public static func city(_ text: String) -> String {
        var words = normalize(text).split(separator: " ").map(String.init)
        if let alias = cityAliases[words.joined(separator: " ")] { return alias }
        words = words.map { nameSynonyms[$0] == "saint" ? "saint" : $0 }
        while words.count > 1, let first = words.first, directionals[first] != nil || directionalWords.contains(first) {
            words.removeFirst()
        }
        while words.count > 1, let last = words.last, ["city", "town", "village", "township"].contains(last) {
            words.removeLast()
        }
        return words.joined(separator: " ")
    }

    /// A name typed with a locality after it ("Kiasma Helsinki", "Maya Bar, Kallio", "Engel in Helsingfors"),
    /// split into the name and the locality, when the trailing words are one of `localities` (compared as
    /// ``city(_:)`` compares cities, so "Helsingfors" is "Helsinki"). `nil` when the name does not end with
    /// one, or when nothing distinctive would remain ("Hotel Helsinki" is a name, not a hotel in Helsinki).
    ///
    /// The localities come from the record being compared (the candidate's city, the query's city), never
    /// from a list of every city: "Café Paris" in Helsinki keeps its "Paris".
    public static func trailingLocality(of name: String, localities: [String]) -> (name: String, locality: String)? {
        let wanted = Set(localities.map(city).filter { !$0.isEmpty })
        guard !wanted.isEmpty else { return nil }
        let words = normalize(name).split(separator: " ").map(String.init)
        // At most three words of locality ("New York City"), and at least one word of name before them.
        for length in stride(from: min(3, words.count - 1), through: 1, by: -1) {
            let locality = words.suffix(length).joined(separator: " ")
            guard wanted.contains(city(locality)) else { continue }
            var rest = Array(words.dropLast(length))
            if rest.count > 1, rest.last == "in" { rest.removeLast() }
            let distinctive = rest.contains {
                $0 != "the" && !connectingWords.contains($0) && !articles.contains($0)
                    && genericClass(nameSynonyms[$0] ?? $0) == nil && !legalSuffixes.contains($0)
            }
            guard distinctive else { return nil }
            return (rest.joined(separator: " "), locality)
        }
        return nil
    }

    static let cityAliases: [String: String] = [
        "nyc": "new york", "ny": "new york", "manhattan": "new york", "la": "los angeles", "sf": "san francisco",
        "philly": "philadelphia", "dc": "washington", "washington dc": "washington", "vegas": "las vegas",
        "hki": "helsinki", "helsingfors": "helsinki",
    ]

    /// The E.164 form of a phone number (see ``PhoneNumber/e164(_:defaultRegion:)``).
    public static func phone(_ raw: String, defaultRegion: String?) -> String? {
        PhoneNumber.e164(raw, defaultRegion: defaultRegion)
    }

    static let nameSynonyms: [String: String] = [
        "st": "saint", "ste": "sainte", "mt": "mount", "ft": "fort", "bros": "brothers", "co": "company",
        "intl": "international", "ctr": "center", "centre": "center", "theatre": "theater", "n": "and",
        "delicatessen": "deli", "cafeteria": "cafe", "caffe": "cafe", "kafe": "cafe", "coffeehouse": "cafe",
        "restaurants": "restaurant", "ristorante": "restaurant", "restaurang": "restaurant", "hotelli": "hotel",
        "kahvila": "cafe", "baari": "bar", "grilli": "grill", "ravintola": "restaurant", "apteekki": "pharmacy", "dr": "doctor",
        "univ": "university", "natl": "national", "assn": "association", "dept": "department", "mkt": "market",
        "first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th", "sixth": "6th",
        "seventh": "7th", "eighth": "8th", "ninth": "9th", "tenth": "10th",
    ]

    /// Words that say what a place is rather than which one it is, with the class each announces.
    static let genericWordClass: [String: String] = [
        "restaurant": "restaurant", "bistro": "restaurant", "kitchen": "restaurant", "grill": "restaurant",
        "eatery": "restaurant", "brasserie": "restaurant", "trattoria": "restaurant", "diner": "restaurant",
        "cafe": "cafe", "coffee": "cafe", "espresso": "cafe", "tea": "cafe", "deli": "deli", "bakery": "bakery",
        "bar": "bar", "pub": "bar", "tavern": "bar", "lounge": "bar", "baari": "bar",
        "hotel": "hotel", "hostel": "hotel", "inn": "hotel", "motel": "hotel",
        "shop": "shop", "store": "shop", "kauppa": "shop", "kauppakeskus": "shop",
        "pharmacy": "pharmacy", "ravintola": "restaurant", "kahvila": "cafe", "hotelli": "hotel",
        "pizzeria": "restaurant", "ravintolat": "restaurant", "krog": "restaurant", "kahvio": "cafe",
        "konditoria": "bakery", "leipomo": "bakery", "bageri": "bakery", "pubi": "bar", "hostelli": "hotel",
        "books": "books", "bookstore": "books", "bookshop": "books", "kirja": "books", "kirjat": "books",
        "kirjakauppa": "books", "apotek": "pharmacy", "steakhouse": "restaurant", "taqueria": "restaurant",
        "cantina": "restaurant", "dining": "restaurant", "spa": "spa", "gym": "spa", "fitness": "spa",
        "sushi": "restaurant", "gallery": "gallery", "galleria": "gallery", "galleri": "gallery", "galerie": "gallery",
    ]

    /// Generic words that name a particular kind of venue within a class: two names that each carry
    /// one, and not the same one, are two venues ("Kultainen Grill" / "Kultainen Pizzeria").
    static let kindWords: [String] = [
        "grill", "pizzeria", "bistro", "diner", "trattoria", "brasserie", "tavern", "pub", "lounge", "bakery",
        "deli", "espresso", "tea", "eatery", "steakhouse", "sushi", "taqueria", "cantina", "noodle", "burger",
        "kebab", "spa", "gym", "salon", "pharmacy", "books", "bookstore", "dining",
    ]

    /// Words that join a name's parts rather than name anything: "Maya Bar & Grill" is "maya" once "&"
    /// (read as "and") goes, like "Maya Bar". Finnish, Swedish, German, French, Spanish and English.
    static let connectingWords: Set<String> = ["and", "ja", "och", "og", "und", "et", "y", "of"]

    static let legalSuffixes: Set<String> = [
        "inc", "llc", "ltd", "oy", "oyj", "ab", "ky", "gmbh", "ag", "sa", "srl", "plc", "corp", "corporation",
        "limited", "incorporated",
    ]

    static let streetSynonyms: [String: String] = [
        "st": "street", "str": "street", "ave": "avenue", "av": "avenue", "blvd": "boulevard", "blv": "boulevard",
        "rd": "road", "dr": "drive", "ln": "lane", "ct": "court", "pl": "place", "sq": "square",
        "hwy": "highway", "pkwy": "parkway", "ter": "terrace", "cres": "crescent", "plz": "plaza",
        "aly": "alley", "cir": "circle", "trl": "trail", "expy": "expressway", "fwy": "freeway",
    ]

    static let directionals: [String: String] = [
        "n": "north", "s": "south", "e": "east", "w": "west",
        "ne": "northeast", "nw": "northwest", "se": "southeast", "sw": "southwest",
    ]
}

/// A street address reduced to what two listings of one place share.
public struct NormalizedAddress: Hashable, Sendable {
    /// Compared exactly: "12" and "14" on one street are different buildings.
    public var houseNumber: String?
    /// Normalised street words with types and directionals spelled out.
    public var street: String
}
