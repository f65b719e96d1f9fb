import Foundation
import GRDB
import PlacesCore
import StoreSupport
import Synchronization

/// What a serving process keeps in memory from the index, read once per version of the index file
/// (``DataVersionStamp``), so that requests do not read it again:
/// - the GeoNames cities' positions, populations and time zones (``CityTable``): the time zone a place's
///   opening hours are read in (that of the city reverse geocoding names, ``CityLookup``) then costs a few
///   microseconds, where the index's grid cells cost four queries, the winning city's row and a read
///   transaction: 38 % of an uncached `DETAILS`'s instructions (callgrind, session 12). About 48 bytes a city
///   (8 MB for cities1000's 170,000);
/// - the list of imported files, which every local search reads for its notes;
/// - what searches learnt about its words (``SearchFacts``).
///
/// One-command processes keep none of it: reading every city would cost more than the one lookup it serves.
/// After an import, from this process or another, the next request reads it again. While one request reads
/// it, the others ask the index, so none waits.
final class IndexInMemory: Sendable {
    private let stamp: DataVersionStamp
    private let state = Mutex<(snapshot: Snapshot?, reading: Bool)>((nil, false))

    init(path: URL) {
        stamp = DataVersionStamp(path: path)
    }

    /// One version of the index, as far as it is kept.
    struct Snapshot: Sendable {
        let stamp: UInt64
        let cities: CityTable
        /// ``PlaceIndexStore/sources()``.
        let sources: [IndexedSource]
        /// Counts and names searches of this version asked (``LocalSearch``), filled as they ask.
        let searchFacts = SearchFacts()
    }

    /// The index as it is now, or `nil` when the caller should ask the index itself: while another request
    /// reads it, or when the file's version cannot be read. Reads it (with `read`) when the index changed
    /// since it was last read.
    func current(read: (_ stamp: UInt64) throws -> Snapshot) -> Snapshot? {
        guard let now = stamp.read() else { return nil }
        let known: Snapshot?? = state.withLock { state in
            if let snapshot = state.snapshot, snapshot.stamp == now { return .some(snapshot) }
            if state.reading { return .some(nil) }
            state.reading = true
            return nil
        }
        if let known { return known }
        // Read outside the lock; the stamp was read first, so a commit meanwhile makes the next request read again.
        let snapshot = try? read(now)
        state.withLock { state in
            if let snapshot { state.snapshot = snapshot }
            state.reading = false
        }
        return snapshot
    }
}

/// What a local search asks the index about words before it reads any place, remembered for one version of the
/// index: how many places a full-text match finds, counted up to a bound (whether a word is common, whether a word
/// begins an indexed word), and whether a name is a city's main name. A search asks several of these for every
/// query ("maya bar": five, each a statement of its own, ~15 % of a one-client `SEARCH`'s CPU), and the answers
/// change only when the index does. The same query asked again, or another query with the same words, reads them
/// from here.
///
/// Bounded: at most ``capacity`` answers (all are forgotten when it is full), and none for a match longer than
/// ``longestRemembered`` bytes, so what clients type cannot grow it past a few megabytes.
final class SearchFacts: Sendable {
    /// A question a search asks the index (see ``LocalSearch``).
    enum Question: Hashable {
        /// How many places the full-text `match` finds, counted up to `upTo`.
        case fullTextMatches(String, upTo: Int)
        /// Whether a folded name is a city's main name (1) or not (0).
        case cityName(String)
        /// The rowid of the most important city with this folded name among its other names, or 0.
        case cityByOtherName(String)
    }

    static let capacity = 8_192
    static let longestRemembered = 256

    private let answers = Mutex<[Question: Int]>([:])

    /// The answer to `question`, from memory or from `ask` (then remembered).
    func answer(_ question: Question, ask: () throws -> Int) rethrows -> Int {
        if let known = answers.withLock({ $0[question] }) { return known }
        let answer = try ask()
        if question.textLength <= Self.longestRemembered {
            answers.withLock { answers in
                if answers.count >= Self.capacity { answers.removeAll(keepingCapacity: true) }
                answers[question] = answer
            }
        }
        return answer
    }
}

extension SearchFacts.Question {
    fileprivate var textLength: Int {
        switch self {
        case .fullTextMatches(let match, _): match.utf8.count
        case .cityName(let name), .cityByOtherName(let name): name.utf8.count
        }
    }
}

/// The cities of one version of the index, in `city_by_cell`'s order (cell, then `geonameid`): the order in
/// which ``CityGrid/candidates(in:db:)`` reads them. The winner is chosen by the same rule over the same
/// candidates in the same order as from the index (``CityLookup/winner(near:candidates:)``), so the answer is
/// the same city.
struct CityTable: Sendable {
    /// Each city's grid cell, as the index computed it (``CityGrid``): ascending.
    private let cells: [Int32]
    private let cities: [CityGrid.Candidate]
    /// `geonameid`s ascending, and each one's time zone (an index into `zones`).
    private let ids: [Int64]
    private let zoneOfID: [UInt32]
    /// The distinct time zones (a few hundred): a city holds an index, not a string.
    private let zones: [String?]

    /// Every city of the index, as it is in `db`'s transaction.
    static func read(_ db: Database) throws -> CityTable {
        var cells: [Int32] = [], cities: [CityGrid.Candidate] = [], byID: [(id: Int64, zone: UInt32)] = []
        var zones: [String?] = [], zoneIndex: [String?: UInt32] = [:]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT cell, geonameid, lat, lon, population, time_zone FROM city ORDER BY cell, geonameid
            """)
        while let row = try rows.next() {
            let zone: String? = row[5]
            let index = zoneIndex[zone] ?? {
                zones.append(zone)
                zoneIndex[zone] = UInt32(zones.count - 1)
                return UInt32(zones.count - 1)
            }()
            cells.append(Int32(row[0] as Int))
            let city = CityGrid.Candidate(geonameID: row[1], coordinate: Coordinate(latitude: row[2], longitude: row[3]),
                                          population: row[4])
            cities.append(city)
            byID.append((city.geonameID, index))
        }
        byID.sort { $0.id < $1.id }
        return CityTable(cells: cells, cities: cities, ids: byID.map(\.id), zoneOfID: byID.map(\.zone), zones: zones)
    }

    /// The time zone of the city ``CityLookup`` names for `coordinate`, as `PlaceIndexStore.cities(near:)` would.
    func timeZone(near coordinate: Coordinate) -> String? {
        guard let winner = CityLookup.winner(near: coordinate, candidates: candidates(in:)) else { return nil }
        let position = Self.firstIndex(in: ids, notBelow: winner)
        return zones[Int(zoneOfID[position])]
    }

    /// Every city inside `box`, edges included, in the order ``CityGrid/candidates(in:db:)`` returns them:
    /// one row of cells at a time, the same cell ranges and the same comparisons as its SQL.
    func candidates(in box: BoundingBox) -> [CityGrid.Candidate] {
        let first = CityGrid.column(box.minLongitude), last = CityGrid.column(box.maxLongitude)
        var found: [CityGrid.Candidate] = []
        for row in CityGrid.row(box.minLatitude)...CityGrid.row(box.maxLatitude) {
            let high = row * CityGrid.rowStride + last
            var position = Self.firstIndex(in: cells, notBelow: Int32(clamping: row * CityGrid.rowStride + first))
            while position < cells.count, Int(cells[position]) <= high {
                let city = cities[position]
                let point = city.coordinate
                if point.latitude >= box.minLatitude, point.latitude <= box.maxLatitude,
                   point.longitude >= box.minLongitude, point.longitude <= box.maxLongitude {
                    found.append(city)
                }
                position += 1
            }
        }
        return found
    }

    /// The first position in the ascending `values` whose value is at least `value` (`values.count` if none).
    private static func firstIndex<Value: Comparable>(in values: [Value], notBelow value: Value) -> Int {
        var low = 0, high = values.count
        while low < high {
            let middle = (low + high) / 2
            if values[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
