import Foundation

/// How finely coordinates are rounded when a query becomes a cache key. Nearby repeats of the same
/// question (a phone drifting a few metres) then share one cache entry.
public struct CoordinateGrid: Hashable, Sendable {
    /// Cell size in metres; 0 keeps full precision.
    public var meters: Double

    public init(meters: Double) { self.meters = max(0, meters) }

    public static let exact = CoordinateGrid(meters: 0)

    /// The cell's centre: latitude snapped to `meters`, longitude snapped to the same ground distance
    /// at the snapped latitude, so cells stay roughly square away from the equator.
    public func snap(_ c: Coordinate) -> Coordinate {
        guard meters > 0 else { return c }
        let latStep = meters / GeoMath.earthRadiusMeters * 180 / .pi
        let lat = (c.latitude / latStep).rounded() * latStep
        let lonStep = latStep / max(0.01, cos(lat * .pi / 180))
        let lon = (c.longitude / lonStep).rounded() * lonStep
        return Coordinate(latitude: lat, longitude: lon)
    }

    fileprivate func key(_ c: Coordinate?) -> String {
        guard let c else { return "-" }
        let snapped = snap(c)
        return String(format: "%.6f,%.6f", snapped.latitude, snapped.longitude)
    }
}

/// A question to a provider. Queries are immutable values; their canonical form is the cache key,
/// so two queries that ask the same thing must print the same form.
public protocol PlaceQuery: Hashable, Sendable {
    func canonicalForm(grid: CoordinateGrid) -> String
}

extension PlaceQuery {
    public var canonicalForm: String { canonicalForm(grid: .exact) }
}

private func canonicalText(_ text: String) -> String {
    text.split(whereSeparator: \.isWhitespace).joined(separator: " ").lowercased()
}

private func canonicalFields(_ fields: Set<PlaceField>) -> String {
    fields.sorted().map(\.rawValue).joined(separator: ",")
}

private func canonicalNumber(_ value: Double?) -> String {
    value?.compactText ?? "-"
}

public struct SearchQuery: PlaceQuery {
    public var text: String
    public var near: Coordinate?
    /// Metres. With `near`, results outside it are dropped by providers that can restrict.
    public var radius: Double?
    public var limit: Int
    public var category: String?
    public var fields: Set<PlaceField>

    /// How many results a search gives unless asked for more or fewer (CLI `--limit`, server `LIMIT`).
    public static let defaultLimit = 10

    public init(text: String, near: Coordinate? = nil, radius: Double? = nil, limit: Int = defaultLimit,
                category: String? = nil, fields: Set<PlaceField> = PlaceField.defaultSet) {
        self.text = text
        self.near = near
        self.radius = radius
        self.limit = limit
        self.category = category
        self.fields = fields
    }

    public func canonicalForm(grid: CoordinateGrid) -> String {
        "search|q=\(canonicalText(text))|near=\(grid.key(near))|r=\(canonicalNumber(radius))|n=\(limit)"
            + "|cat=\(category?.lowercased() ?? "-")|f=\(canonicalFields(fields))"
    }
}

public struct NearbyQuery: PlaceQuery {
    public var center: Coordinate
    public var radius: Double
    public var category: String?
    public var brand: String?
    public var limit: Int
    public var fields: Set<PlaceField>

    /// Metres around the centre unless asked otherwise (CLI `--radius`, server `RADIUS`).
    public static let defaultRadius = 500.0
    /// How many places unless asked otherwise (CLI `--limit`, server `LIMIT`).
    public static let defaultLimit = 20

    public init(center: Coordinate, radius: Double = defaultRadius, category: String? = nil, brand: String? = nil,
                limit: Int = defaultLimit, fields: Set<PlaceField> = PlaceField.defaultSet) {
        self.center = center
        self.radius = radius
        self.category = category
        self.brand = brand
        self.limit = limit
        self.fields = fields
    }

    public func canonicalForm(grid: CoordinateGrid) -> String {
        "nearby|at=\(grid.key(center))|r=\(canonicalNumber(radius))|cat=\(category?.lowercased() ?? "-")"
            + "|brand=\(brand.map(canonicalText) ?? "-")|n=\(limit)|f=\(canonicalFields(fields))"
    }
}

public struct DetailsQuery: PlaceQuery {
    public var id: PlaceID
    public var fields: Set<PlaceField>
    /// Google's autocomplete session token; the details call that ends a session carries it. Not part of the key.
    public var sessionToken: String?

    public init(id: PlaceID, fields: Set<PlaceField> = PlaceField.defaultSet, sessionToken: String? = nil) {
        self.id = id
        self.fields = fields
        self.sessionToken = sessionToken
    }

    public func canonicalForm(grid: CoordinateGrid) -> String {
        "details|id=\(id)|f=\(canonicalFields(fields))"
    }
}

public struct ReverseQuery: PlaceQuery {
    public var coordinate: Coordinate

    public init(coordinate: Coordinate) { self.coordinate = coordinate }

    public func canonicalForm(grid: CoordinateGrid) -> String { "reverse|at=\(grid.key(coordinate))" }
}

public struct SuggestQuery: PlaceQuery {
    public var prefix: String
    public var near: Coordinate?
    public var limit: Int
    /// Google bills an autocomplete session as one unit when the same token ends in a details call.
    public var sessionToken: String?

    /// How many completions unless asked otherwise (CLI `--limit`, server `LIMIT`).
    public static let defaultLimit = 8

    public init(prefix: String, near: Coordinate? = nil, limit: Int = defaultLimit, sessionToken: String? = nil) {
        self.prefix = prefix
        self.near = near
        self.limit = limit
        self.sessionToken = sessionToken
    }

    public func canonicalForm(grid: CoordinateGrid) -> String {
        "suggest|p=\(canonicalText(prefix))|near=\(grid.key(near))|n=\(limit)"
    }
}

/// "Find this specific place": what the lookup pipeline and the providers' match endpoints
/// (Yelp `businesses/matches`, Foursquare `places/match`) answer.
public struct MatchQuery: PlaceQuery {
    public var name: String
    public var near: Coordinate?
    public var address: String?
    public var city: String?
    public var countryCode: String?
    public var phone: String?
    /// What kind of place the caller means (a batch row's `category`): a city never matches a café.
    public var category: String?
    public var fields: Set<PlaceField>

    public init(name: String, near: Coordinate? = nil, address: String? = nil, city: String? = nil,
                countryCode: String? = nil, phone: String? = nil, category: String? = nil,
                fields: Set<PlaceField> = PlaceField.defaultSet) {
        self.name = name
        self.category = category
        self.near = near
        self.address = address
        self.city = city
        self.countryCode = countryCode
        self.phone = phone
        self.fields = fields
    }

    public func canonicalForm(grid: CoordinateGrid) -> String {
        "match|name=\(canonicalText(name))|near=\(grid.key(near))|addr=\(address.map(canonicalText) ?? "-")"
            + "|city=\(city.map(canonicalText) ?? "-")|cc=\(countryCode?.uppercased() ?? "-")"
            + "|tel=\(phone ?? "-")" + (category.map { "|cat=\(canonicalText($0))" } ?? "") + "|f=\(canonicalFields(fields))"
    }
}

/// "Which of your places does this text fit, within this area?", answered with place ids only
/// (``PlaceProvider/probe(_:)``). The area is a rectangle around `center`, `halfSide` metres either side east–west
/// and `halfHeight` north–south (a square when `halfHeight` is nil): Google's Text Search restricts to a
/// rectangle, never a circle.
public struct ProbeQuery: PlaceQuery {
    public var text: String
    public var center: Coordinate
    public var halfSide: Double
    /// Metres either side north–south when the area is not a square.
    public var halfHeight: Double?
    /// The most ids wanted: the pipeline only needs to tell one from more than one.
    public var limit: Int

    public init(text: String, center: Coordinate, halfSide: Double, halfHeight: Double? = nil, limit: Int = 2) {
        self.text = text
        self.center = center
        self.halfSide = halfSide
        self.halfHeight = halfHeight
        self.limit = limit
    }

    /// The rectangle's south-west and north-east corners.
    public var corners: (low: Coordinate, high: Coordinate) {
        let metresToDegrees = 180 / .pi / GeoMath.earthRadiusMeters
        let dLat = (halfHeight ?? halfSide) * metresToDegrees
        let dLon = halfSide * metresToDegrees / max(0.01, cos(center.latitude * .pi / 180))
        return (Coordinate(latitude: max(-90, center.latitude - dLat), longitude: max(-180, center.longitude - dLon)),
                Coordinate(latitude: min(90, center.latitude + dLat), longitude: min(180, center.longitude + dLon)))
    }

    /// The centre is keyed as given, not snapped to `grid`: the area is exact, and a rectangle around a user's own
    /// point is another question than the same rectangle around the cell's centre. The pipeline snaps the point
    /// itself where repeats should share a probe.
    public func canonicalForm(grid: CoordinateGrid) -> String {
        "probe|q=\(canonicalText(text))|at=\(CoordinateGrid.exact.key(center))|half=\(canonicalNumber(halfSide))"
            + (halfHeight.map { "|tall=\(canonicalNumber($0))" } ?? "") + "|n=\(limit)"
    }
}

extension PlaceField {
    /// What a lookup returns when the caller names no fields: enough to recognise and reach the place.
    public static let defaultSet: Set<PlaceField> = [.id, .name, .coordinate, .address, .categories]
}
