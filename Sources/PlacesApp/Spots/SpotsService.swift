import Foundation
import PlacesCore
import PlacesHours
import PlacesMatching
import SpotStore

/// Saved spots as the CLI and the server use them: the store plus the rules that need the rest of the
/// app (duplicate detection with the place matcher, backups before a replacing import, visit logging).
public struct SpotsService: Sendable {
    /// Internal to the core: the CLI and the server ask the use-case methods below, so a rule added to a
    /// use case holds for both and the store behind it (SQLite or PostgreSQL) can change without them.
    let store: any SpotStore
    /// Where `import --replace` writes its backup before it deletes anything.
    public let backupDirectory: URL
    public let matcher: PlaceMatcher

    public init(store: any SpotStore, backupDirectory: URL, matcher: PlaceMatcher = PlaceMatcher()) {
        self.store = store
        self.backupDirectory = backupDirectory
        self.matcher = matcher
    }

    /// The saved spots of the application opened under `environment` (``PlacesApplication/spots``).
    public static func open(_ environment: PlacesEnvironment) throws -> SpotsService {
        try PlacesApplication.open(environment).spots
    }

    /// `spots near` and SPOT.NEAR look this far unless asked otherwise: 805 m is half a mile, a short walk.
    public static let defaultNearRadius = 805.0
    /// `spots nearest` and SPOT.NEAREST give this many spots unless asked otherwise.
    public static let defaultNearestLimit = 20

    // MARK: Reading, editing and removing

    /// The saved spot `reference` names: its id, or the first 4+ characters of it.
    /// - Throws: ``UnknownSpot`` when no saved spot answers to it.
    public func spot(_ reference: String) async throws -> Spot {
        try await store.resolve(reference)
    }

    /// Saved spots that pass `filter`, in its order.
    public func list(_ filter: SpotFilter = SpotFilter()) async throws -> [Spot] {
        try await store.list(filter)
    }

    /// Saved spots within `radius` metres of `center`, nearest first.
    public func near(_ center: Coordinate, radius: Double) async throws -> [SpotDistance] {
        try await store.near(center, radius: radius)
    }

    /// The `limit` saved spots nearest to `center`, however far.
    public func nearest(_ center: Coordinate, limit: Int) async throws -> [SpotDistance] {
        try await store.nearest(center, limit: limit)
    }

    /// Every saved spot, in name order.
    public func allSpots() async throws -> [Spot] {
        try await store.allSpots()
    }

    /// Every saved spot's id, name and point: what the proximity watch compares positions with.
    public func allPoints() async throws -> [SpotPoint] {
        try await store.allPoints()
    }

    /// How many saved spots each category has.
    public func categories() async throws -> [(category: String?, count: Int)] {
        try await store.categories()
    }

    /// Changes the spot `reference` names in one transaction, stamping its update time.
    /// - Throws: ``UnknownSpot`` when no saved spot answers to it; nothing is saved when `change` throws.
    @discardableResult
    public func update(_ reference: String, now: Date = Date(), _ change: @escaping @Sendable (inout Spot) throws -> Void) async throws -> Spot {
        try await store.update(reference, now: now, change)
    }

    /// What `spots edit` and SPOT.EDIT may change: one value both edges read their options into, so an option
    /// means the same on either. `nil` keeps a field; an empty category or note clears it; a rating of
    /// `.some(nil)` (typed `none`) clears the rating. Tags are removed first, then added, so
    /// `--remove-tag x --add-tag x` keeps `x`.
    public struct SpotChange: Sendable, Hashable {
        public var name: String?
        public var category: String?
        public var addTags: [String]
        public var removeTags: [String]
        public var note: String?
        public var rating: SpotRating??
        /// Moves the spot.
        public var coordinate: Coordinate?

        public init(name: String? = nil, category: String? = nil, addTags: [String] = [], removeTags: [String] = [],
                    note: String? = nil, rating: SpotRating?? = nil, coordinate: Coordinate? = nil) {
            self.name = name
            self.category = category
            self.addTags = addTags
            self.removeTags = removeTags
            self.note = note
            self.rating = rating
            self.coordinate = coordinate
        }

        /// Nothing to change: each edge refuses it with its own option names.
        public var isEmpty: Bool { self == SpotChange() }

        public func apply(to spot: inout Spot) {
            if let name { spot.name = name }
            if let category { spot.category = category.isEmpty ? nil : PlaceCategory.normalize(category) ?? category }
            if let note { spot.notes = note.isEmpty ? nil : note }
            if let rating { spot.rating = rating }
            if let coordinate { spot.coordinate = coordinate }
            spot.tags.removeAll { removeTags.contains($0) }
            for tag in addTags where !spot.tags.contains(tag) { spot.tags.append(tag) }
        }
    }

    /// Changes the spot `reference` (its id or 4+ characters of it) names, in one transaction: `spots edit` and
    /// SPOT.EDIT both come here.
    /// - Throws: ``UnknownSpot`` when no saved spot answers to it, `InputError` when several do or the change
    ///   leaves the spot without a name; nothing is saved then.
    public func edit(_ reference: String, _ change: SpotChange, now: Date = Date()) async throws -> Spot {
        try await store.update(reference, now: now) { change.apply(to: &$0) }
    }

    /// Deletes the spot `reference` names; its visits stay, detached, because they still happened.
    /// - Throws: ``UnknownSpot`` when no saved spot answers to it.
    @discardableResult
    public func remove(_ reference: String) async throws -> Spot {
        try await store.remove(reference)
    }

    // MARK: Adding

    /// The saved spot that names the same place as `spot`, if any: same id, an attached place id in common,
    /// or the matcher's `match` verdict against spots within 150 m.
    public func existingDuplicate(of spot: Spot) async throws -> Spot? {
        try await duplicates(of: [spot])[0]
    }

    /// ``existingDuplicate(of:)`` for a batch, in one read transaction.
    func duplicates(of spots: [Spot]) async throws -> [Spot?] {
        let candidates = try await store.duplicateCandidates(for: spots, radius: matcher.thresholds.maxDistance)
        return zip(spots, candidates).map { spot, candidates in
            if let same = candidates.first(where: { $0.id == spot.id }) { return same }
            if let attached = candidates.first(where: { !Set($0.placeIDs).isDisjoint(with: spot.placeIDs) }) { return attached }
            return firstMatch(of: spot, among: candidates)
        }
    }

    func firstMatch(of spot: Spot, among candidates: [Spot]) -> Spot? {
        let record = matcher.prepare(Self.matchRecord(spot))
        return candidates.first { candidate in
            candidate.id != spot.id && matcher.compare(record, matcher.prepare(Self.matchRecord(candidate))).verdict == .match
        }
    }

    static func matchRecord(_ spot: Spot) -> MatchRecord {
        if let place = spot.snapshot?.place {
            var record = MatchRecord(place: place)
            record.id = spot.id.storeKey
            record.name = spot.name
            record.coordinate = spot.coordinate
            return record
        }
        return MatchRecord(id: spot.id.storeKey, name: spot.name, address: spot.address, coordinate: spot.coordinate,
                           category: spot.category)
    }

    /// Saves `spot` unless it duplicates a saved one, in one transaction.
    /// - Throws: ``DuplicateSpot`` naming the saved spot (each front end says how to save it anyway).
    public func add(_ spot: Spot, allowDuplicate: Bool = false) async throws -> Spot {
        if !allowDuplicate, let existing = try await existingDuplicate(of: spot) {
            throw DuplicateSpot(incoming: spot, existing: existing)
        }
        try await store.add(spot)
        return spot
    }

    // MARK: Import and export

    public struct ImportReport: Sendable {
        public var added: [Spot] = []
        /// Incoming spots not saved because they name a saved (or earlier incoming) spot.
        public var duplicates: [(incoming: Spot, existing: Spot)] = []
        public var visits = 0
        public var skipped: [String] = []
        /// The export written before a replacing import deleted anything.
        public var backup: URL?
    }

    /// Imports an archive in one transaction. Without `replace`, duplicates (found with the matcher) are
    /// reported and left out; with it, the current spots and visits are first exported to a backup file.
    public func importArchive(_ archive: SpotArchive, replace: Bool, now: Date = Date()) async throws -> ImportReport {
        var report = ImportReport(skipped: archive.skipped)
        var accepted: [Spot] = []
        var remap: [UUID: UUID] = [:]
        if replace {
            report.backup = try await writeBackup(now: now)
            var seen = Set<UUID>()
            accepted = archive.spots.filter { seen.insert($0.id).inserted }
        } else {
            // Incoming spots are compared with saved ones and with each other, through a coarse grid.
            var grid: [GridCell: [Spot]] = [:]
            let saved = try await duplicates(of: archive.spots)
            for (spot, savedTwin) in zip(archive.spots, saved) {
                let existing = savedTwin
                    ?? firstMatch(of: spot, among: GridCell.around(spot.coordinate).flatMap { grid[$0] ?? [] })
                if let existing {
                    report.duplicates.append((spot, existing))
                    remap[spot.id] = existing.id
                    continue
                }
                accepted.append(spot)
                grid[GridCell(spot.coordinate), default: []].append(spot)
            }
        }
        let visits = archive.visits.map { visit in
            var copy = visit
            if let spotID = visit.spotID, let target = remap[spotID] { copy.spotID = target }
            return copy
        }
        try await store.importAll(spots: accepted, visits: visits, replacing: replace)
        report.added = accepted
        report.visits = visits.count
        return report
    }

    /// Everything in the store in `format` (GeoJSON also carries the visits: it is the backup format).
    public func export(format: SpotFormat) async throws -> Data {
        let spots = try await store.allSpots()
        let visits = format == .geojson ? try await store.visits() : []
        return try SpotFiles.export(SpotArchive(spots: spots, visits: visits), format: format)
    }

    /// Writes `spots-backup-<UTC time>.geojson` next to the database and returns its URL.
    public func writeBackup(now: Date = Date()) async throws -> URL {
        try FileManager.default.createDirectory(at: backupDirectory, withIntermediateDirectories: true)
        let stamp = now.formatted(Date.ISO8601FormatStyle().year().month().day().dateSeparator(.omitted)
            .time(includingFractionalSeconds: false).timeSeparator(.omitted))
        var url = backupDirectory.appendingPathComponent("spots-backup-\(stamp).geojson")
        var n = 1
        while FileManager.default.fileExists(atPath: url.path) {
            n += 1
            url = backupDirectory.appendingPathComponent("spots-backup-\(stamp)-\(n).geojson")
        }
        try await export(format: .geojson).write(to: url, options: .atomic)
        return url
    }

    // MARK: Visits

    /// Logs a visit at a saved spot (its point unless `at` is given) or at a bare point, with the point's street
    /// address and IANA zone from `app`'s local index when it knows them.
    ///
    /// `time` is any ``VisitTime`` form (`now`, `-30m`, `yesterday 19:30`, ISO 8601); a time without an offset is
    /// read in the place's zone (the index's, else the spot's snapshot's, else this machine's). Without `time` the
    /// visit is `now`.
    public func log(spot reference: String?, at point: Coordinate?, note: String?, time: String?, photoPath: String? = nil,
                    app: PlacesApplication? = nil, now: Date = Date()) async throws -> (visit: Visit, spot: Spot?) {
        var spot: Spot?
        if let reference { spot = try await store.resolve(reference) }
        guard let coordinate = point ?? spot?.coordinate else {
            throw InputError("say where the visit was: a saved spot or a point")
        }
        let place = await Self.placeFacts(at: coordinate, app: app)
        let writtenZone = time.flatMap { try? SpotTime.parse($0).timeZone }
        let zoneName = place.timeZone ?? spot?.snapshot?.place.timeZone ?? writtenZone ?? TimeZone.current.identifier
        let zone = TimeZone(identifier: zoneName) ?? .current
        let date = try time.map { try VisitTime.parse($0, now: now, zone: zone) } ?? now
        let visit = Visit(spotID: spot?.id, time: date, timeZone: zone.identifier, coordinate: coordinate, note: note,
                          photoPath: photoPath, address: place.address)
        try await store.log(visit)
        return (visit, spot)
    }

    /// The street address and IANA zone the local index gives a point; both `nil` without `app` or when it knows
    /// nothing there (a diary entry is still worth keeping).
    static func placeFacts(at coordinate: Coordinate, app: PlacesApplication?) async -> (address: VisitAddress?, timeZone: String?) {
        guard let app, let answer = try? await app.reverse(coordinate) else { return (nil, nil) }
        let street = answer.nearest?.address
        let address = VisitAddress(street: street?.street, houseNumber: street?.houseNumber, city: street?.city ?? answer.city,
                                   country: answer.countryCode ?? street?.countryCode)
        return (address.isEmpty ? nil : address, answer.timeZone)
    }

    /// The visit `reference` (its id or 4+ characters of it) names.
    /// - Throws: ``UnknownVisit`` when none does.
    public func visit(_ reference: String) async throws -> Visit {
        try await store.visit(reference)
    }

    /// What `spots visits edit` may change; `nil` keeps the field. An empty note removes it.
    public struct VisitChange: Sendable, Hashable {
        public var time: String?
        public var note: String?
        /// A saved spot's reference to move the visit to.
        public var spot: String?

        public init(time: String? = nil, note: String? = nil, spot: String? = nil) {
            self.time = time
            self.note = note
            self.spot = spot
        }
    }

    /// Changes a visit in one transaction: a new time is read in the visit's own zone, as ``log`` reads it.
    /// - Throws: ``UnknownVisit`` or ``UnknownSpot`` when a reference names nothing; nothing is saved then.
    @discardableResult
    public func editVisit(_ reference: String, _ change: VisitChange, now: Date = Date()) async throws -> Visit {
        var newSpot: Spot?
        if let reference = change.spot { newSpot = try await store.resolve(reference) }
        let target = newSpot
        return try await store.updateVisit(reference) { visit in
            if let time = change.time {
                visit.time = try VisitTime.parse(time, now: now, zone: TimeZone(identifier: visit.timeZone) ?? .current)
            }
            if let note = change.note { visit.note = note.isEmpty ? nil : note }
            if let target { visit.spotID = target.id }
        }
    }

    /// Deletes a visit and returns it.
    /// - Throws: ``UnknownVisit`` when `reference` names none.
    @discardableResult
    public func removeVisit(_ reference: String) async throws -> Visit {
        try await store.removeVisit(reference)
    }

    /// Visits on a local day (`YYYY-MM-DD`) or since a date (`YYYY-MM-DD`, midnight in this machine's zone, or ISO 8601).
    public func visits(day: String?, since: String?) async throws -> [Visit] {
        if let day {
            guard day.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil, LocalDate(iso: day) != nil else {
                throw InputError("invalid day '\(day.prefix(40))': expected a real date as YYYY-MM-DD")
            }
            return try await store.visits(day: day, since: nil, spot: nil)
        }
        return try await store.visits(day: nil, since: try since.map(Self.parseSince), spot: nil)
    }

    static func parseSince(_ text: String) throws(InputError) -> Date {
        if text.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil {
            guard LocalDate(iso: text) != nil else {
                throw InputError("invalid since '\(text.prefix(40))': expected a real date as YYYY-MM-DD or an ISO 8601 time")
            }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .current
            let parts = text.split(separator: "-").compactMap { Int($0) }
            if let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) { return date }
        }
        guard let date = SpotTime.parseDate(text) else {
            throw InputError("invalid since '\(text.prefix(40))': expected YYYY-MM-DD or an ISO 8601 time")
        }
        return date
    }

    /// Visits grouped by their local day, days and visits in time order.
    public static func groupByDay(_ visits: [Visit]) -> [(day: String, visits: [Visit])] {
        var order: [String] = []
        var groups: [String: [Visit]] = [:]
        for visit in visits.sorted(by: { $0.time < $1.time }) {
            let day = visit.localDay
            if groups[day] == nil { order.append(day) }
            groups[day, default: []].append(visit)
        }
        return order.sorted().map { ($0, groups[$0]!) }
    }

    /// Names of the spots these visits belong to, for printing.
    public func spotNames(for visits: [Visit]) async throws -> [UUID: String] {
        var names: [UUID: String] = [:]
        for id in Set(visits.compactMap(\.spotID)) { names[id] = try await store.spot(id: id)?.name }
        return names
    }
}

/// A spot not saved because it names the same place as a saved one.
public struct DuplicateSpot: Error, Sendable, CustomStringConvertible {
    public var incoming: Spot
    public var existing: Spot

    public var description: String {
        "'\(incoming.name)' looks already saved as '\(existing.name)' (\(existing.id.storeKey.prefix(8)))"
    }
}

/// A ~0.01° cell (about 1 km): incoming spots are only compared with those in neighbouring cells.
struct GridCell: Hashable {
    var lat: Int
    var lon: Int

    init(_ coordinate: Coordinate) {
        lat = Int((coordinate.latitude * 100).rounded(.down))
        lon = Int((coordinate.longitude * 100).rounded(.down))
    }

    init(lat: Int, lon: Int) {
        self.lat = lat
        self.lon = lon
    }

    static func around(_ coordinate: Coordinate) -> [GridCell] {
        let center = GridCell(coordinate)
        return (-1...1).flatMap { dLat in (-1...1).map { dLon in GridCell(lat: center.lat + dLat, lon: center.lon + dLon) } }
    }
}
