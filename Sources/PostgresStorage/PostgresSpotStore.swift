import Foundation
import PlacesCore
import PostgresNIO
import SpotStore

/// The saved spots and visits on PostgreSQL: every command of the SQLite ``SpotStore`` with the same results, one
/// transaction each, shared by every instance.
///
/// Columns hold the same values as SQLite's (times as seconds since 2001, structured values as the same JSON text),
/// so a spot moved from one store to the other compares equal. `near` and `nearest` go through a GiST index on
/// `point(lon, lat)`: the radius's bounding box picks candidates with `<@`, the haversine distance from ``GeoMath``
/// decides, exactly as the SQLite store's R*Tree does.
public final class PostgresSpotStore: SpotStore {
    public let database: SharedDatabase

    public init(database: SharedDatabase) {
        self.database = database
    }

    /// Every column of a spot, in the order ``decodeSpot(_:)`` reads them.
    static let columns = "rowid, id, name, lat, lon, category, tags, notes, rating, address, url, created_at, updated_at, place_ids, snapshot, snapshot_fetched_at, snapshot_source"
    /// `SELECT <every column> FROM spot `, for a condition to follow.
    static let selectSpots = SQLFragment("SELECT \(columns) FROM spot ")

    // MARK: Writing spots

    /// Saves a new spot; fails if its id is already taken.
    public func add(_ spot: Spot) async throws {
        try await add([spot])
    }

    /// Saves many new spots in one transaction: all of them or, if anything fails, none.
    public func add(_ spots: [Spot]) async throws {
        for spot in spots { try SpotRules.checkStorable(spot) }
        try await transaction { connection in
            for spot in spots { try await Self.insert(spot, connection) }
        }
    }

    /// Finds the spot `reference` names, changes it, stamps `updatedAt`, and saves it, all in one transaction with
    /// the row locked, so two editors on two instances never lose each other's change.
    @discardableResult
    public func update(_ reference: String, now: Date = Date(), _ change: @escaping @Sendable (inout Spot) throws -> Void) async throws -> Spot {
        try await transaction { connection in
            var spot = try await Self.resolve(reference, lock: true, connection)
            try change(&spot)
            spot.updatedAt = now.roundedToMilliseconds
            try SpotRules.checkStorable(spot)
            try await Self.replace(spot, connection)
            return spot
        }
    }

    /// Deletes the spot `reference` names and returns it. Its visits stay, detached, because they still happened.
    @discardableResult
    public func remove(_ reference: String) async throws -> Spot {
        try await transaction { connection in
            let spot = try await Self.resolve(reference, lock: true, connection)
            try await connection.query("DELETE FROM spot WHERE id = \(spot.id.storeKey)", logger: Self.logger)
            return spot
        }
    }

    /// Imports spots and visits in one transaction. With `replacing`, everything already stored is deleted first;
    /// otherwise spots whose id exists are updated in place.
    public func importAll(spots: [Spot], visits: [Visit], replacing: Bool) async throws {
        for spot in spots { try SpotRules.checkStorable(spot) }
        try await transaction { connection in
            if replacing {
                try await connection.query("DELETE FROM visit", logger: Self.logger)
                try await connection.query("DELETE FROM spot", logger: Self.logger)
            }
            for spot in spots {
                if try await Self.rowid(of: spot.id, connection) != nil {
                    try await Self.replace(spot, connection)
                } else {
                    try await Self.insert(spot, connection)
                }
            }
            for visit in visits { try await Self.insert(visit, connection) }
        }
    }

    // MARK: Reading spots

    /// The spot named by a full id or an unambiguous id prefix of at least 4 characters.
    public func resolve(_ reference: String) async throws -> Spot {
        try await transaction { connection in try await Self.resolve(reference, lock: false, connection) }
    }

    public func spot(id: UUID) async throws -> Spot? {
        try await spots(Self.selectSpots.sql("WHERE id = ").bind(id.storeKey)).first
    }

    /// Spots attached to `placeID`: how `add --from` notices a place saved already.
    public func spots(attachedTo placeID: PlaceID) async throws -> [Spot] {
        try await spots(Self.attached(to: placeID).sql(" ORDER BY created_at"))
    }

    /// For each spot, the saved spots that may be the same place: the same id, a shared attached place id, or within
    /// `radius` metres. One transaction for the whole batch.
    public func duplicateCandidates(for spots: [Spot], radius: Double) async throws -> [[Spot]] {
        try await transaction { connection in
            guard try await Self.count(connection) > 0 else { return spots.map { _ in [] } }
            var result: [[Spot]] = []
            for spot in spots {
                var found = try await Self.spots(Self.selectSpots.sql("WHERE id = ").bind(spot.id.storeKey), connection)
                for placeID in spot.placeIDs {
                    found += try await Self.spots(Self.attached(to: placeID), connection)
                }
                let near = try await Self.candidates(spot.coordinate, radius: radius, connection).filter { $0.distance <= radius }
                found += try await Self.load(near.sorted { $0.distance < $1.distance }, center: spot.coordinate, connection).map(\.spot)
                var seen = Set<UUID>()
                result.append(found.filter { seen.insert($0.id).inserted })
            }
            return result
        }
    }

    public func count() async throws -> Int {
        try await transaction { connection in try await Self.count(connection) }
    }

    /// Spots that pass `filter`, in its order. Distance order needs ``SpotFilter/reference``.
    public func list(_ filter: SpotFilter = SpotFilter()) async throws -> [Spot] {
        var select = Self.selectSpots.sql("WHERE TRUE")
        if let category = filter.category { select = select.sql(" AND category = ").bind(category) }
        for tag in filter.tags { select = select.sql(" AND tags::jsonb @> jsonb_build_array(").bind(tag).sql("::text)") }
        switch filter.rating {
        case .none: break
        case .some(.none): select = select.sql(" AND rating IS NULL")
        case .some(.some(let rating)): select = select.sql(" AND rating = ").bind(rating.rawValue)
        }
        // `COLLATE "C"`: byte order, as SQLite's default BINARY collation sorts.
        let order = switch filter.sort {
        case .name, .distance: "folded_name COLLATE \"C\", id COLLATE \"C\""
        case .recent: "updated_at DESC, id COLLATE \"C\""
        case .added: "created_at DESC, id COLLATE \"C\""
        case .visited:
            "(SELECT max(time) FROM visit WHERE visit.spot_id = spot.id) DESC NULLS LAST, folded_name COLLATE \"C\", id COLLATE \"C\""
        }
        var spots = try await spots(select.sql(" ORDER BY " + order))
        if filter.sort == .distance, let reference = filter.reference {
            spots = spots.map { ($0, GeoMath.distance(reference, $0.coordinate)) }.sorted { $0.1 < $1.1 }.map(\.0)
        }
        return spots
    }

    /// Each category with its number of spots, most used first; `nil` counts spots without one.
    public func categories() async throws -> [(category: String?, count: Int)] {
        let rows = try await database.rows("""
            SELECT category, count(*) AS n FROM spot GROUP BY category ORDER BY n DESC, category COLLATE "C" NULLS FIRST
            """)
        return try rows.map { row in
            let (category, count) = try row.decode((String?, Int).self)
            return (category: category, count: count)
        }
    }

    /// Spots within `radius` metres of `center`, nearest first.
    public func near(_ center: Coordinate, radius: Double, limit: Int? = nil) async throws -> [SpotDistance] {
        try await transaction { connection in
            var hits = try await Self.candidates(center, radius: radius, connection).filter { $0.distance <= radius }
            hits.sort { $0.distance < $1.distance }
            if let limit, hits.count > limit { hits.removeLast(hits.count - limit) }
            return try await Self.load(hits, center: center, connection)
        }
    }

    /// The `limit` spots nearest to `center`, wherever they are: the set a watcher monitors.
    public func nearest(_ center: Coordinate, limit: Int) async throws -> [SpotDistance] {
        guard limit > 0 else { return [] }
        return try await transaction { connection in
            let wanted = min(limit, try await Self.count(connection))
            guard wanted > 0 else { return [] }
            // Grow a search circle until it holds enough spots; only within the circle is the order exact.
            var radius = 500.0
            while true {
                var hits = try await Self.candidates(center, radius: radius, connection)
                let inside = hits.filter { $0.distance <= radius }
                if inside.count >= wanted || radius >= 2.1e7 {
                    hits = (inside.count >= wanted ? inside : hits).sorted { $0.distance < $1.distance }
                    return try await Self.load(Array(hits.prefix(wanted)), center: center, connection)
                }
                radius *= 4
            }
        }
    }

    /// Every spot, oldest first: what export writes.
    public func allSpots() async throws -> [Spot] {
        try await spots(Self.selectSpots.sql("ORDER BY created_at, id COLLATE \"C\""))
    }

    /// Every spot's id, name and point, for the watcher.
    public func allPoints() async throws -> [SpotPoint] {
        try await database.rows("SELECT id, name, lat, lon FROM spot").compactMap { row in
            let (id, name, lat, lon) = try row.decode((String, String, Double, Double).self)
            return UUID(uuidString: id).map { SpotPoint(id: $0, name: name, coordinate: Coordinate(latitude: lat, longitude: lon)) }
        }
    }

    // MARK: Visits

    public func log(_ visit: Visit) async throws {
        try await transaction { connection in try await Self.insert(visit, connection) }
    }

    public func visit(_ reference: String) async throws -> Visit {
        try await transaction { connection in try await Self.resolveVisit(reference, lock: false, connection) }
    }

    @discardableResult
    public func updateVisit(_ reference: String, _ change: @escaping @Sendable (inout Visit) throws -> Void) async throws -> Visit {
        try await transaction { connection in
            var visit = try await Self.resolveVisit(reference, lock: true, connection)
            let id = visit.id
            try change(&visit)
            visit.id = id
            try await Self.insert(visit, connection)
            return visit
        }
    }

    @discardableResult
    public func removeVisit(_ reference: String) async throws -> Visit {
        try await transaction { connection in
            let visit = try await Self.resolveVisit(reference, lock: true, connection)
            try await connection.query("DELETE FROM visit WHERE id = \(visit.id.storeKey)", logger: Self.logger)
            return visit
        }
    }

    /// Visits in time order; `day` is a local `YYYY-MM-DD`, `since` an instant.
    public func visits(day: String? = nil, since: Date? = nil, spot: UUID? = nil) async throws -> [Visit] {
        var select = Self.selectVisits.sql("WHERE TRUE")
        if let day { select = select.sql(" AND local_day = ").bind(day) }
        if let since { select = select.sql(" AND time >= ").bind(since.timeIntervalSinceReferenceDate) }
        if let spot { select = select.sql(" AND spot_id = ").bind(spot.storeKey) }
        let ordered = select.sql(" ORDER BY time, id COLLATE \"C\"")
        return try await transaction { connection in try await Self.visits(ordered, connection) }
    }

    static let selectVisits = SQLFragment(
        "SELECT id, spot_id, time, time_zone, lat, lon, note, photo_path, street, house_number, city, country FROM visit ")

    /// The visits a ``selectVisits`` fragment finds.
    static func visits(_ select: SQLFragment, _ connection: PostgresConnection) async throws -> [Visit] {
        var visits: [Visit] = []
        for try await row in try await connection.query(select.query, logger: logger) {
            let (id, spotID, time, zone, lat, lon, note, photo, street, houseNumber, city, country) = try row.decode(
                (String, String?, Double, String, Double, Double, String?, String?, String?, String?, String?, String?).self)
            guard let uuid = UUID(uuidString: id) else { throw InputError("corrupt visit row: bad id") }
            visits.append(Visit(
                id: uuid, spotID: spotID.flatMap(UUID.init(uuidString:)), time: Date(timeIntervalSinceReferenceDate: time),
                timeZone: zone, coordinate: Coordinate(latitude: lat, longitude: lon), note: note, photoPath: photo,
                address: VisitAddress(street: street, houseNumber: houseNumber, city: city, country: country)))
        }
        return visits
    }

    static func resolveVisit(_ reference: String, lock: Bool, _ connection: PostgresConnection) async throws -> Visit {
        let key = reference.trimmingCharacters(in: .whitespaces).lowercased()
        guard SpotRules.isIDPrefix(key) else { throw UnknownVisit(reference: reference) }
        // An id prefix holds only hex digits and dashes: nothing `LIKE` treats specially.
        let matches = try await visits(selectVisits.sql("WHERE id LIKE ").bind(key + "%")
            .sql(" ORDER BY id COLLATE \"C\" LIMIT 2" + (lock ? " FOR UPDATE" : "")), connection)
        return try SpotRules.onlyVisit(matches, reference: reference)
    }

    // MARK: Statements

    static let logger = Logger(label: "places.postgres.spots")

    private func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await database.withTransaction(body)
    }

    private func spots(_ select: SQLFragment) async throws -> [Spot] {
        try await transaction { connection in try await Self.spots(select, connection) }
    }

    /// The spots a ``selectSpots`` fragment finds.
    static func spots(_ select: SQLFragment, _ connection: PostgresConnection) async throws -> [Spot] {
        var spots: [Spot] = []
        for try await row in try await connection.query(select.query, logger: logger) { spots.append(try decodeSpot(row).spot) }
        return spots
    }

    /// Spots attached to `placeID`.
    static func attached(to placeID: PlaceID) -> SQLFragment {
        selectSpots.sql("WHERE rowid IN (SELECT spot_rowid FROM spot_place WHERE place_id = ").bind(placeID.description).sql(")")
    }

    static func count(_ connection: PostgresConnection) async throws -> Int {
        try await connection.query("SELECT count(*) FROM spot", logger: logger).collect().first?.decode(Int.self) ?? 0
    }

    static func resolve(_ reference: String, lock: Bool, _ connection: PostgresConnection) async throws -> Spot {
        let key = reference.trimmingCharacters(in: .whitespaces).lowercased()
        let locking = lock ? " FOR UPDATE" : ""
        if let id = UUID(uuidString: key),
           let spot = try await spots(selectSpots.sql("WHERE id = ").bind(id.storeKey).sql(locking), connection).first {
            return spot
        }
        try SpotRules.checkIDPrefix(key, reference: reference)
        // `LIKE` with the prefix escaped: an id prefix holds only hex digits and dashes, but be exact anyway.
        let pattern = key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        let matches = try await spots(selectSpots.sql("WHERE id LIKE ").bind(pattern).sql(" ORDER BY id LIMIT 2" + locking), connection)
        return try SpotRules.onlyMatch(matches, reference: reference)
    }

    static func rowid(of id: UUID, _ connection: PostgresConnection) async throws -> Int64? {
        try await connection.query("SELECT rowid FROM spot WHERE id = \(id.storeKey)", logger: logger).collect().first?.decode(Int64.self)
    }

    static func insert(_ spot: Spot, _ connection: PostgresConnection) async throws {
        let c = try StoredSpot(spot)
        let rowid = try await connection.query("""
            INSERT INTO spot (id, name, folded_name, lat, lon, category, tags, notes, rating, address, url, created_at, updated_at,
                              place_ids, snapshot, snapshot_fetched_at, snapshot_source)
            VALUES (\(c.id), \(c.name), \(c.foldedName), \(c.lat), \(c.lon), \(c.category), \(c.tags), \(c.notes), \(c.rating),
                    \(c.address), \(c.url), \(c.createdAt), \(c.updatedAt), \(c.placeIDs), \(c.snapshot), \(c.snapshotFetchedAt),
                    \(c.snapshotSource))
            RETURNING rowid
            """, logger: logger).collect().first!.decode(Int64.self)
        try await attach(spot, rowid: rowid, connection)
    }

    static func replace(_ spot: Spot, _ connection: PostgresConnection) async throws {
        let c = try StoredSpot(spot)
        let rows = try await connection.query("""
            UPDATE spot SET name = \(c.name), folded_name = \(c.foldedName), lat = \(c.lat), lon = \(c.lon), category = \(c.category),
                tags = \(c.tags), notes = \(c.notes), rating = \(c.rating), address = \(c.address), url = \(c.url),
                created_at = \(c.createdAt), updated_at = \(c.updatedAt), place_ids = \(c.placeIDs), snapshot = \(c.snapshot),
                snapshot_fetched_at = \(c.snapshotFetchedAt), snapshot_source = \(c.snapshotSource)
            WHERE id = \(c.id) RETURNING rowid
            """, logger: logger).collect()
        guard let rowid = try rows.first?.decode(Int64.self) else { return }
        try await connection.query("DELETE FROM spot_place WHERE spot_rowid = \(rowid)", logger: logger)
        try await attach(spot, rowid: rowid, connection)
    }

    private static func attach(_ spot: Spot, rowid: Int64, _ connection: PostgresConnection) async throws {
        let placeIDs = Set(spot.placeIDs).map(\.description).sorted()
        guard !placeIDs.isEmpty else { return }
        try await connection.query("""
            INSERT INTO spot_place (spot_rowid, place_id) SELECT \(rowid), unnest(\(placeIDs)::text[])
            """, logger: logger)
    }

    static func insert(_ visit: Visit, _ connection: PostgresConnection) async throws {
        if let spotID = visit.spotID, try await rowid(of: spotID, connection) == nil {
            throw SpotRules.unknownVisitSpot(spotID)
        }
        try await connection.query("""
            INSERT INTO visit (id, spot_id, time, time_zone, local_day, lat, lon, note, photo_path, street, house_number, city, country)
            VALUES (\(visit.id.storeKey), \(visit.spotID?.storeKey), \(visit.time.roundedToMilliseconds.timeIntervalSinceReferenceDate),
                    \(visit.timeZone), \(visit.localDay), \(visit.coordinate.latitude), \(visit.coordinate.longitude), \(visit.note),
                    \(visit.photoPath), \(visit.address?.street), \(visit.address?.houseNumber), \(visit.address?.city),
                    \(visit.address?.country))
            ON CONFLICT (id) DO UPDATE SET spot_id = EXCLUDED.spot_id, time = EXCLUDED.time, time_zone = EXCLUDED.time_zone,
                local_day = EXCLUDED.local_day, lat = EXCLUDED.lat, lon = EXCLUDED.lon, note = EXCLUDED.note,
                photo_path = EXCLUDED.photo_path, street = EXCLUDED.street, house_number = EXCLUDED.house_number,
                city = EXCLUDED.city, country = EXCLUDED.country
            """, logger: logger)
    }

    /// A row in ``columns`` order, decoded.
    static func decodeSpot(_ row: PostgresRow) throws -> (rowid: Int64, spot: Spot) {
        let (rowid, id, name, lat, lon, category, tags, notes, rating, address, url, createdAt, updatedAt, placeIDs, snapshotText,
             fetchedAt, source) = try row.decode((Int64, String, String, Double, Double, String?, String, String?, String?, String?,
                                                   String?, Double, Double, String, String?, Double?, String?).self)
        guard let uuid = UUID(uuidString: id) else { throw InputError("corrupt spot row: bad id \(id)") }
        var snapshot: SpotSnapshot?
        if let snapshotText, let fetchedAt {
            snapshot = SpotSnapshot(place: try SpotCoding.decode(Place.self, snapshotText),
                                    fetchedAt: Date(timeIntervalSinceReferenceDate: fetchedAt), source: source ?? "unknown")
        }
        let spot = Spot(
            id: uuid, name: name, coordinate: Coordinate(latitude: lat, longitude: lon), category: category,
            tags: try SpotCoding.decodeList([String].self, tags), notes: notes, rating: rating.flatMap(SpotRating.init(rawValue:)),
            address: address, url: url, createdAt: Date(timeIntervalSinceReferenceDate: createdAt),
            updatedAt: Date(timeIntervalSinceReferenceDate: updatedAt),
            placeIDs: try SpotCoding.decodeList([PlaceID].self, placeIDs), snapshot: snapshot)
        return (rowid, spot)
    }

    // MARK: Spatial

    private struct Candidate: Sendable { var rowid: Int64; var distance: Double }

    /// Spots inside the radius's bounding box (the GiST index answers `<@`; a box across the antimeridian is asked as
    /// two), with their exact distances.
    private static func candidates(_ center: Coordinate, radius: Double, _ connection: PostgresConnection) async throws -> [Candidate] {
        var result: [Candidate] = []
        var seen = Set<Int64>()
        for box in GeoMath.boundingBoxes(around: center, radius: radius) {
            let rows = try await connection.query("""
                SELECT rowid, lat, lon FROM spot
                WHERE point(lon, lat) <@ box(point(\(box.minLongitude), \(box.minLatitude)), point(\(box.maxLongitude), \(box.maxLatitude)))
                """, logger: logger)
            for try await (rowid, lat, lon) in rows.decode((Int64, Double, Double).self) where seen.insert(rowid).inserted {
                result.append(Candidate(rowid: rowid, distance: GeoMath.distance(center, Coordinate(latitude: lat, longitude: lon))))
            }
        }
        return result
    }

    /// The full spots for the winning candidates, in the candidates' order.
    private static func load(_ hits: [Candidate], center: Coordinate, _ connection: PostgresConnection) async throws -> [SpotDistance] {
        guard !hits.isEmpty else { return [] }
        var byRowid: [Int64: Spot] = [:]
        for try await row in try await connection.query(
            selectSpots.sql("WHERE rowid = ANY(").bind(hits.map(\.rowid)).sql(")").query, logger: logger) {
            let (rowid, spot) = try decodeSpot(row)
            byRowid[rowid] = spot
        }
        return hits.compactMap { hit in byRowid[hit.rowid].map { SpotDistance(spot: $0, center: center) } }
    }
}

/// A spot as its columns hold it: the same text and numbers the SQLite store writes.
struct StoredSpot {
    var id, name, foldedName: String
    var lat, lon: Double
    var category: String?
    var tags: String
    var notes, rating, address, url: String?
    var createdAt, updatedAt: Double
    var placeIDs: String
    var snapshot: String?
    var snapshotFetchedAt: Double?
    var snapshotSource: String?

    init(_ spot: Spot) throws {
        id = spot.id.storeKey
        name = spot.name
        foldedName = TextFolding.fold(spot.name)
        lat = spot.coordinate.latitude
        lon = spot.coordinate.longitude
        category = spot.category
        tags = spot.tags.isEmpty ? "[]" : try SpotCoding.jsonText(spot.tags)
        notes = spot.notes
        rating = spot.rating?.rawValue
        address = spot.address
        url = spot.url
        createdAt = spot.createdAt.roundedToMilliseconds.timeIntervalSinceReferenceDate
        updatedAt = spot.updatedAt.roundedToMilliseconds.timeIntervalSinceReferenceDate
        placeIDs = spot.placeIDs.isEmpty ? "[]" : try SpotCoding.jsonText(spot.placeIDs)
        snapshot = try spot.snapshot.map { try SpotCoding.jsonText($0.place) }
        snapshotFetchedAt = spot.snapshot?.fetchedAt.roundedToMilliseconds.timeIntervalSinceReferenceDate
        snapshotSource = spot.snapshot?.source
    }
}
