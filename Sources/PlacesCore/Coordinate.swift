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

    public init(validatingLatitude latitude: Double, longitude: Double) throws(InputError) {
        guard latitude.isFinite, longitude.isFinite else {
            throw InputError("invalid coordinate: latitude and longitude must be finite numbers")
        }
        guard (-90...90).contains(latitude) else {
            throw InputError("invalid coordinate: latitude \(Self.format(latitude)) is outside -90…90")
        }
        guard (-180...180).contains(longitude) else {
            throw InputError("invalid coordinate: longitude \(Self.format(longitude)) is outside -180…180")
        }
        self.init(latitude: latitude, longitude: longitude)
    }

    /// Parses `LAT,LON` (spaces allowed around the comma), as typed after `--near` or `--at`.
    public init(parsing text: String) throws(InputError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else {
            throw InputError("invalid coordinate '\(text)': expected LAT,LON in decimal degrees, for example 60.1699,24.9384")
        }
        do {
            try self.init(validatingLatitude: lat, longitude: lon)
        } catch {
            throw InputError("invalid coordinate '\(text)': " + error.message.replacingOccurrences(of: "invalid coordinate: ", with: ""))
        }
    }

    public var description: String { "\(Self.format(latitude)),\(Self.format(longitude))" }

    private static func format(_ value: Double) -> String {
        // `Int(exactly:)`, not `Int(_:)`: a whole number beyond Int's range (1e19) is shown, not trapped on.
        if value == value.rounded(), let whole = Int(exactly: value) { return String(whole) }
        return String(value)
    }
}
