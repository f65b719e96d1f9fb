import Foundation

/// Words people type for a kind of place ("chemist", "bookshop", "cash machine") and the category words
/// the index stores for it: OSM tag values (`shop=chemist` → "chemist", `amenity=atm` → "atm") and the
/// normalised categories of ``PlaceCategory`` ("pharmacy", "books").
///
/// A query that holds one of these phrases becomes a category search: real members of the category rank
/// above places that merely have the word in their name (Nominatim calls these "special phrases").
public enum CategoryWords {
    /// A category phrase found in a query.
    public struct Match: Hashable, Sendable {
        /// The words of the query that named the category.
        public var phrase: [String]
        /// Index keywords (space-separated words) that mark a member of the category.
        public var keywords: [String]
        /// The query's other words, which name the place or where it is ("pharmacy kamppi" → ["kamppi"]).
        public var rest: [String]
    }

    /// Typed phrase → the index keywords it means. Every normalised category and its plural is added
    /// below, so this lists only what differs from the category's own name.
    static let synonyms: [String: [String]] = [
        "chemist": ["pharmacy", "chemist"], "chemists": ["pharmacy", "chemist"], "drugstore": ["pharmacy", "chemist"],
        "apothecary": ["pharmacy"], "pharmacy": ["pharmacy", "chemist"], "pharmacies": ["pharmacy", "chemist"],
        "bookshop": ["books"], "bookshops": ["books"], "bookstore": ["books"], "bookstores": ["books"],
        "book shop": ["books"], "book store": ["books"], "books": ["books"],
        "atm": ["atm"], "atms": ["atm"], "cash machine": ["atm"], "cash machines": ["atm"], "cashpoint": ["atm"],
        "cash point": ["atm"], "cash dispenser": ["atm"],
        "jewellery": ["jewelry"], "jewelry": ["jewelry"], "jeweller": ["jewelry"], "jeweler": ["jewelry"],
        "jewellers": ["jewelry"], "jewelers": ["jewelry"], "jewellery shop": ["jewelry"], "jewelry store": ["jewelry"],
        "supermarket": ["supermarket"], "supermarkets": ["supermarket"], "grocery": ["supermarket", "convenience", "greengrocer"],
        "groceries": ["supermarket", "convenience"], "grocery store": ["supermarket"], "food store": ["supermarket"],
        "convenience store": ["convenience"], "corner shop": ["convenience"], "kiosk": ["kiosk", "convenience"],
        "cafe": ["cafe"], "cafes": ["cafe"], "coffee": ["cafe"], "coffee shop": ["cafe"], "coffee shops": ["cafe"],
        "coffeehouse": ["cafe"], "restaurant": ["restaurant"], "restaurants": ["restaurant"], "eatery": ["restaurant"],
        "fast food": ["fast food"], "takeaway": ["fast food"], "bar": ["bar"], "bars": ["bar"], "pub": ["pub"],
        "pubs": ["pub"], "nightclub": ["nightclub"], "night club": ["nightclub"], "club": ["nightclub"],
        "bakery": ["bakery"], "bakeries": ["bakery"], "baker": ["bakery"], "ice cream": ["ice cream"],
        "gelato": ["ice cream"], "hospital": ["hospital"], "hospitals": ["hospital"], "doctor": ["doctors", "doctor", "clinic"],
        "doctors": ["doctors", "doctor", "clinic"], "clinic": ["clinic", "doctors"], "dentist": ["dentist"],
        "dentists": ["dentist"], "bank": ["bank"], "banks": ["bank"], "post office": ["post office"],
        "petrol station": ["fuel"], "gas station": ["fuel"], "filling station": ["fuel"], "petrol": ["fuel"],
        "car park": ["parking"], "parking": ["parking"], "parking lot": ["parking"], "hotel": ["hotel"],
        "hotels": ["hotel"], "motel": ["motel", "hotel"], "guest house": ["guest house"], "hostel": ["hostel"],
        "hostels": ["hostel"], "museum": ["museum"], "museums": ["museum"], "gallery": ["gallery"],
        "art museum": ["museum"],
        "art gallery": ["gallery"], "galleries": ["gallery"], "theatre": ["theatre"], "theater": ["theatre"],
        "theatres": ["theatre"], "theaters": ["theatre"], "cinema": ["cinema"], "cinemas": ["cinema"],
        "movie theater": ["cinema"], "movies": ["cinema"], "park": ["park"], "parks": ["park"],
        "playground": ["playground"], "gym": ["fitness centre", "gym"], "fitness": ["fitness centre"],
        "fitness centre": ["fitness centre"], "fitness center": ["fitness centre"], "school": ["school"],
        "schools": ["school"], "university": ["university"], "college": ["college", "university"],
        "library": ["library"], "libraries": ["library"], "church": ["place of worship"], "churches": ["place of worship"],
        "place of worship": ["place of worship"], "mosque": ["place of worship"], "synagogue": ["place of worship"],
        "temple": ["place of worship"], "town hall": ["townhall"], "city hall": ["townhall"], "police": ["police"],
        "police station": ["police"], "toilet": ["toilets"], "toilets": ["toilets"], "restroom": ["toilets"],
        "wc": ["toilets"], "clothes": ["clothes"], "clothing": ["clothes"], "clothes shop": ["clothes"],
        "clothing store": ["clothes"], "fashion": ["clothes", "boutique"], "boutique": ["boutique"],
        "hairdresser": ["hairdresser"], "hairdressers": ["hairdresser"], "barber": ["hairdresser"],
        "hair salon": ["hairdresser"], "optician": ["optician"], "opticians": ["optician"], "florist": ["florist"],
        "flower shop": ["florist"], "flowers": ["florist"], "shoe shop": ["shoes"], "shoes": ["shoes"],
        "shoe store": ["shoes"], "toy shop": ["toys"], "toys": ["toys"], "electronics": ["electronics"],
        "furniture": ["furniture"], "hardware store": ["hardware", "doityourself"], "hardware": ["hardware", "doityourself"],
        "bicycle shop": ["bicycle"], "bike shop": ["bicycle"], "beauty salon": ["beauty"], "beauty": ["beauty"],
        "laundry": ["laundry", "dry cleaning"], "dry cleaner": ["dry cleaning"], "pet shop": ["pet"],
        "liquor store": ["alcohol"], "off licence": ["alcohol"], "wine shop": ["wine", "alcohol"],
        "tobacconist": ["tobacco"], "gift shop": ["gift"], "souvenirs": ["gift"], "sports shop": ["sports"],
        "mobile phone shop": ["mobile phone"], "phone shop": ["mobile phone"], "computer shop": ["computer"],
        "stationery": ["stationery"], "music shop": ["music"], "record shop": ["music"], "travel agency": ["travel agency"],
        "travel agent": ["travel agency"], "vet": ["veterinary"], "veterinarian": ["veterinary"], "veterinary": ["veterinary"],
        "department store": ["department store"], "mall": ["mall"], "shopping centre": ["mall"], "shopping center": ["mall"],
        "marketplace": ["marketplace"], "market": ["marketplace"], "embassy": ["embassy"], "embassies": ["embassy"],
        "attraction": ["attraction"], "sights": ["attraction"], "viewpoint": ["viewpoint"], "monument": ["monument"],
        "memorial": ["memorial"], "artwork": ["artwork"], "statue": ["artwork", "memorial"], "sauna": ["sauna"],
        "swimming pool": ["swimming pool"], "pool": ["swimming pool"], "dance school": ["dance"],
        "community centre": ["community centre"], "arts centre": ["arts centre"], "information": ["information"],
        "tourist information": ["information"], "charging station": ["charging station"], "ferry terminal": ["ferry terminal"],
        "car rental": ["car rental"], "car hire": ["car rental"], "bicycle rental": ["bicycle rental"],
        "bike rental": ["bicycle rental"], "copyshop": ["copyshop"], "print shop": ["copyshop"], "bureau de change": ["bureau de change"],
        "currency exchange": ["bureau de change"], "casino": ["casino"], "tattoo": ["tattoo"], "massage": ["massage"],
        "spa": ["spa", "massage"], "nursery": ["kindergarten"], "kindergarten": ["kindergarten"],
        "convenience": ["convenience"], "deli": ["deli"], "delicatessen": ["deli"], "butcher": ["butcher"],
        "greengrocer": ["greengrocer"], "confectionery": ["confectionery"], "sweets": ["confectionery"],
        "chocolate": ["chocolate"], "tea shop": ["tea"], "second hand": ["second hand"], "charity shop": ["charity"],
        "thrift store": ["second hand", "charity"], "antiques": ["antiques"], "art shop": ["art"], "photo shop": ["photo"],
        "outdoor shop": ["outdoor"], "cosmetics": ["cosmetics"], "perfumery": ["perfumery"], "bag shop": ["bag"],
        "watches": ["watches"], "interior decoration": ["interior decoration"], "kitchen shop": ["kitchen"],
        "variety store": ["variety store"], "newsagent": ["newsagent"], "lottery": ["lottery"], "fabric shop": ["fabric"],
        "craft shop": ["craft"], "dive centre": ["scuba diving"], "coworking": ["coworking"], "office": ["office"],
        // Cuisines: the importer keeps a restaurant's `cuisine` values among its keywords, so "sushi kamppi" lists the
        // sushi bars around Kamppi as "pharmacy kamppi" lists pharmacies (read as names, the words found a chapel and
        // Japanese towns whose transliterations hold "su shi").
        "sushi": ["sushi"], "pizza": ["pizza"], "pizzas": ["pizza"], "pizzeria": ["pizza"], "pizzerias": ["pizza"],
        "burger": ["burger"], "burgers": ["burger"], "hamburger": ["burger"], "hamburgers": ["burger"],
        "kebab": ["kebab"], "kebabs": ["kebab"], "ramen": ["ramen"], "noodles": ["noodle", "ramen"], "thai": ["thai"],
        "indian": ["indian"], "nepalese": ["nepalese"], "chinese": ["chinese"], "japanese": ["japanese", "sushi"],
        "korean": ["korean"], "vietnamese": ["vietnamese"], "italian": ["italian"], "mexican": ["mexican"],
        "greek": ["greek"], "turkish": ["turkish", "kebab"], "lebanese": ["lebanese"],
    ]

    /// Every typed phrase, with the normalised categories' own names and plurals added.
    static let phrases: [String: [String]] = {
        var phrases = synonyms
        for category in PlaceCategory.all where category != "city" {
            // Not Foundation's `replacingOccurrences`: through NSString, these sixty calls were a tenth of the
            // CPU a one-command search spends after parsing its arguments.
            let words = String(category.map { $0 == "_" ? " " : $0 })
            if phrases[words] == nil { phrases[words] = [words] }
            if phrases[words + "s"] == nil { phrases[words + "s"] = [words] }
        }
        return phrases
    }()

    /// The longest category phrase in `words` (folded words, see ``SearchText/words(_:)``), if any; of two as long,
    /// the last: the head of an English noun phrase comes last ("italian embassy" is an embassy, "sushi restaurant"
    /// a restaurant). Words that only praise or place the kind ("best pizza", "nearest pharmacy") are not part of
    /// the rest: read as a name, "best" anchored "best pizza" on the Dutch town of Best.
    public static func find(in words: [String]) -> Match? {
        for length in stride(from: min(3, words.count), through: 1, by: -1) {
            for start in (0...(words.count - length)).reversed() {
                let phrase = Array(words[start..<(start + length)])
                if let keywords = phrases[phrase.joined(separator: " ")] {
                    let rest = Array(words[..<start]) + Array(words[(start + length)...])
                    return Match(phrase: phrase, keywords: keywords, rest: rest.filter { !qualifiers.contains($0) })
                }
            }
        }
        return nil
    }

    /// Words typed beside a kind of place that say which of its members are wanted, not what they are called.
    static let qualifiers: Set<String> = [
        "best", "good", "great", "nice", "top", "cheap", "popular", "local", "nearby", "nearest", "closest",
    ]

    /// Whether a phrase is known (for tests and the query-set generator's sanity checks).
    public static func isCategoryPhrase(_ text: String) -> Bool { phrases[SearchText.words(text).joined(separator: " ")] != nil }
}
