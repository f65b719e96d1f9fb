import Foundation
import PlacesCore

/// The fields two listings of a place are compared on: what a CSV row, a provider's answer or a
/// user's query can all supply.
public struct MatchRecord: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    /// A street line ("7 Carmine St", "Mannerheimintie 12"); text after the first comma is ignored.
    public var address: String?
    public var city: String?
    public var phone: String?
    public var coordinate: Coordinate?
    /// Any provider's label; compared after ``PlaceCategory/normalize(_:)``.
    public var category: String?
    /// ISO 3166-1 alpha-2; the region national phone numbers are read in.
    public var countryCode: String?

    public init(id: String, name: String, address: String? = nil, city: String? = nil, phone: String? = nil,
                coordinate: Coordinate? = nil, category: String? = nil, countryCode: String? = nil) {
        self.id = id
        self.name = name
        self.address = address
        self.city = city
        self.phone = phone
        self.coordinate = coordinate
        self.category = category
        self.countryCode = countryCode
    }

    /// A provider's place, as the lookup pipeline compares it with what the user asked for.
    public init(place: Place) {
        var streetLine: String?
        if let street = place.address?.street {
            streetLine = [street, place.address?.houseNumber].compactMap { $0 }.joined(separator: " ")
        } else {
            streetLine = place.formattedAddress
        }
        self.init(id: place.id.description, name: place.name, address: streetLine, city: place.address?.city,
                  phone: place.phone, coordinate: place.coordinate,
                  category: place.categoryLabel, countryCode: place.address?.countryCode)
    }

    /// What the user asked for. `near` is taken as the place's position: a query typed "near" a
    /// place is usually within metres of it, and the distance rules then guard against far branches.
    public init(query: MatchQuery, id: String = "query") {
        self.init(id: id, name: query.name, address: query.address, city: query.city, phone: query.phone,
                  coordinate: query.near, category: query.category, countryCode: query.countryCode)
    }
}

/// One word of a prepared name: where its codes sit in ``PreparedRecord``'s byte buffer.
struct WordSpan: Sendable, Hashable {
    /// FNV-1a of the word's codes: the blocking key, and a quick inequality test.
    var hash: UInt64
    var start: Int32
    var count: Int32
}

/// A prepared name as the name scorers read it, in place: valid only inside ``PreparedRecord/withName(_:)``.
struct NameView {
    /// The distinct core words in alphabetical order; ``words`` index it.
    var sorted: UnsafeBufferPointer<UInt8>
    var words: UnsafeBufferPointer<WordSpan>
    /// The core name as written.
    var ordered: UnsafeBufferPointer<UInt8>

    /// The codes of one of ``words``.
    func word(_ span: WordSpan) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: sorted[Int(span.start)..<Int(span.start + span.count)])
    }
}

/// A record normalised once, so scoring it against thousands of candidates repeats no text work.
///
/// Everything the pair score reads is packed for the inner loop: one byte buffer holds the core
/// name's distinct words in alphabetical order, the core name as written, and the street, all as
/// ``TextCode`` codes; phone, house number, city, category and name numbers are 64-bit keys (0 when
/// absent). A class, so passing one to the scorer costs one reference count, not one per field.
public final class PreparedRecord: Sendable {
    public let record: MatchRecord
    /// "the", generic words and legal suffixes removed: what ``MatchReason``s quote.
    public let coreName: String
    /// The E.164 phone, when the number and its region allow it.
    public let normalizedPhone: String?
    let houseNumber: String?
    let city: String?
    let category: String?
    /// The record's point, kept beside its latitude in radians and that latitude's cosine, which the distance of
    /// every pair needs (``distance(to:)``) and which would otherwise be worked out again for each.
    public let coordinate: Coordinate?
    private let latitudeRadians: Double
    private let cosLatitude: Double

    let bytes: [UInt8]
    let sortedCount: Int
    let orderedCount: Int
    let streetCount: Int
    /// The core words in alphabetical order, deduplicated; starts index ``bytes``.
    let words: [WordSpan]
    /// Keys of the name's words with its kind words but without articles, connecting words and company forms,
    /// sorted and deduplicated: whether one name holds every word of the other ("The Grill" / "Grill on the
    /// Alley"), which the core words cannot tell once the kind words are gone.
    let nameWordKeys: [UInt64]
    let phoneKey: UInt64
    let houseKey: UInt64
    let cityKey: UInt64
    let categoryKey: UInt64
    /// The core name without its qualifiers ("Le Bistro (Los Angeles)" → "bistro"), when it has any:
    /// the name scorer takes the better of the names with and without them.
    let primary: PackedName?
    /// Keys of the qualifier's words ("Sketch (The Gallery)" → "gallery"), sorted; empty without a qualifier.
    let qualifierWordKeys: [UInt64]
    /// Hash of the number words in the name ("Pizzeria 21"), 0 when there are none.
    let numbersKey: UInt64
    /// Bit per generic class ("restaurant", "cafe"…) the full name announces.
    let genericClasses: UInt32
    /// ``genericClasses`` without the hotel class when the name also says another kind: what kind of
    /// venue the name announces ("Grand Hotel Cafe" → cafe, "Grand Hotel" → hotel).
    let kindClasses: UInt32
    /// Bit per specific kind word ("grill", "pizzeria", "bistro"…) in the name: "Kultainen Grill" and
    /// "Kultainen Pizzeria" are two restaurants although both words announce one class.
    let kindWords: UInt32
    /// The generic class bit of the record's category (category "cafe" → the class of "Cafe"), 0 when none.
    let categoryClass: UInt32
    /// The family of the record's category, or `nil` when it has none we know.
    let categoryFamily: CategoryFamily?
    /// A city, region or country rather than a venue.
    let isArea: Bool
    /// The country calling code of the record's country or, failing that, of its phone: 0 when unknown.
    /// Calling codes rather than countries, so a phone and a country code compare.
    let countryKey: UInt64
    /// The record carries a street address.
    var hasAddress: Bool { streetCount > 0 || houseKey != 0 }

    public init(_ record: MatchRecord, defaultRegion: String? = nil) {
        self.record = record
        coordinate = record.coordinate
        latitudeRadians = (record.coordinate?.latitude ?? 0) * .pi / 180
        cosLatitude = cos(latitudeRadians)
        let tokens = PlaceNormalizer.nameTokens(record.name)
        let coreTokens = PlaceNormalizer.coreTokens(tokens)
        coreName = coreTokens.joined(separator: " ")
        nameWordKeys = Array(Set(PlaceNormalizer.identifyingTokens(tokens).map { Self.key($0) })).sorted()

        let packed = PackedName(coreTokens)
        var bytes = packed.bytes
        let words = packed.words
        sortedCount = packed.sortedCount
        orderedCount = bytes.count - packed.sortedCount

        let primaryName = PlaceNormalizer.primaryName(record.name)
        if primaryName == record.name {
            primary = nil
            qualifierWordKeys = []
        } else {
            let primaryTokens = PlaceNormalizer.nameTokens(primaryName)
            primary = PackedName(PlaceNormalizer.coreTokens(primaryTokens))
            let inPrimary = Set(primaryTokens)
            qualifierWordKeys = Array(Set(PlaceNormalizer.identifyingTokens(tokens).filter { !inPrimary.contains($0) }.map { Self.key($0) }))
                .sorted()
        }

        let address = record.address.map(PlaceNormalizer.address)
        let street = TextCode.encode(address?.street ?? "")
        streetCount = street.count
        bytes.append(contentsOf: street)
        self.bytes = bytes
        self.words = words

        var classes: UInt32 = 0
        for name in PlaceNormalizer.genericClasses(tokens) {
            if let bit = Self.classBits[name] { classes |= 1 << bit }
        }
        genericClasses = classes
        // "Grand Hotel Cafe" is a café (in a hotel): the hotel word names the host, not the kind.
        let withoutHost = classes & ~Self.hotelClassBit
        kindClasses = withoutHost != 0 ? withoutHost : classes
        var kinds: UInt32 = 0
        for token in tokens {
            if let bit = PlaceNormalizer.kindWords.firstIndex(of: token) { kinds |= 1 << UInt32(bit) }
        }
        kindWords = kinds
        let numbers = tokens.filter { $0.first?.isNumber == true }.sorted()
        numbersKey = numbers.isEmpty ? 0 : Self.key(numbers.joined(separator: " "))

        let region = record.countryCode ?? defaultRegion
        normalizedPhone = record.phone.flatMap { PlaceNormalizer.phone($0, defaultRegion: region) }
        phoneKey = Self.key(normalizedPhone)
        houseNumber = address?.houseNumber
        houseKey = Self.key(houseNumber)
        city = record.city.map(PlaceNormalizer.city).flatMap { $0.isEmpty ? nil : $0 }
        cityKey = Self.key(city)
        let normalizedCategory = record.category.flatMap(PlaceCategory.normalize)
        category = normalizedCategory ?? record.category.map(PlaceNormalizer.normalize)
        categoryKey = Self.key(category)
        isArea = record.category.map(CategoryFamily.isArea) ?? false
        categoryFamily = isArea ? .area : normalizedCategory.flatMap(CategoryFamily.init(category:))
        categoryClass = normalizedCategory.flatMap { Self.classOfCategory[$0] }.flatMap { Self.classBits[$0] }.map { 1 << UInt32($0) } ?? 0
        let callingCode = record.countryCode.flatMap(PhoneNumber.callingCode(region:))
            ?? normalizedPhone.flatMap(PhoneNumber.callingCode(e164:))
        countryKey = Self.key(callingCode)
    }

    /// ``GeoMath/distance(_:_:)`` between the two records' points, term for term, with the latitudes' radians and
    /// cosines worked out once per record: `nil` when either has no point.
    func distance(to other: PreparedRecord) -> Double? {
        guard let a = coordinate, let b = other.coordinate else { return nil }
        let dLat = other.latitudeRadians - latitudeRadians
        let dLon = (b.longitude - a.longitude) * .pi / 180
        let sinLat = sin(dLat / 2), sinLon = sin(dLon / 2)
        let h = sinLat * sinLat + cosLatitude * other.cosLatitude * sinLon * sinLon
        return 2 * GeoMath.earthRadiusMeters * asin(min(1, h.squareRoot()))
    }

    static func hash<S: Sequence<UInt8>>(_ codes: S) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for c in codes { h = (h ^ UInt64(c)) &* 0x100_0000_01b3 }
        return h
    }

    /// A non-zero key for present text, 0 for absent.
    static func key(_ text: String?) -> UInt64 {
        guard let text, !text.isEmpty else { return 0 }
        return max(1, hash(text.utf8))
    }

    static let hotelClassBit: UInt32 = classBits["hotel"].map { 1 << UInt32($0) } ?? 0

    /// The families of a set of generic class bits.
    static func families(ofClasses classes: UInt32) -> UInt32 {
        var families: UInt32 = 0
        var rest = classes
        while rest != 0 {
            let bit = rest.trailingZeroBitCount
            families |= classFamilyBits[bit]
            rest &= rest - 1
        }
        return families
    }

    /// The family bit of each generic class, indexed by the class's bit.
    private static let classFamilyBits: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 32)
        for (name, bit) in classBits { table[bit] = CategoryFamily(genericClass: name)?.bit ?? 0 }
        return table
    }()

    /// The generic class a normalised category belongs to, for comparing a name's generic words with it.
    private static let classOfCategory: [String: String] = [
        "cafe": "cafe", "restaurant": "restaurant", "fast_food": "restaurant", "bar": "bar", "pub": "bar",
        "nightclub": "bar", "bakery": "bakery", "hotel": "hotel", "hostel": "hotel", "shop": "shop",
        "supermarket": "shop", "convenience": "shop", "clothes": "shop", "books": "books", "pharmacy": "pharmacy",
        "gym": "spa", "sports": "spa", "gallery": "gallery",
    ]

    private static let classBits: [String: Int] = Dictionary(
        uniqueKeysWithValues: Set(PlaceNormalizer.genericWordClass.values).sorted().enumerated().map { ($1, $0) })
}

/// Broad kinds of place: two records whose categories fall in different families (a bank and a bar,
/// a museum and a restaurant) are evidence of two places; a café and a bar may be one.
enum CategoryFamily: UInt8, Sendable {
    case food, lodging, shop, health, finance, culture, leisure, education, services, area

    var bit: UInt32 { 1 << UInt32(rawValue) }

    init?(category: String) {
        guard let family = Self.byCategory[category] else { return nil }
        self = family
    }

    init?(genericClass: String) {
        switch genericClass {
        case "restaurant", "cafe", "deli", "bakery", "bar": self = .food
        case "hotel": self = .lodging
        case "shop", "books": self = .shop
        case "pharmacy": self = .health
        case "spa": self = .leisure
        case "gallery": self = .culture
        default: return nil
        }
    }

    /// Labels for cities, regions and countries, and for the parts of a city and streets a local index holds:
    /// GeoNames rows, OSM `place=*`, `boundary=*` and `highway=*`, Google's and Nominatim's types. None of them is
    /// a venue a listing describes.
    static func isArea(_ label: String) -> Bool {
        let folded = label.lowercased()
        if folded.hasPrefix("place=") || folded.hasPrefix("geonames=") || folded.hasPrefix("boundary=") || folded.hasPrefix("highway=") {
            return true
        }
        return areaLabels.contains(folded)
    }

    private static let areaLabels: Set<String> = [
        "city", "town", "village", "hamlet", "municipality", "county", "state", "province", "region", "country",
        "locality", "political", "administrative", "administrative_area_level_1", "administrative_area_level_2",
        "sublocality", "neighborhood", "neighbourhood", "suburb", "postal_code",
        // A local index's labels for streets and parts of a city (OSMPlaceExtractor).
        "street", "square", "quarter", "borough", "district", "island", "islet", "postcode",
    ]

    private static let byCategory: [String: CategoryFamily] = [
        "cafe": .food, "restaurant": .food, "fast_food": .food, "bar": .food, "pub": .food, "nightclub": .food,
        "bakery": .food, "ice_cream": .food,
        "hotel": .lodging, "hostel": .lodging,
        "supermarket": .shop, "convenience": .shop, "shop": .shop, "clothes": .shop, "books": .shop,
        "pharmacy": .health, "hospital": .health, "doctor": .health, "dentist": .health,
        "bank": .finance, "atm": .finance,
        "museum": .culture, "gallery": .culture, "theatre": .culture, "cinema": .culture, "attraction": .culture,
        "library": .culture, "historic": .culture, "place_of_worship": .culture,
        "park": .leisure, "sports": .leisure, "gym": .leisure,
        "school": .education, "university": .education,
        "post_office": .services, "fuel": .services, "parking": .services, "police": .services,
        "townhall": .services, "toilets": .services, "office": .services, "craft": .services,
        "city": .area,
    ]
}

extension PreparedRecord {
    /// Lends the name's packed buffers without copying them: the pair scorers run millions of times a second.
    func withName<Result>(_ body: (NameView) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { bytes in
            words.withUnsafeBufferPointer { words in
                body(NameView(sorted: UnsafeBufferPointer(rebasing: bytes[0..<sortedCount]), words: words,
                              ordered: UnsafeBufferPointer(rebasing: bytes[sortedCount..<sortedCount + orderedCount])))
            }
        }
    }

    /// Lends the name without qualifiers, or the name itself when it has none.
    func withPrimaryName<Result>(_ body: (NameView) -> Result) -> Result {
        guard let primary else { return withName(body) }
        return primary.bytes.withUnsafeBufferPointer { bytes in
            primary.words.withUnsafeBufferPointer { words in
                body(NameView(sorted: UnsafeBufferPointer(rebasing: bytes[0..<primary.sortedCount]), words: words,
                              ordered: UnsafeBufferPointer(rebasing: bytes[primary.sortedCount...])))
            }
        }
    }
}

/// A core name packed as ``NameView`` reads it: distinct words in alphabetical order, then the name as written.
struct PackedName: Sendable {
    let bytes: [UInt8]
    let words: [WordSpan]
    let sortedCount: Int

    init(_ coreTokens: [String]) {
        let distinct = Array(Set(coreTokens.map(TextCode.encode))).sorted { $0.lexicographicallyPrecedes($1) }
        var bytes: [UInt8] = []
        var words: [WordSpan] = []
        for codes in distinct {
            if !bytes.isEmpty { bytes.append(TextCode.space) }
            words.append(WordSpan(hash: PreparedRecord.hash(codes), start: Int32(bytes.count), count: Int32(codes.count)))
            bytes.append(contentsOf: codes)
        }
        sortedCount = bytes.count
        bytes.append(contentsOf: TextCode.encode(coreTokens.joined(separator: " ")))
        self.bytes = bytes
        self.words = words
    }
}
