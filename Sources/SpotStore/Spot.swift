import Foundation
import PlacesCore

/// A place the user chose to keep: their own name, category, tags, notes and verdict, plus the
/// lookup it came from (provider ids and the last details snapshot) so it can be refreshed cheaply.
///
/// The user's fields and the provider's snapshot are kept apart on purpose: a refresh may change
/// the snapshot's phone or hours, but never the name or notes the user typed.
public struct Spot: Hashable, Sendable, Codable, Identifiable {
    public var id: UUID
    public var name: String
    public var coordinate: Coordinate
    /// One word from ``PlaceCategory`` when it normalises, otherwise the user's own word.
    public var category: String?
    public var tags: [String]
    public var notes: String?
    public var rating: SpotRating?
    /// One line, from the snapshot, a reverse geocode or an import.
    public var address: String?
    /// A link the user or an import brought along (Google Maps URL from Takeout).
    public var url: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// The place ids this spot is attached to, at most one per provider.
    public var placeIDs: [PlaceID]
    public var snapshot: SpotSnapshot?

    public init(
        id: UUID = UUID(), name: String, coordinate: Coordinate, category: String? = nil, tags: [String] = [],
        notes: String? = nil, rating: SpotRating? = nil, address: String? = nil, url: String? = nil,
        createdAt: Date = Date(), updatedAt: Date? = nil, placeIDs: [PlaceID] = [], snapshot: SpotSnapshot? = nil
    ) {
        self.id = id
        self.name = name
        self.coordinate = coordinate
        self.category = category
        self.tags = tags
        self.notes = notes
        self.rating = rating
        self.address = address
        self.url = url
        self.createdAt = createdAt.roundedToMilliseconds
        self.updatedAt = (updatedAt ?? createdAt).roundedToMilliseconds
        self.placeIDs = placeIDs
        self.snapshot = snapshot
    }

    /// A spot saved from a looked-up place: the place's id, alternates and data become the attachment.
    public init(saving place: Place, fetchedFrom source: String, at date: Date = Date()) {
        var ids = [place.id]
        for alternate in place.alternateIDs where !ids.contains(where: { $0.provider == alternate.provider }) {
            ids.append(alternate)
        }
        self.init(
            name: place.name, coordinate: place.coordinate, category: place.category,
            address: place.formattedAddress ?? place.address?.formatted, createdAt: date, placeIDs: ids,
            snapshot: SpotSnapshot(place: place, fetchedAt: date, source: source))
    }

    /// The first attached id of `provider`, if any.
    public func placeID(provider: String) -> PlaceID? { placeIDs.first { $0.provider == provider } }
}

/// The user's verdict on a spot.
public enum SpotRating: String, Hashable, Sendable, Codable, CaseIterable {
    case like, dislike

    /// Parses `like`, `dislike` or `none` (which means "no rating" and returns `nil`).
    public static func parse(_ text: String) throws(InputError) -> SpotRating? {
        let folded = text.trimmingCharacters(in: .whitespaces).lowercased()
        if folded == "none" || folded.isEmpty { return nil }
        guard let rating = SpotRating(rawValue: folded) else {
            throw InputError("invalid rating '\(text)': expected like, dislike or none")
        }
        return rating
    }
}

/// The last details answer for a spot's attached place, with when and where it came from.
public struct SpotSnapshot: Hashable, Sendable, Codable {
    public var place: Place
    public var fetchedAt: Date
    /// What answered: a provider name (`local`, `google`) or `cache`.
    public var source: String

    public init(place: Place, fetchedAt: Date, source: String) {
        self.place = place
        self.fetchedAt = fetchedAt.roundedToMilliseconds
        self.source = source
    }
}

/// One logged visit (or meal): at a saved spot, or at a bare location.
public struct Visit: Hashable, Sendable, Codable, Identifiable {
    public var id: UUID
    public var spotID: UUID?
    public var time: Date
    /// IANA zone (`Europe/Helsinki`) or a fixed offset (`GMT+0200`) the visit happened in,
    /// so "which day" is answered in the visitor's local calendar, not UTC.
    public var timeZone: String
    public var coordinate: Coordinate
    public var note: String?
    public var photoPath: String?
    /// Where it was, reverse geocoded from the local index when the visit was logged (a diary answers "where
    /// did I eat" without a lookup); `nil` when the index knew nothing there or the visit predates addresses.
    public var address: VisitAddress?

    public init(id: UUID = UUID(), spotID: UUID? = nil, time: Date = Date(), timeZone: String = TimeZone.current.identifier,
                coordinate: Coordinate, note: String? = nil, photoPath: String? = nil, address: VisitAddress? = nil) {
        self.id = id
        self.spotID = spotID
        self.time = time.roundedToMilliseconds
        self.timeZone = timeZone
        self.coordinate = coordinate
        self.note = note
        self.photoPath = photoPath
        self.address = address?.isEmpty == true ? nil : address
    }

    /// The `YYYY-MM-DD` day of the visit in its own time zone.
    public var localDay: String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0)!
        let parts = calendar.dateComponents([.year, .month, .day], from: time)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}

/// A visit's street address, as reverse geocoding found it; each part `nil` when unknown.
public struct VisitAddress: Hashable, Sendable, Codable {
    public var street: String?
    public var houseNumber: String?
    public var city: String?
    /// ISO 3166-1 alpha-2 (`FI`).
    public var country: String?

    public init(street: String? = nil, houseNumber: String? = nil, city: String? = nil, country: String? = nil) {
        func present(_ text: String?) -> String? {
            guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
            return trimmed
        }
        self.street = present(street)
        self.houseNumber = present(houseNumber)
        self.city = present(city)
        self.country = present(country)
    }

    public var isEmpty: Bool { street == nil && houseNumber == nil && city == nil && country == nil }

    /// `Mannerheimintie 20 B, Helsinki, FI`: what a table shows.
    public var formatted: String {
        let streetLine = [street, houseNumber].compactMap { $0 }.joined(separator: " ")
        return [streetLine.isEmpty ? nil : streetLine, city, country].compactMap { $0 }.joined(separator: ", ")
    }
}

/// Timestamps as users type them (`2026-05-01T12:30:00+03:00`, with or without fractions, `Z`), keeping the zone.
public enum SpotTime {
    /// The instant and the zone written in the text (a fixed offset zone; `GMT` for `Z`).
    public static func parse(_ text: String) throws(InputError) -> (date: Date, timeZone: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let date = parseDate(trimmed) else {
            throw InputError("invalid time '\(text)': expected ISO 8601, for example 2026-05-01T12:30:00+03:00")
        }
        return (date, zoneName(of: trimmed))
    }

    /// Only the instant; `nil` when the text is not ISO 8601. Cheap enough for GPS streams.
    public static func parseDate(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        return nil
    }

    public static func format(_ date: Date, timeZone: String) -> String {
        let zone = TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0)!
        return date.formatted(Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: zone))
    }

    private static func zoneName(of text: String) -> String {
        if text.hasSuffix("Z") || text.hasSuffix("z") { return "GMT" }
        // The offset is the last `+HH:MM` / `-HH:MM` after the time part.
        guard let tIndex = text.firstIndex(where: { $0 == "T" || $0 == "t" }) else { return "GMT" }
        let timePart = text[tIndex...]
        guard let sign = timePart.lastIndex(where: { $0 == "+" || $0 == "-" }) else { return "GMT" }
        let digits = timePart[timePart.index(after: sign)...].filter(\.isNumber)
        guard digits.count == 4 || digits.count == 2, let value = Int(digits) else { return "GMT" }
        let hours = digits.count == 4 ? value / 100 : value, minutes = digits.count == 4 ? value % 100 : 0
        let seconds = (hours * 3600 + minutes * 60) * (timePart[sign] == "-" ? -1 : 1)
        return TimeZone(secondsFromGMT: seconds)?.identifier ?? "GMT"
    }
}
