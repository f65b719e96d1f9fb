import Foundation

/// The plugin point: every source of places, free or paid, local or remote, is one of these.
///
/// Providers are stateless values (or actors where they must pace calls) behind async methods.
/// Cross-cutting concerns such as caching and budgets wrap a provider rather than living inside it,
/// so a lookup chain is plain composition.
public protocol PlaceProvider: Sendable {
    /// Short lowercase name used in ids, config sections and `--provider` (`local`, `google`).
    var name: String { get }
    var capabilities: ProviderCapabilities { get }
    /// The longest each kind of data may be cached under this provider's terms.
    var cacheTerms: CacheTerms { get }

    /// What one call of `operation` returning `fields` costs, before it is made. Providers that bill
    /// by field (Google's SKUs) choose the cheapest SKU serving `fields` and name it.
    func price(of operation: ProviderOperation, fields: Set<PlaceField>) -> PriceQuote

    func search(_ query: SearchQuery) async throws -> [Place]
    func nearby(_ query: NearbyQuery) async throws -> [Place]
    /// `nil` when the provider does not know the id (a real "no such place", not an error).
    func details(_ query: DetailsQuery) async throws -> Place?
    func reverse(_ query: ReverseQuery) async throws -> ReverseGeocode?
    func suggest(_ query: SuggestQuery) async throws -> [Suggestion]
    /// Candidates for one specific place, best first; providers without a match endpoint search.
    func match(_ query: MatchQuery) async throws -> [Place]
    /// The ids of the places whose names fit a text within an area, and nothing else about them: a question
    /// some providers answer for free (Google Text Search with an IDs-only field mask). The lookup pipeline
    /// asks it before paying, to learn whether the one cheap candidate is the only place the words fit
    /// (see ``ProviderCapabilities/idProbe``).
    func probe(_ query: ProbeQuery) async throws -> [String]
}

extension PlaceProvider {
    public func search(_ query: SearchQuery) async throws -> [Place] { throw ProviderError.unsupported(name, .search) }
    public func nearby(_ query: NearbyQuery) async throws -> [Place] { throw ProviderError.unsupported(name, .nearby) }
    public func details(_ query: DetailsQuery) async throws -> Place? { throw ProviderError.unsupported(name, .details) }
    public func reverse(_ query: ReverseQuery) async throws -> ReverseGeocode? { throw ProviderError.unsupported(name, .reverse) }
    public func suggest(_ query: SuggestQuery) async throws -> [Suggestion] { throw ProviderError.unsupported(name, .suggest) }
    public func probe(_ query: ProbeQuery) async throws -> [String] { throw ProviderError.unsupported(name, .probe) }

    /// Falls back to a text search near the given point.
    public func match(_ query: MatchQuery) async throws -> [Place] {
        guard capabilities.contains(.textSearch) else { throw ProviderError.unsupported(name, .match) }
        return try await search(SearchQuery(text: query.name, near: query.near, radius: nil, limit: 5, fields: query.fields))
    }
}

public enum ProviderOperation: String, Sendable, Codable, CaseIterable {
    case search, nearby, details, reverse, suggest, match
    /// ``PlaceProvider/probe(_:)``: which place ids fit a text in an area.
    case probe
}

public struct ProviderCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let textSearch = ProviderCapabilities(rawValue: 1 << 0)
    public static let nearby = ProviderCapabilities(rawValue: 1 << 1)
    public static let details = ProviderCapabilities(rawValue: 1 << 2)
    public static let reverse = ProviderCapabilities(rawValue: 1 << 3)
    public static let suggest = ProviderCapabilities(rawValue: 1 << 4)
    public static let match = ProviderCapabilities(rawValue: 1 << 5)
    /// Answers ``PlaceProvider/probe(_:)``: place ids only, for a text within an area. The pipeline uses it
    /// only while the provider quotes it at $0 (``ProviderOperation/probe``).
    public static let idProbe = ProviderCapabilities(rawValue: 1 << 6)

    public func supports(_ operation: ProviderOperation) -> Bool {
        switch operation {
        case .search: contains(.textSearch)
        case .nearby: contains(.nearby)
        case .details: contains(.details)
        case .reverse: contains(.reverse)
        case .suggest: contains(.suggest)
        case .match: contains(.match) || contains(.textSearch)
        case .probe: contains(.idProbe)
        }
    }

    public var names: [String] {
        [(Self.textSearch, "search"), (.nearby, "nearby"), (.details, "details"), (.reverse, "reverse"),
         (.suggest, "suggest"), (.match, "match"), (.idProbe, "probe")].filter { contains($0.0) }.map(\.1)
    }
}

/// The price of one call, quoted before it is made.
public struct PriceQuote: Hashable, Sendable, Codable {
    /// The billing unit, e.g. `google.places.details.enterprise`; the free local index says `free`.
    public var sku: String
    public var cost: MicroDollars

    public init(sku: String, cost: MicroDollars) {
        self.sku = sku
        self.cost = cost
    }

    public static let free = PriceQuote(sku: "free", cost: .zero)
}

/// How long a provider's terms let each kind of data be kept. `nil` means no limit.
public struct CacheTerms: Hashable, Sendable, Codable {
    /// The provider's place ids (Google: indefinitely; Foursquare: only ids).
    public var ids: TimeInterval?
    public var coordinates: TimeInterval?
    /// Everything else: names, phones, hours, ratings.
    public var content: TimeInterval?

    public init(ids: TimeInterval?, coordinates: TimeInterval?, content: TimeInterval?) {
        self.ids = ids
        self.coordinates = coordinates
        self.content = content
    }

    public static let unlimited = CacheTerms(ids: nil, coordinates: nil, content: nil)

    /// The longest a whole cached answer (ids, coordinates and content together) may live.
    public var wholeAnswer: TimeInterval? {
        [ids, coordinates, content].compactMap { $0 }.min()
    }
}

public struct ReverseGeocode: Hashable, Sendable, Codable {
    public var coordinate: Coordinate
    /// The nearest addressed object or POI, if one is close.
    public var nearest: Place?
    public var nearestDistance: Double?
    /// The containing city or town (from GeoNames for the local provider).
    public var city: String?
    public var cityID: PlaceID?
    public var region: String?
    /// ISO 3166-1 alpha-2.
    public var countryCode: String?
    /// IANA time zone.
    public var timeZone: String?
    public var attribution: String?

    public init(coordinate: Coordinate, nearest: Place? = nil, nearestDistance: Double? = nil, city: String? = nil,
                cityID: PlaceID? = nil, region: String? = nil, countryCode: String? = nil, timeZone: String? = nil,
                attribution: String? = nil) {
        self.coordinate = coordinate
        self.nearest = nearest
        self.nearestDistance = nearestDistance
        self.city = city
        self.cityID = cityID
        self.region = region
        self.countryCode = countryCode
        self.timeZone = timeZone
        self.attribution = attribution
    }
}

/// One search-as-you-type completion.
public struct Suggestion: Hashable, Sendable, Codable {
    public var text: String
    public var secondaryText: String?
    public var placeID: PlaceID?
    public var coordinate: Coordinate?
    /// Ids of duplicates folded into this suggestion (the same place mapped twice); `nil` when there were none.
    public var alternateIDs: [PlaceID]?

    public init(text: String, secondaryText: String? = nil, placeID: PlaceID? = nil, coordinate: Coordinate? = nil,
                alternateIDs: [PlaceID]? = nil) {
        self.text = text
        self.secondaryText = secondaryText
        self.placeID = placeID
        self.coordinate = coordinate
        self.alternateIDs = alternateIDs
    }
}
