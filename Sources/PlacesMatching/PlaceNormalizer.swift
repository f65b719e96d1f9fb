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
                if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
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
        normalize(name).split(separator: " ").map { nameSynonyms[String($0)] ?? String($0) }
    }

    /// The distinctive part of a name: without "the", connecting words ("and", "ja", "och"), generic category words (cafe,
    /// restaurant, ravintola, hotel…) and legal suffixes (oy, inc, gmbh). It is never empty: a name
    /// made only of such words ("The Bar") keeps all its words.
    ///
    /// "The Cheesecake Factory" → "cheesecake factory"; "Hotel Bel-Air" → "bel air"; "Arts Delicatessen" → "arts".
    public static func coreName(_ name: String) -> String {
        coreTokens(nameTokens(name)).joined(separator: " ")
    }

    static func coreTokens(_ tokens: [String]) -> [String] {
        var kept = tokens
        // "The Cheesecake Factory", the directory style "Cheesecake Factory, The", "Restaurant The Zetor".
        kept.removeAll {
            $0 == "the" || connectingWords.contains($0) || genericClass($0) != nil || legalSuffixes.contains($0)
        }
        return kept.isEmpty ? tokens : kept
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
    /// "W" → "west"). `"7 Carmine St."` → house number "7", street "carmine street".
    public static func address(_ text: String) -> NormalizedAddress {
        let streetLine = text.split(separator: ",", maxSplits: 1).first.map(String.init) ?? text
        var houseNumber: String?
        var street: [String] = []
        for raw in normalize(streetLine).split(separator: " ") {
            let token = String(raw)
            if token.first?.isNumber == true {
                if houseNumber == nil { houseNumber = token }
                continue
            }
            // A single letter after the number ("12 B") is a staircase or unit, not a street word.
            if houseNumber != nil, token.count == 1, directionals[token] == nil { continue }
            street.append(streetSynonyms[token] ?? directionals[token] ?? token)
        }
        return NormalizedAddress(houseNumber: houseNumber, street: street.joined(separator: " "))
    }

    /// The E.164 form of a phone number (see ``PhoneNumber/e164(_:defaultRegion:)``).
    public static func phone(_ raw: String, defaultRegion: String?) -> String? {
        PhoneNumber.e164(raw, defaultRegion: defaultRegion)
    }

    static let nameSynonyms: [String: String] = [
        "st": "saint", "ste": "sainte", "mt": "mount", "ft": "fort", "bros": "brothers", "co": "company",
        "intl": "international", "ctr": "center", "centre": "center", "theatre": "theater", "n": "and",
        "delicatessen": "deli", "cafeteria": "cafe", "caffe": "cafe", "kafe": "cafe", "coffeehouse": "cafe",
        "restaurants": "restaurant", "ristorante": "restaurant", "restaurang": "restaurant", "hotelli": "hotel",
        "kahvila": "cafe", "baari": "bar", "ravintola": "restaurant", "apteekki": "pharmacy", "dr": "doctor",
        "univ": "university", "natl": "national", "assn": "association", "dept": "department", "mkt": "market",
    ]

    /// Words that say what a place is rather than which one it is, with the class each announces.
    static let genericWordClass: [String: String] = [
        "restaurant": "restaurant", "bistro": "restaurant", "kitchen": "restaurant", "grill": "restaurant",
        "eatery": "restaurant", "brasserie": "restaurant", "trattoria": "restaurant", "diner": "restaurant",
        "cafe": "cafe", "coffee": "cafe", "espresso": "cafe", "tea": "cafe", "deli": "deli", "bakery": "bakery",
        "bar": "bar", "pub": "bar", "tavern": "bar", "lounge": "bar", "baari": "bar",
        "hotel": "hotel", "hostel": "hotel", "inn": "hotel", "motel": "hotel",
        "shop": "shop", "store": "shop", "kauppa": "shop",
        "pharmacy": "pharmacy", "ravintola": "restaurant", "kahvila": "cafe", "hotelli": "hotel",
        "pizzeria": "restaurant", "ravintolat": "restaurant", "krog": "restaurant", "kahvio": "cafe",
        "konditoria": "bakery", "leipomo": "bakery", "bageri": "bakery", "pubi": "bar", "hostelli": "hotel",
        "books": "books", "bookstore": "books", "bookshop": "books", "kirja": "books", "kirjat": "books",
        "kirjakauppa": "books", "apotek": "pharmacy",
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
