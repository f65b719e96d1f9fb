import Foundation
import PlacesCore

/// One position report from a GPS: `lat,lon[,accuracy_m[,ISO8601]]` on a line, or a GPX track point.
public struct LocationFix: Hashable, Sendable {
    public var coordinate: Coordinate
    /// Horizontal accuracy in metres (radius of 68 % confidence); `nil` when the source did not say.
    public var accuracy: Double?
    public var time: Date?

    public init(coordinate: Coordinate, accuracy: Double? = nil, time: Date? = nil) {
        self.coordinate = coordinate
        self.accuracy = accuracy
        self.time = time
    }

    /// Parses one `lat,lon[,accuracy_m[,ISO8601 time]]` line. Empty fields are allowed (`60.1,24.9,,2026-…`).
    public init(line: some StringProtocol) throws(InputError) {
        let parts = line.split(separator: ",", maxSplits: 3, omittingEmptySubsequences: false)
        func field(_ i: Int) -> Substring? {
            guard i < parts.count else { return nil }
            let trimmed = parts[i].trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : Substring(trimmed)
        }
        guard parts.count >= 2, let lat = field(0).flatMap({ Double($0) }), let lon = field(1).flatMap({ Double($0) }) else {
            throw InputError("invalid fix '\(line)': expected lat,lon[,accuracy_m[,ISO8601 time]]")
        }
        let coordinate: Coordinate
        do { coordinate = try Coordinate(validatingLatitude: lat, longitude: lon) } catch {
            throw InputError("invalid fix '\(line)': \(error.message)")
        }
        var accuracy: Double?
        if let text = field(2) {
            guard let value = Double(text), value >= 0 else {
                throw InputError("invalid fix '\(line)': accuracy '\(text)' is not a number of metres")
            }
            accuracy = value
        }
        var time: Date?
        if let text = field(3) {
            guard let date = SpotTime.parseDate(String(text)) else {
                throw InputError("invalid fix '\(line)': time '\(text)' is not ISO 8601")
            }
            time = date
        }
        self.init(coordinate: coordinate, accuracy: accuracy, time: time)
    }
}

/// Crossing a spot's circle.
public struct ProximityEvent: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, Codable { case enter, exit }

    public var kind: Kind
    public var spot: SpotPoint
    public var distance: Double
    public var time: Date?

    public init(kind: Kind, spot: SpotPoint, distance: Double, time: Date?) {
        self.kind = kind
        self.spot = spot
        self.distance = distance
        self.time = time
    }
}

/// Settings of a watch, with the defaults the CLI documents.
public struct ProximityWatchSettings: Hashable, Sendable {
    /// Entering means coming within this many metres (805 m: half a mile).
    public var radius: Double = 805
    /// Leaving means getting farther than `radius + exitMargin`, so GPS jitter at the edge does not flap.
    public var exitMargin: Double = 50
    /// Fixes whose accuracy is worse (larger) than this are ignored. Fixes without an accuracy are trusted.
    public var minAccuracy: Double = 20
    /// How many of the nearest spots are watched at once (phones monitor about 20 regions).
    public var monitorCount: Int = 20
    /// The watched set is recomputed after moving this far from where it was last computed.
    public var refreshDistance: Double = 1_500

    public init(radius: Double = 805, exitMargin: Double = 50, minAccuracy: Double = 20, monitorCount: Int = 20,
                refreshDistance: Double = 1_500) {
        self.radius = radius
        self.exitMargin = exitMargin
        self.minAccuracy = minAccuracy
        self.monitorCount = monitorCount
        self.refreshDistance = refreshDistance
    }
}

/// The proximity alert state machine: feed it fixes, it returns enter and exit events. It does no I/O,
/// so the CLI, the server and the tests drive the same logic, and its memory does not grow with the
/// number of fixes (only with the number of spots it was given).
///
/// ```swift
/// var watch = ProximityWatch(spots: try store.allPoints())
/// for fix in fixes { for event in watch.process(fix) { print(event) } }
/// ```
public struct ProximityWatch: Sendable {
    public let settings: ProximityWatchSettings
    private let spots: [SpotPoint]
    /// Per spot: latitude and longitude in radians and the cosine of the latitude, for the fast pre-check.
    private let latRad: [Double]
    private let lonRad: [Double]
    private let cosLat: [Double]
    private var inside: [Bool]
    /// Spot indexes by grid cell, so recomputing the nearest set does not scan every spot.
    private let grid: SpotGrid
    private var monitored: [Int] = []
    private var anchor: Coordinate?
    public private(set) var ignoredFixes = 0
    public private(set) var acceptedFixes = 0
    public private(set) var refreshes = 0

    public init(spots: [SpotPoint], settings: ProximityWatchSettings = ProximityWatchSettings()) {
        self.spots = spots
        self.settings = settings
        latRad = spots.map { $0.coordinate.latitude * .pi / 180 }
        lonRad = spots.map { $0.coordinate.longitude * .pi / 180 }
        cosLat = spots.map { cos($0.coordinate.latitude * .pi / 180) }
        inside = Array(repeating: false, count: spots.count)
        grid = SpotGrid(spots.map(\.coordinate))
    }

    /// The spots watched right now.
    public var monitoredSpots: [SpotPoint] { monitored.map { spots[$0] } }

    /// Feeds one fix; returns the events it causes, in spot-distance order.
    public mutating func process(_ fix: LocationFix) -> [ProximityEvent] {
        var events: [ProximityEvent] = []
        process(fix) { events.append($0) }
        return events
    }

    /// Feeds one fix and hands each event to `emit`: the allocation-free form for long streams.
    public mutating func process(_ fix: LocationFix, emit: (ProximityEvent) -> Void) {
        if let accuracy = fix.accuracy, accuracy > settings.minAccuracy {
            ignoredFixes += 1
            return
        }
        acceptedFixes += 1
        let here = fix.coordinate
        if anchor.map({ GeoMath.distance($0, here) >= settings.refreshDistance }) ?? true {
            refreshMonitoredSet(around: here)
        }
        let hereLat = here.latitude * .pi / 180, hereLon = here.longitude * .pi / 180
        let hereCos = cos(hereLat)
        let exitDistance = settings.radius + settings.exitMargin
        // Beyond this (flat-earth) distance a spot is surely outside both circles, so no haversine is needed.
        let certainOutside = exitDistance * 1.2 + 100
        var pending: [(Int, Double, ProximityEvent.Kind)] = []
        for index in monitored {
            var dLon = abs(lonRad[index] - hereLon)
            if dLon > .pi { dLon = 2 * .pi - dLon }
            let x = dLon * max(hereCos, cosLat[index]), y = latRad[index] - hereLat
            let rough = GeoMath.earthRadiusMeters * (x * x + y * y).squareRoot()
            if rough > certainOutside {
                if inside[index] {
                    inside[index] = false
                    pending.append((index, GeoMath.distance(here, spots[index].coordinate), .exit))
                }
                continue
            }
            let distance = GeoMath.distance(here, spots[index].coordinate)
            if !inside[index], distance <= settings.radius {
                inside[index] = true
                pending.append((index, distance, .enter))
            } else if inside[index], distance > exitDistance {
                inside[index] = false
                pending.append((index, distance, .exit))
            }
        }
        guard !pending.isEmpty else { return }
        if pending.count > 1 { pending.sort { ($0.1, $0.0) < ($1.1, $1.0) } }
        for (index, distance, kind) in pending {
            emit(ProximityEvent(kind: kind, spot: spots[index], distance: distance, time: fix.time))
        }
    }

    /// Watches the `monitorCount` nearest spots, plus any the user is inside (so leaving them is still reported).
    private mutating func refreshMonitoredSet(around here: Coordinate) {
        refreshes += 1
        anchor = here
        let count = min(settings.monitorCount, spots.count)
        var best: [(distance: Double, index: Int)] = []
        best.reserveCapacity(count + 1)
        grid.visitRings(around: here) { indexes, outsideDistance in
            for index in indexes {
                let distance = GeoMath.distance(here, spots[index].coordinate)
                if best.count == count, let last = best.last, distance >= last.distance { continue }
                let position = best.firstIndex { distance < $0.distance } ?? best.count
                best.insert((distance, index), at: position)
                if best.count > count { best.removeLast() }
            }
            // Stop once every spot not yet seen is provably farther than the current n-th nearest.
            return best.count == count && (best.last?.distance ?? 0) <= outsideDistance
        }
        var chosen = best.map(\.index)
        for index in monitored where inside[index] && !chosen.contains(index) { chosen.append(index) }
        monitored = chosen
    }
}

/// A latitude/longitude grid of ~1 km cells over the watched spots. Nearest-spot searches walk square
/// rings of cells outwards and stop as soon as the ring distance proves the answer complete.
struct SpotGrid: Sendable {
    static let latStep = 0.01
    static let lonStep = 0.02
    struct Cell: Hashable, Sendable { var lat: Int32; var lon: Int32 }

    private let cells: [Cell: [Int]]
    private let bounds: (minLat: Int32, maxLat: Int32, minLon: Int32, maxLon: Int32)

    init(_ coordinates: [Coordinate]) {
        var cells: [Cell: [Int]] = [:]
        var bounds = (minLat: Int32.max, maxLat: Int32.min, minLon: Int32.max, maxLon: Int32.min)
        for (index, coordinate) in coordinates.enumerated() {
            let cell = Self.cell(coordinate)
            cells[cell, default: []].append(index)
            bounds = (min(bounds.minLat, cell.lat), max(bounds.maxLat, cell.lat), min(bounds.minLon, cell.lon), max(bounds.maxLon, cell.lon))
        }
        self.cells = cells
        self.bounds = bounds
    }

    static func cell(_ c: Coordinate) -> Cell {
        Cell(lat: Int32((c.latitude / latStep).rounded(.down)), lon: Int32((c.longitude / lonStep).rounded(.down)))
    }

    /// Calls `visit` with the spots of ring 0, 1, 2 … around `center`, and the distance that every spot
    /// outside the rings seen so far is at least; `visit` returns `true` to stop.
    func visitRings(around center: Coordinate, _ visit: ([Int], Double) -> Bool) {
        guard !cells.isEmpty else { return }
        let origin = Self.cell(center)
        let maxRing = Int(max(abs(Int64(origin.lat) - Int64(bounds.minLat)), abs(Int64(origin.lat) - Int64(bounds.maxLat)),
                              abs(Int64(origin.lon) - Int64(bounds.minLon)), abs(Int64(origin.lon) - Int64(bounds.maxLon))))
        for ring in 0...maxRing {
            var indexes: [Int] = []
            for dLat in -ring...ring {
                let lat = origin.lat + Int32(dLat)
                if lat < bounds.minLat || lat > bounds.maxLat { continue }
                let step = (dLat == -ring || dLat == ring) ? 1 : max(1, 2 * ring)
                for dLon in stride(from: -ring, through: ring, by: step) {
                    if let found = cells[Cell(lat: lat, lon: origin.lon + Int32(dLon))] { indexes += found }
                }
            }
            // The rings cover at least `ring` whole cells in every direction from the centre's cell.
            let farLat = min(89.9, abs(center.latitude) + Double(ring + 1) * Self.latStep)
            let cellWidth = min(Self.latStep * 111_195, Self.lonStep * 111_195 * cos(farLat * .pi / 180))
            if visit(indexes, Double(ring) * cellWidth) || ring == maxRing { return }
        }
    }
}
