import Foundation

/// Spherical geometry on the WGS84 mean radius: good to ~0.5 % everywhere, which is far below GPS noise
/// at the distances places cares about (metres to a few hundred kilometres).
public enum GeoMath {
    public static let earthRadiusMeters = 6_371_008.8

    /// Great-circle distance in metres (haversine).
    @inlinable
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let lat1 = a.latitude * .pi / 180, lat2 = b.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (b.longitude - a.longitude) * .pi / 180
        let sinLat = sin(dLat / 2), sinLon = sin(dLon / 2)
        let h = sinLat * sinLat + cos(lat1) * cos(lat2) * sinLon * sinLon
        return 2 * earthRadiusMeters * asin(min(1, h.squareRoot()))
    }

    /// Initial bearing from `a` to `b`, in degrees clockwise from north, 0..<360.
    public static func bearing(from a: Coordinate, to b: Coordinate) -> Double {
        let lat1 = a.latitude * .pi / 180, lat2 = b.latitude * .pi / 180
        let dLon = (b.longitude - a.longitude) * .pi / 180
        let y = sin(dLon) * cos(lat2)
        let x = cos(lat1) * sin(lat2) - sin(lat1) * cos(lat2) * cos(dLon)
        let degrees = atan2(y, x) * 180 / .pi
        return (degrees + 360).truncatingRemainder(dividingBy: 360)
    }

    /// The eight-point compass name of a bearing ("N", "NE", …), for human output.
    public static func compassPoint(_ bearing: Double) -> String {
        let points = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
        let index = Int(((bearing.truncatingRemainder(dividingBy: 360) + 360 + 22.5) / 45).rounded(.down)) % 8
        return points[index]
    }

    /// The latitude/longitude box around `center` reaching `radius` metres each way, cut off at ±180° of longitude:
    /// a view of the area (Nominatim's `viewbox`), not a filter. Near the antimeridian it leaves out what lies
    /// across it; to find every point within `radius`, read ``boundingBoxes(around:radius:)``.
    public static func boundingBox(around center: Coordinate, radius: Double) -> BoundingBox {
        let (dLat, dLon) = boxHalfSpans(around: center, radius: radius)
        return BoundingBox(
            minLatitude: max(-90, center.latitude - dLat), minLongitude: max(-180, center.longitude - dLon),
            maxLatitude: min(90, center.latitude + dLat), maxLongitude: min(180, center.longitude + dLon))
    }

    /// Boxes that together contain every point within `radius` metres of `center`: the cheap pre-filter for R*Tree
    /// queries, refined afterwards with ``distance(_:_:)``. One box, or two where it crosses the antimeridian (the
    /// part past ±180° continues from the other end of the longitudes), each with `minLongitude <= maxLongitude`
    /// as an R*Tree or a `BETWEEN` needs. Without the second, a place a few metres across 180° (Fiji, Chukotka)
    /// was never found from the other side.
    public static func boundingBoxes(around center: Coordinate, radius: Double) -> [BoundingBox] {
        let (dLat, dLon) = boxHalfSpans(around: center, radius: radius)
        let south = max(-90, center.latitude - dLat), north = min(90, center.latitude + dLat)
        func box(_ west: Double, _ east: Double) -> BoundingBox {
            BoundingBox(minLatitude: south, minLongitude: west, maxLatitude: north, maxLongitude: east)
        }
        let west = center.longitude - dLon, east = center.longitude + dLon
        if dLon >= 180 { return [box(-180, 180)] }
        if west < -180 { return [box(-180, east), box(west + 360, 180)] }
        if east > 180 { return [box(west, 180), box(-180, east - 360)] }
        return [box(west, east)]
    }

    /// Half the height and half the width of the box around `center` reaching `radius` metres each way, in degrees;
    /// the width is the whole circle of longitude near a pole.
    private static func boxHalfSpans(around center: Coordinate, radius: Double) -> (latitude: Double, longitude: Double) {
        let dLat = radius / earthRadiusMeters * 180 / .pi
        let cosLat = cos(center.latitude * .pi / 180)
        return (dLat, cosLat < 1e-9 ? 180 : min(180, dLat / cosLat))
    }
}

public struct BoundingBox: Hashable, Sendable, Codable {
    public var minLatitude: Double
    public var minLongitude: Double
    public var maxLatitude: Double
    public var maxLongitude: Double

    public init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
    }

    public func contains(_ c: Coordinate) -> Bool {
        (minLatitude...maxLatitude).contains(c.latitude) && (minLongitude...maxLongitude).contains(c.longitude)
    }
}
