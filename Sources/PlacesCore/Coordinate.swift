import Foundation

/// A WGS84 position in decimal degrees.
public struct Coordinate: Hashable, Sendable, Codable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double

    /// Trusts the caller; use ``init(validatingLatitude:longitude:)`` or ``init(parsing:)`` for input.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Why numbers are not a position. Each edge words it its own way: the CLI after the option's name,
    /// the server after `ERR invalid coordinate:`, a file reader after the line number.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case notTwoNumbers
        case notFinite
        case latitudeOutOfRange(Double)
        case longitudeOutOfRange(Double)

        public var description: String {
            switch self {
            case .notTwoNumbers: "expected LAT,LON in decimal degrees, for example 60.1699,24.9384"
            case .notFinite: "latitude and longitude must be finite numbers"
            case .latitudeOutOfRange(let value): "latitude \(value.compactText) is outside -90…90"
            case .longitudeOutOfRange(let value): "longitude \(value.compactText) is outside -180…180"
            }
        }
    }

    /// The check every position from outside goes through: finite, latitude in -90…90, longitude in -180…180.
    public static func check(latitude: Double, longitude: Double) throws(Problem) -> Coordinate {
        guard latitude.isFinite, longitude.isFinite else { throw .notFinite }
        guard (-90...90).contains(latitude) else { throw .latitudeOutOfRange(latitude) }
        guard (-180...180).contains(longitude) else { throw .longitudeOutOfRange(longitude) }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    /// `LAT,LON` (spaces allowed around the comma), as typed after `--near` or `--at`.
    public static func check(parsing text: String) throws(Problem) -> Coordinate {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else { throw .notTwoNumbers }
        return try check(latitude: lat, longitude: lon)
    }

    public init(validatingLatitude latitude: Double, longitude: Double) throws(InputError) {
        do { self = try Self.check(latitude: latitude, longitude: longitude) } catch {
            throw InputError("invalid coordinate: \(error)")
        }
    }

    /// Parses `LAT,LON` (spaces allowed around the comma), as typed after `--near` or `--at`.
    public init(parsing text: String) throws(InputError) {
        do { self = try Self.check(parsing: text) } catch {
            throw InputError("invalid coordinate '\(text.prefix(80))': \(error)")
        }
    }

    public var description: String { "\(latitude.compactText),\(longitude.compactText)" }
}
