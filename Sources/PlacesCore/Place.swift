import Foundation

/// One place as a provider (or a merge of providers) describes it.
///
/// Every optional field is genuinely optional: providers differ in what they know, and the lookup
/// pipeline decides from `nil`s whether a cheap answer is complete enough to stop paying.
public struct Place: Hashable, Sendable, Codable {
    public var id: PlaceID
    public var name: String
    public var coordinate: Coordinate
    public var address: PostalAddress?
    /// One line, as the provider formats it, or as ``PostalAddress/formatted`` builds it.
    public var formattedAddress: String?
    /// E.164 (`+358912345678`) when the number and its region allow it; otherwise the provider's text.
    public var phone: String?
    public var website: String?
    /// The provider's own category labels (`amenity=cafe`, `coffee_shop`, `Coffee Shop`).
    public var categories: [String]
    /// One normalised category shared by all providers (see ``PlaceCategory``).
    public var category: String?
    /// What the place is, to show or to compare: the normalised category, else the provider's first label
    /// (`amenity=bicycle_rental`; `street` for a local index's street).
    public var categoryLabel: String? { category ?? categories.first }
    public var brand: String?
    /// Opening hours as text: OSM's `opening_hours` value, or a provider's weekday descriptions.
    public var openingHoursText: String?
    /// Structured weekly hours from providers that give periods (Google, Yelp, Foursquare).
    public var openingPeriods: [WeeklyOpenPeriod]?
    /// IANA zone (`Europe/Helsinki`), when the provider or the local GeoNames index knows it.
    public var timeZone: String?
    public var utcOffsetMinutes: Int?
    public var rating: Double?
    public var ratingCount: Int?
    public var status: BusinessStatus?
    /// Licence text that must be shown with this data ("© OpenStreetMap contributors").
    public var attribution: String?
    /// Other ids known to name the same place (`yelp:…` on a merged Google record).
    public var alternateIDs: [PlaceID]
    /// Which provider each field came from, and when it was fetched.
    public var provenance: [PlaceField: FieldSource]
    /// How a search reached this place, when not by its main name or not exactly: set by the local index.
    public var searchMatch: SearchMatch? = nil

    public init(
        id: PlaceID, name: String, coordinate: Coordinate, address: PostalAddress? = nil,
        formattedAddress: String? = nil, phone: String? = nil, website: String? = nil,
        categories: [String] = [], category: String? = nil, brand: String? = nil,
        openingHoursText: String? = nil, openingPeriods: [WeeklyOpenPeriod]? = nil,
        timeZone: String? = nil, utcOffsetMinutes: Int? = nil, rating: Double? = nil,
        ratingCount: Int? = nil, status: BusinessStatus? = nil, attribution: String? = nil,
        alternateIDs: [PlaceID] = [], provenance: [PlaceField: FieldSource] = [:]
    ) {
        self.id = id
        self.name = name
        self.coordinate = coordinate
        self.address = address
        self.formattedAddress = formattedAddress
        self.phone = phone
        self.website = website
        self.categories = categories
        self.category = category
        self.brand = brand
        self.openingHoursText = openingHoursText
        self.openingPeriods = openingPeriods
        self.timeZone = timeZone
        self.utcOffsetMinutes = utcOffsetMinutes
        self.rating = rating
        self.ratingCount = ratingCount
        self.status = status
        self.attribution = attribution
        self.alternateIDs = alternateIDs
        self.provenance = provenance
    }

    /// Records that every present field came from `provider` at `date`: what a provider does
    /// to its own results before returning them.
    public func attributed(to provider: String, at date: Date) -> Place {
        var copy = self
        let source = FieldSource(provider: provider, fetchedAt: date)
        for field in PlaceField.allCases where copy.has(field) {
            copy.provenance[field] = source
        }
        return copy
    }

    /// Whether the field carries a value. The pipeline uses it to decide if `--fields` are satisfied.
    public func has(_ field: PlaceField) -> Bool {
        switch field {
        case .id, .name, .coordinate: true
        case .address: address != nil || formattedAddress != nil
        case .phone: phone != nil
        case .website: website != nil
        case .categories: !categories.isEmpty || category != nil
        case .brand: brand != nil
        case .hours: openingHoursText != nil || openingPeriods != nil
        case .timeZone: timeZone != nil || utcOffsetMinutes != nil
        case .rating: rating != nil
        case .status: status != nil
        }
    }

    /// The moment the oldest field was fetched; `nil` for a place built by hand.
    public var fetchedAt: Date? { provenance.values.map(\.fetchedAt).min() }
}

/// The fields a caller can ask for (`--fields phone,website,hours`). Providers that bill by field
/// (Google) build their request from this set.
public enum PlaceField: String, CaseIterable, Sendable, Codable, CodingKeyRepresentable, Comparable {
    case id, name, coordinate, address, phone, website, categories, brand, hours
    case timeZone = "time_zone"
    case rating, status

    public static func < (lhs: PlaceField, rhs: PlaceField) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// Parses a comma list such as `phone,website,hours`.
    public static func parseList(_ text: String) throws(InputError) -> Set<PlaceField> {
        var fields = Set<PlaceField>()
        for raw in text.split(separator: ",") {
            let name = raw.trimmingCharacters(in: .whitespaces).lowercased()
            let aliases = ["opening_hours": "hours", "timezone": "time_zone", "location": "coordinate", "categories": "categories", "category": "categories"]
            guard let field = PlaceField(rawValue: aliases[name] ?? name) else {
                let known = PlaceField.allCases.map(\.rawValue).joined(separator: ", ")
                throw InputError("unknown field '\(name)': choose from \(known)")
            }
            fields.insert(field)
        }
        return fields
    }
}

/// Which of a place's names a search matched, and whether only after correcting a typo.
public struct SearchMatch: Hashable, Sendable, Codable {
    /// Another name of the place (another language, an old or short name) when that is what matched.
    public var matchedName: String?
    /// The place was found only after a typed word was corrected to one within edit distance 1–2.
    public var fuzzy: Bool

    public init(matchedName: String? = nil, fuzzy: Bool = false) {
        self.matchedName = matchedName
        self.fuzzy = fuzzy
    }
}

public struct FieldSource: Hashable, Sendable, Codable {
    public var provider: String
    public var fetchedAt: Date

    public init(provider: String, fetchedAt: Date) {
        self.provider = provider
        self.fetchedAt = fetchedAt
    }
}

public enum BusinessStatus: String, Hashable, Sendable, Codable {
    case operational
    case closedTemporarily = "closed_temporarily"
    case closedPermanently = "closed_permanently"
}

/// A street address split into parts, so addresses from different providers can be compared part by part.
public struct PostalAddress: Hashable, Sendable, Codable {
    public var houseNumber: String?
    public var street: String?
    public var unit: String?
    public var postcode: String?
    public var city: String?
    public var district: String?
    public var region: String?
    /// ISO 3166-1 alpha-2, upper case (`FI`).
    public var countryCode: String?

    public init(
        houseNumber: String? = nil, street: String? = nil, unit: String? = nil, postcode: String? = nil,
        city: String? = nil, district: String? = nil, region: String? = nil, countryCode: String? = nil
    ) {
        self.houseNumber = houseNumber
        self.street = street
        self.unit = unit
        self.postcode = postcode
        self.city = city
        self.district = district
        self.region = region
        self.countryCode = countryCode
    }

    /// "Street 12 A, 00100 Helsinki, FI": house number after the street, as most of Europe writes it.
    /// Providers whose own formatted address is better keep theirs in ``Place/formattedAddress``.
    public var formatted: String? {
        // Appended piece by piece: the optional arrays compacted, filtered and joined here before cost an extract's
        // import ~1 % of its CPU (every address point and POI has an address).
        func joined(_ first: String?, _ second: String?) -> String {
            guard let first else { return second ?? "" }
            guard let second else { return first }
            return first + " " + second
        }
        var streetLine = joined(street, houseNumber)
        if let unit { streetLine += streetLine.isEmpty ? unit : " " + unit }
        var result = ""
        for part in [streetLine, joined(postcode, city), countryCode ?? ""] where !part.isEmpty {
            if !result.isEmpty { result += ", " }
            result += part
        }
        return result.isEmpty ? nil : result
    }

    public var isEmpty: Bool { self == PostalAddress() }
}

/// One opening interval in a provider-neutral week: ISO weekdays (1 = Monday … 7 = Sunday) and
/// minutes after local midnight. Providers translate their own day numbering (Google 0 = Sunday,
/// Yelp 0 = Monday) into this once, at the edge.
public struct WeeklyOpenPeriod: Hashable, Sendable, Codable {
    public var open: WeekTime
    /// `nil` means open around the clock from `open` on (Google's encoding of 24/7).
    public var close: WeekTime?

    public init(open: WeekTime, close: WeekTime?) {
        self.open = open
        self.close = close
    }
}

public struct WeekTime: Hashable, Sendable, Codable, Comparable {
    /// ISO weekday: 1 = Monday … 7 = Sunday.
    public var weekday: Int
    /// Minutes after local midnight, 0...1440 (1440 marks the end of the day).
    public var minute: Int

    public init(weekday: Int, minute: Int) {
        self.weekday = weekday
        self.minute = minute
    }

    public static func < (lhs: WeekTime, rhs: WeekTime) -> Bool {
        (lhs.weekday, lhs.minute) < (rhs.weekday, rhs.minute)
    }
}

extension Place {
    /// The place as a provider described it, with its numbers range-checked: `nil` when its position is not
    /// on the Earth (a reply with `latitude: 1e19`); a rating outside 0…5, a negative rating count or a UTC
    /// offset beyond ±18 h become unknown rather than shown.
    public func withCheckedNumbers() -> Place? {
        guard (try? Coordinate.check(latitude: coordinate.latitude, longitude: coordinate.longitude)) != nil else { return nil }
        var copy = self
        if let rating, !(rating.isFinite && (0...5).contains(rating)) { copy.rating = nil }
        if let ratingCount, ratingCount < 0 { copy.ratingCount = nil }
        if let utcOffsetMinutes, !(-18 * 60...18 * 60).contains(utcOffsetMinutes) { copy.utcOffsetMinutes = nil }
        return copy
    }
}
