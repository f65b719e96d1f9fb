import Foundation
import PlacesCore
import SpotStore

/// The JSON shape of a saved spot: `places spots … --json` and the server's SPOT.* replies print the
/// same thing, so a script can switch between them.
public struct SpotJSON: Encodable, Sendable {
    public var spot: Spot
    public var distanceM: Double?
    public var bearing: String?
    public var bearingDegrees: Double?

    public init(_ spot: Spot, reference: Coordinate? = nil) {
        self.spot = spot
        if let reference {
            distanceM = (GeoMath.distance(reference, spot.coordinate) * 10).rounded() / 10
            let degrees = GeoMath.bearing(from: reference, to: spot.coordinate)
            bearingDegrees = degrees.rounded()
            bearing = GeoMath.compassPoint(degrees)
        }
    }

    public init(_ hit: SpotDistance) {
        spot = hit.spot
        distanceM = (hit.distance * 10).rounded() / 10
        bearingDegrees = hit.bearing.rounded()
        bearing = GeoMath.compassPoint(hit.bearing)
    }

    enum CodingKeys: String, CodingKey {
        case id, name, lat, lon, category, tags, notes, rating, address, url
        case createdAt = "created_at", updatedAt = "updated_at", placeIds = "place_ids"
        case snapshot, snapshotFetchedAt = "snapshot_fetched_at", snapshotSource = "snapshot_source"
        case distanceM = "distance_m", bearing, bearingDegrees = "bearing_deg"
    }

    /// Keys scripts rely on are always present, as `null` when unknown.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(spot.id.storeKey, forKey: .id)
        try c.encode(spot.name, forKey: .name)
        try c.encode(spot.coordinate.latitude, forKey: .lat)
        try c.encode(spot.coordinate.longitude, forKey: .lon)
        try c.encode(spot.category, forKey: .category)
        try c.encode(spot.tags, forKey: .tags)
        try c.encode(spot.notes, forKey: .notes)
        try c.encode(spot.rating?.rawValue, forKey: .rating)
        try c.encode(spot.address, forKey: .address)
        try c.encodeIfPresent(spot.url, forKey: .url)
        try c.encode(spot.createdAt, forKey: .createdAt)
        try c.encode(spot.updatedAt, forKey: .updatedAt)
        try c.encode(spot.placeIDs.map(\.description), forKey: .placeIds)
        try c.encode(spot.snapshot.map { PlaceJSON($0.place) }, forKey: .snapshot)
        try c.encodeIfPresent(spot.snapshot?.fetchedAt, forKey: .snapshotFetchedAt)
        try c.encodeIfPresent(spot.snapshot?.source, forKey: .snapshotSource)
        try c.encodeIfPresent(distanceM, forKey: .distanceM)
        try c.encodeIfPresent(bearing, forKey: .bearing)
        try c.encodeIfPresent(bearingDegrees, forKey: .bearingDegrees)
    }
}

/// One logged visit, with its local time written in its own zone.
public struct VisitJSON: Encodable, Sendable {
    public var id: String
    public var spotId: String?
    public var spotName: String?
    public var time: String
    public var timeZone: String
    public var day: String
    public var lat: Double
    public var lon: Double
    public var note: String?
    public var photoPath: String?
    /// `{"street","house_number","city","country"}` (each `null` when unknown), or `null` when the visit has none.
    public var address: AddressJSON?

    /// A visit's reverse-geocoded address.
    public struct AddressJSON: Encodable, Sendable {
        public var street: String?
        public var houseNumber: String?
        public var city: String?
        public var country: String?

        enum CodingKeys: String, CodingKey {
            case street, city, country
            case houseNumber = "house_number"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(street, forKey: .street)
            try c.encode(houseNumber, forKey: .houseNumber)
            try c.encode(city, forKey: .city)
            try c.encode(country, forKey: .country)
        }
    }

    public init(_ visit: Visit, spotName: String? = nil) {
        id = visit.id.storeKey
        spotId = visit.spotID?.storeKey
        self.spotName = spotName
        time = SpotTime.format(visit.time, timeZone: visit.timeZone)
        timeZone = visit.timeZone
        day = visit.localDay
        lat = visit.coordinate.latitude
        lon = visit.coordinate.longitude
        note = visit.note
        photoPath = visit.photoPath
        address = visit.address.map {
            AddressJSON(street: $0.street, houseNumber: $0.houseNumber, city: $0.city, country: $0.country)
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, time, day, lat, lon, note, address
        case spotId = "spot_id", spotName = "spot_name", timeZone = "time_zone", photoPath = "photo_path"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(spotId, forKey: .spotId)
        try c.encode(spotName, forKey: .spotName)
        try c.encode(time, forKey: .time)
        try c.encode(timeZone, forKey: .timeZone)
        try c.encode(day, forKey: .day)
        try c.encode(lat, forKey: .lat)
        try c.encode(lon, forKey: .lon)
        try c.encode(note, forKey: .note)
        try c.encode(photoPath, forKey: .photoPath)
        try c.encode(address, forKey: .address)
    }
}

/// Visits of one local day, as `visits` groups them.
public struct VisitDayJSON: Encodable, Sendable {
    public var day: String
    public var visits: [VisitJSON]
}

/// One line of `places spots watch`: `{"event":"enter","spot":{…},"distance_m":…,"time":…}`.
public struct ProximityEventJSON: Encodable, Sendable {
    /// The saved spot or index place the event is about; `category`, `note` and `rating` are `null` when unknown.
    public struct SpotRef: Encodable, Sendable {
        /// The spot's id, or the place's id (`osm:node/123`) for a place from the local index.
        public var id: String
        /// `spot` (saved) or `place` (from the local index, watched by brand or category).
        public var kind: String
        public var name: String
        public var lat: Double
        public var lon: Double
        public var category: String?
        public var note: String?
        public var rating: String?

        enum CodingKeys: String, CodingKey { case id, kind, name, lat, lon, category, note, rating }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(kind, forKey: .kind)
            try c.encode(name, forKey: .name)
            try c.encode(lat, forKey: .lat)
            try c.encode(lon, forKey: .lon)
            try c.encode(category, forKey: .category)
            try c.encode(note, forKey: .note)
            try c.encode(rating, forKey: .rating)
        }
    }

    public var event: String
    public var spot: SpotRef
    public var distanceM: Double
    public var time: Date?

    public init(_ event: ProximityEvent) {
        self.event = event.kind.rawValue
        let point = event.spot
        spot = SpotRef(id: point.placeID ?? point.id.storeKey, kind: point.placeID == nil ? "spot" : "place", name: point.name,
                       lat: point.coordinate.latitude, lon: point.coordinate.longitude, category: point.category,
                       note: point.note, rating: point.rating?.rawValue)
        distanceM = (event.distance * 10).rounded() / 10
        time = event.time
    }

    enum CodingKeys: String, CodingKey { case event, spot, time; case distanceM = "distance_m" }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(event, forKey: .event)
        try c.encode(spot, forKey: .spot)
        try c.encode(distanceM, forKey: .distanceM)
        try c.encode(time, forKey: .time)
    }
}

extension PlacesJSON {
    public static func spots(_ spots: [Spot], reference: Coordinate? = nil, pretty: Bool = false) throws -> Data {
        try encode(spots.map { SpotJSON($0, reference: reference) }, pretty: pretty)
    }

    public static func spots(_ hits: [SpotDistance], pretty: Bool = false) throws -> Data {
        try encode(hits.map(SpotJSON.init), pretty: pretty)
    }

    public static func spot(_ spot: Spot, pretty: Bool = false) throws -> Data {
        try encode(SpotJSON(spot), pretty: pretty)
    }

    /// One visit named after its saved spot, as `spots visits edit|rm --json` and SPOT.VISITS.EDIT|RM print it.
    public static func visit(_ visit: Visit, spots: SpotsService) async throws -> Data {
        try encode(VisitJSON(visit, spotName: try await spots.spotNames(for: [visit]).values.first))
    }

    /// Visits grouped by local day, days in order.
    public static func visitDays(_ visits: [Visit], spotNames: [UUID: String], pretty: Bool = false) throws -> Data {
        try encode(SpotsService.groupByDay(visits).map { day, visits in
            VisitDayJSON(day: day, visits: visits.map { VisitJSON($0, spotName: $0.spotID.flatMap { spotNames[$0] }) })
        }, pretty: pretty)
    }
}
