import Foundation
import GRDB
import PlacesCore
import StoreSupport
import Synchronization

/// The GeoNames cities' positions, populations and time zones, held in memory by a serving process: the time
/// zone a place's opening hours are read in (that of the city reverse geocoding names, ``CityLookup``) then
/// costs a few microseconds, where the index's grid cells cost four queries, the winning city's row and a read
/// transaction: 38 % of an uncached `DETAILS`'s instructions (callgrind, session 12). About 32 bytes a city
/// (6 MB for cities1000's 170,000). One-command processes do not build it: reading every city would cost more
/// than the one lookup it serves.
///
/// The cities are read once per version of the index file (``DataVersionStamp``): after an import, from this
/// process or another, the next request reads them again. While one request reads them, the others ask the
/// index as before, so none waits. The winner is chosen by the same rule over the same candidates in the same
/// order as from the index (``CityLookup/winner(near:candidates:)``), so the answer is the same city.
final class CitiesInMemory: Sendable {
    private let stamp: DataVersionStamp
    private let state = Mutex<(table: Table?, reading: Bool)>((nil, false))

    init(path: URL) {
        stamp = DataVersionStamp(path: path)
    }

    /// The cities as the index holds them now, or `nil` when the caller should ask the index itself: while
    /// another request reads them, or when the file's version cannot be read. Reads them (with `read`) when
    /// the index changed since they were last read.
    func current(read: (_ stamp: UInt64) throws -> Table) -> Table? {
        guard let now = stamp.read() else { return nil }
        let known: Table?? = state.withLock { state in
            if let table = state.table, table.stamp == now { return .some(table) }
            if state.reading { return .some(nil) }
            state.reading = true
            return nil
        }
        if let known { return known }
        // Read outside the lock; the stamp was read first, so a commit meanwhile makes the next request read again.
        let table = try? read(now)
        state.withLock { state in
            if let table { state.table = table }
            state.reading = false
        }
        return table
    }

    /// One version of the cities, in `city_by_cell`'s order (cell, then `geonameid`): the order in which
    /// ``CityGrid/candidates(in:db:)`` reads them.
    struct Table: Sendable {
        let stamp: UInt64
        /// Each city's grid cell, as the index computed it (``CityGrid``): ascending.
        private let cells: [Int32]
        private let cities: [CityGrid.Candidate]
        /// `geonameid`s ascending, and each one's time zone (an index into `zones`).
        private let ids: [Int64]
        private let zoneOfID: [UInt32]
        /// The distinct time zones (a few hundred): a city holds an index, not a string.
        private let zones: [String?]

        /// Every city of the index, as it is in `db`'s transaction.
        static func read(_ db: Database, stamp: UInt64) throws -> Table {
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
            return Table(stamp: stamp, cells: cells, cities: cities, ids: byID.map(\.id), zoneOfID: byID.map(\.zone), zones: zones)
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
}
