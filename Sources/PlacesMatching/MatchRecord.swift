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
                  category: place.category ?? place.categories.first, countryCode: place.address?.countryCode)
    }

    /// What the user asked for. `near` is taken as the place's position: a query typed "near" a
    /// place is usually within metres of it, and the distance rules then guard against far branches.
    public init(query: MatchQuery, id: String = "query") {
        self.init(id: id, name: query.name, address: query.address, city: query.city, phone: query.phone,
                  coordinate: query.near, countryCode: query.countryCode)
    }
}

/// A name split into words once: the words sorted by a stable hash and joined with spaces, so
/// token-set and token-sort comparisons need no allocation per pair.
struct TokenizedName: Sendable, Hashable {
    struct Span: Sendable, Hashable {
        var hash: UInt64
        var start: Int32
        var count: Int32
    }

    /// Distinct words, ordered by ``Span/hash``, joined with ``TextCode/space``.
    var sorted: [UInt8]
    var spans: [Span]

    init(_ tokens: [String]) {
        var seen = Set<String>()
        let encoded = tokens.filter { seen.insert($0).inserted }
            .map { token -> (UInt64, [UInt8]) in let codes = TextCode.encode(token); return (Self.hash(codes), codes) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1.lexicographicallyPrecedes($1.1) }
        var sorted: [UInt8] = []
        var spans: [Span] = []
        for (hash, codes) in encoded {
            if !sorted.isEmpty { sorted.append(TextCode.space) }
            spans.append(Span(hash: hash, start: Int32(sorted.count), count: Int32(codes.count)))
            sorted.append(contentsOf: codes)
        }
        self.sorted = sorted
        self.spans = spans
    }

    static func hash(_ codes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for c in codes { h = (h ^ UInt64(c)) &* 0x100_0000_01b3 }
        return h
    }
}

/// A record normalised once, so scoring it against thousands of candidates repeats no text work.
public struct PreparedRecord: Sendable {
    public let record: MatchRecord
    let core: TokenizedName
    /// The core words in their written order, for typos that move a word break.
    let coreOrdered: [UInt8]
    let full: TokenizedName
    /// Bit per generic class ("restaurant", "cafe"…) the full name announces.
    let genericClasses: UInt32
    /// Hashes of number words in the name ("Pizzeria 21"), sorted.
    let numbers: [UInt64]
    let phone: String?
    let houseNumber: String?
    let street: [UInt8]
    let city: String?
    let category: String?
    public let coordinate: Coordinate?
    /// Core-name word hashes, for blocking candidates by shared words.
    var coreTokenHashes: [UInt64] { core.spans.map(\.hash) }
    public var normalizedPhone: String? { phone }
    public var coreName: String

    public init(_ record: MatchRecord, defaultRegion: String? = nil) {
        self.record = record
        let tokens = PlaceNormalizer.nameTokens(record.name)
        let coreTokens = PlaceNormalizer.coreTokens(tokens)
        coreName = coreTokens.joined(separator: " ")
        core = TokenizedName(coreTokens)
        coreOrdered = TextCode.encode(coreName)
        full = TokenizedName(tokens)
        var classes: UInt32 = 0
        for name in PlaceNormalizer.genericClasses(tokens) {
            if let bit = Self.classBits[name] { classes |= 1 << bit }
        }
        genericClasses = classes
        numbers = tokens.filter { $0.first?.isNumber == true }.map { TokenizedName.hash(TextCode.encode($0)) }.sorted()
        let region = record.countryCode ?? defaultRegion
        phone = record.phone.flatMap { PlaceNormalizer.phone($0, defaultRegion: region) }
        if let address = record.address.map(PlaceNormalizer.address) {
            houseNumber = address.houseNumber
            street = TextCode.encode(address.street)
        } else {
            houseNumber = nil
            street = []
        }
        city = record.city.map(PlaceNormalizer.normalize).flatMap { $0.isEmpty ? nil : $0 }
        category = record.category.flatMap { PlaceCategory.normalize($0) ?? PlaceNormalizer.normalize($0) }
        coordinate = record.coordinate
    }

    private static let classBits: [String: Int] = Dictionary(
        uniqueKeysWithValues: Set(PlaceNormalizer.genericWordClass.values).sorted().enumerated().map { ($1, $0) })
}
