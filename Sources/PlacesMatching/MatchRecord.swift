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
    public var coordinate: Coordinate? { record.coordinate }

    let bytes: [UInt8]
    let sortedCount: Int
    let orderedCount: Int
    let streetCount: Int
    /// The core words in alphabetical order, deduplicated; starts index ``bytes``.
    let words: [WordSpan]
    let phoneKey: UInt64
    let houseKey: UInt64
    let cityKey: UInt64
    let categoryKey: UInt64
    /// Hash of the number words in the name ("Pizzeria 21"), 0 when there are none.
    let numbersKey: UInt64
    /// Bit per generic class ("restaurant", "cafe"…) the full name announces.
    let genericClasses: UInt32

    public init(_ record: MatchRecord, defaultRegion: String? = nil) {
        self.record = record
        let tokens = PlaceNormalizer.nameTokens(record.name)
        let coreTokens = PlaceNormalizer.coreTokens(tokens)
        coreName = coreTokens.joined(separator: " ")

        let distinct = Array(Set(coreTokens.map(TextCode.encode))).sorted { $0.lexicographicallyPrecedes($1) }
        var bytes: [UInt8] = []
        var words: [WordSpan] = []
        for codes in distinct {
            if !bytes.isEmpty { bytes.append(TextCode.space) }
            words.append(WordSpan(hash: Self.hash(codes), start: Int32(bytes.count), count: Int32(codes.count)))
            bytes.append(contentsOf: codes)
        }
        sortedCount = bytes.count
        let ordered = TextCode.encode(coreName)
        orderedCount = ordered.count
        bytes.append(contentsOf: ordered)

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
        let numbers = tokens.filter { $0.first?.isNumber == true }.sorted()
        numbersKey = numbers.isEmpty ? 0 : Self.key(numbers.joined(separator: " "))

        let region = record.countryCode ?? defaultRegion
        normalizedPhone = record.phone.flatMap { PlaceNormalizer.phone($0, defaultRegion: region) }
        phoneKey = Self.key(normalizedPhone)
        houseNumber = address?.houseNumber
        houseKey = Self.key(houseNumber)
        city = record.city.map(PlaceNormalizer.normalize).flatMap { $0.isEmpty ? nil : $0 }
        cityKey = Self.key(city)
        category = record.category.flatMap { PlaceCategory.normalize($0) ?? PlaceNormalizer.normalize($0) }
        categoryKey = Self.key(category)
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

    private static let classBits: [String: Int] = Dictionary(
        uniqueKeysWithValues: Set(PlaceNormalizer.genericWordClass.values).sorted().enumerated().map { ($1, $0) })
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
}
