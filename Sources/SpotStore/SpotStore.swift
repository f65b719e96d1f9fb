import Foundation
import PlacesCore

/// The saved-spots store's whole contract: user data, kept apart from the cache so no cache command can
/// touch it. Any implementation (SQLite today, PostgreSQL next) must pass the shared contract suite in
/// `Tests/SpotStoreTests/SpotStoreContract.swift`.
///
/// What every implementation guarantees:
/// - **One transaction per method.** Each call commits entirely or not at all, so a command that fails or is
///   killed halfway leaves the store as it was before (a batch ``add(_:)-(Array)`` or ``importAll(spots:visits:replacing:)``
///   with one bad spot saves none). ``update(_:now:_:)`` reads, changes and writes in one transaction, so
///   two editors never lose each other's change.
/// - **What is stored comes back.** Every ``Spot`` and ``Visit`` field round-trips exactly (dates to the millisecond,
///   as the values' initialisers round them).
/// - **References.** A spot is named by its full id or an unambiguous prefix of at least 4 hex characters;
///   an unknown, ambiguous or malformed reference throws ``PlacesCore/InputError``.
/// - **Invalid spots** (an empty name, a coordinate off the Earth) and visits naming a spot that is not
///   saved throw ``PlacesCore/InputError`` and store nothing.
/// - **Removing** a spot keeps its visits, detached (their spot id becomes `nil`): they still happened.
/// - **Distances** are haversine metres from ``GeoMath``; `near` includes spots exactly at the radius, both
///   `near` and `nearest` order nearest first.
///
/// ```swift
/// let store: any SpotStore = try SQLiteSpotStore(path: environment.spotsDatabase)
/// try await store.add(Spot(name: "Maya Bar", coordinate: Coordinate(latitude: 60.1721, longitude: 24.9450)))
/// let around = try await store.near(Coordinate(latitude: 60.17, longitude: 24.94), radius: 805, limit: nil)
/// ```
public protocol SpotStore: Sendable {
    // MARK: Writing spots

    /// Saves a new spot; fails if its id is already taken.
    func add(_ spot: Spot) async throws

    /// Saves many new spots in one transaction: all of them or, if anything fails, none.
    func add(_ spots: [Spot]) async throws

    /// Finds the spot `reference` names, lets `change` edit it, stamps `updatedAt` with `now`, and saves it, all
    /// in one transaction. An error thrown by `change` saves nothing. `change` escapes: a store may run it in a
    /// task that outlives the call (a PostgreSQL request answers at its deadline while its task still runs).
    @discardableResult
    func update(_ reference: String, now: Date, _ change: @escaping @Sendable (inout Spot) throws -> Void) async throws -> Spot

    /// Deletes the spot `reference` names and returns it. Its visits stay, detached, because they still happened.
    @discardableResult
    func remove(_ reference: String) async throws -> Spot

    /// Imports spots and visits in one transaction. With `replacing`, everything already stored (spots and
    /// visits) is deleted first (the caller writes a backup before); otherwise spots whose id exists are
    /// updated in place and the others added. A visit whose id exists is replaced.
    func importAll(spots: [Spot], visits: [Visit], replacing: Bool) async throws

    // MARK: Reading spots

    /// The spot named by a full id or an unambiguous id prefix of at least 4 characters.
    /// - Throws: ``UnknownSpot`` when no saved spot answers to `reference` (a miss each front end words);
    ///   `InputError` when several do.
    func resolve(_ reference: String) async throws -> Spot

    func spot(id: UUID) async throws -> Spot?

    /// Spots attached to `placeID`, oldest first: how `add --from` notices a place saved already.
    func spots(attachedTo placeID: PlaceID) async throws -> [Spot]

    /// For each spot, the saved spots that may be the same place: the same id, a shared attached place id,
    /// or within `radius` metres; each listed once.
    func duplicateCandidates(for spots: [Spot], radius: Double) async throws -> [[Spot]]

    func count() async throws -> Int

    /// Spots that pass `filter`, in its order (``SpotFilter/Sort``); ties fall back to name, then id.
    func list(_ filter: SpotFilter) async throws -> [Spot]

    /// Each category with its number of spots, most used first, then by name; `nil` counts spots without one.
    func categories() async throws -> [(category: String?, count: Int)]

    /// Spots within `radius` metres of `center`, nearest first, at most `limit` of them.
    func near(_ center: Coordinate, radius: Double, limit: Int?) async throws -> [SpotDistance]

    /// The `limit` spots nearest to `center`, wherever they are: the set a watcher monitors.
    func nearest(_ center: Coordinate, limit: Int) async throws -> [SpotDistance]

    /// Every spot, oldest first: what export writes.
    func allSpots() async throws -> [Spot]

    /// Every spot's id, name and point, for the watcher (no snapshot decoding).
    func allPoints() async throws -> [SpotPoint]

    // MARK: Visits

    /// Saves a visit (replacing one with the same id).
    func log(_ visit: Visit) async throws

    /// The visit named by a full id or an unambiguous id prefix of at least 4 characters.
    /// - Throws: ``UnknownVisit`` when no visit answers to `reference`; `InputError` when several do.
    func visit(_ reference: String) async throws -> Visit

    /// Finds the visit `reference` names, lets `change` edit it (its id stays) and saves it, in one transaction.
    /// An error thrown by `change` saves nothing.
    @discardableResult
    func updateVisit(_ reference: String, _ change: @escaping @Sendable (inout Visit) throws -> Void) async throws -> Visit

    /// Deletes the visit `reference` names and returns it.
    @discardableResult
    func removeVisit(_ reference: String) async throws -> Visit

    /// Visits in time order (then id); `day` is a local `YYYY-MM-DD` in each visit's own zone, `since` an instant
    /// (inclusive), `spot` a saved spot's id. Filters combine.
    func visits(day: String?, since: Date?, spot: UUID?) async throws -> [Visit]
}

extension SpotStore {
    /// Every spot in name order.
    public func list() async throws -> [Spot] { try await list(SpotFilter()) }

    /// Spots within `radius` metres of `center`, nearest first.
    public func near(_ center: Coordinate, radius: Double) async throws -> [SpotDistance] {
        try await near(center, radius: radius, limit: nil)
    }

    /// Every visit, in time order.
    public func visits() async throws -> [Visit] { try await visits(day: nil, since: nil, spot: nil) }

    @discardableResult
    public func update(_ reference: String, _ change: @escaping @Sendable (inout Spot) throws -> Void) async throws -> Spot {
        try await update(reference, now: Date(), change)
    }
}

/// A spot with its distance and bearing from a reference point.
public struct SpotDistance: Hashable, Sendable {
    public var spot: Spot
    public var distance: Double
    /// Degrees clockwise from north, from the reference point to the spot.
    public var bearing: Double

    public init(spot: Spot, center: Coordinate) {
        self.spot = spot
        distance = GeoMath.distance(center, spot.coordinate)
        bearing = GeoMath.bearing(from: center, to: spot.coordinate)
    }
}

/// What a watcher needs to know about one thing it watches: a saved spot, or a place from the local index
/// (a brand's shop, a pharmacy) that `spots watch --brand/--place-category` adds. The details ride along into
/// each event so an alert can say what it is about without another lookup.
public struct SpotPoint: Hashable, Sendable {
    /// The saved spot's id; a fresh id for an index place (whose own id is ``placeID``).
    public var id: UUID
    public var name: String
    public var coordinate: Coordinate
    /// `osm:node/123` for a place from the local index; `nil` for a saved spot.
    public var placeID: String?
    public var category: String?
    public var note: String?
    public var rating: SpotRating?

    public init(id: UUID, name: String, coordinate: Coordinate, placeID: String? = nil, category: String? = nil,
                note: String? = nil, rating: SpotRating? = nil) {
        self.id = id
        self.name = name
        self.coordinate = coordinate
        self.placeID = placeID
        self.category = category
        self.note = note
        self.rating = rating
    }

    /// A saved spot with what an alert shows about it.
    public init(_ spot: Spot) {
        self.init(id: spot.id, name: spot.name, coordinate: spot.coordinate, category: spot.category, note: spot.notes,
                  rating: spot.rating)
    }
}

/// What `list` shows and in which order.
public struct SpotFilter: Sendable, Hashable {
    public enum Sort: String, Sendable, CaseIterable {
        /// Folded name, then id.
        case name
        /// Most recently edited first.
        case recent
        /// Most recently saved first.
        case added
        /// Most recently visited first; spots never visited follow in name order.
        case visited
        /// Nearest to ``SpotFilter/reference`` first (name order without one).
        case distance
    }

    public var category: String?
    /// Spots must carry every one of these tags.
    public var tags: [String]
    /// `nil`: any; `.some(nil)`: unrated only; `.some(rating)`: that rating.
    public var rating: SpotRating??
    public var sort: Sort
    public var reference: Coordinate?

    public init(category: String? = nil, tags: [String] = [], rating: SpotRating?? = nil, sort: Sort = .name,
                reference: Coordinate? = nil) {
        self.category = category
        self.tags = tags
        self.rating = rating
        self.sort = sort
        self.reference = reference
    }
}

extension UUID {
    /// Lower case: how ids are stored, printed and matched by prefix.
    public var storeKey: String { uuidString.lowercased() }
}

/// No logged visit answers to a reference: a miss, as ``UnknownSpot`` is for spots.
public struct UnknownVisit: Error, Sendable, Hashable {
    public var reference: String

    public init(reference: String) { self.reference = reference }
}

/// No saved spot answers to a reference: a miss, not a failure. The CLI says how to find the id, the server
/// replies null, and nobody reads a message to tell the two apart.
public struct UnknownSpot: Error, Sendable, Hashable {
    public enum Reason: Sendable, Hashable {
        /// The reference is neither an id nor an id prefix of 4+ hex characters.
        case notAnID
        /// It looks like an id, but no saved spot has it.
        case noSuchSpot
    }

    public var reference: String
    public var reason: Reason

    public init(reference: String, reason: Reason) {
        self.reference = reference
        self.reason = reason
    }
}
