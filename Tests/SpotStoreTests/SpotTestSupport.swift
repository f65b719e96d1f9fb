import Foundation
import PlacesCore
import SpotStore

/// A fresh spots database in its own temporary folder, deleted when the test's value goes away.
final class TemporarySpotStore {
    let directory: URL
    let store: SQLiteSpotStore
    var path: URL { directory.appendingPathComponent("spots.sqlite") }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("spots-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteSpotStore(path: directory.appendingPathComponent("spots.sqlite"))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// Real Helsinki landmarks, as a person would save them.
enum HelsinkiSpots {
    static let kamppiChapel = Coordinate(latitude: 60.16945, longitude: 24.93650)
    static let ateneum = Coordinate(latitude: 60.17020, longitude: 24.94410)
    static let cathedral = Coordinate(latitude: 60.17000, longitude: 24.95220)
    static let marketSquare = Coordinate(latitude: 60.16750, longitude: 24.95250)
    static let temppeliaukio = Coordinate(latitude: 60.17320, longitude: 24.92530)

    static func all(at date: Date = Date(timeIntervalSince1970: 1_777_000_000)) -> [Spot] {
        [
            Spot(name: "Kamppi Chapel", coordinate: kamppiChapel, category: "place_of_worship", tags: ["quiet"], createdAt: date),
            Spot(name: "Ateneum", coordinate: ateneum, category: "museum", tags: ["art", "rainy-day"], rating: .like,
                 createdAt: date.addingTimeInterval(60)),
            Spot(name: "Helsinki Cathedral", coordinate: cathedral, category: "place_of_worship", tags: ["view"],
                 createdAt: date.addingTimeInterval(120)),
            Spot(name: "Market Square", coordinate: marketSquare, category: "marketplace", rating: .dislike,
                 createdAt: date.addingTimeInterval(180)),
            Spot(name: "Temppeliaukio Church", coordinate: temppeliaukio, category: "place_of_worship",
                 createdAt: date.addingTimeInterval(240)),
        ]
    }

    /// A spot with every field set, including a details snapshot with provenance, to prove round-trips.
    static func fullyDescribed() -> Spot {
        let fetched = Date(timeIntervalSince1970: 1_777_100_000.123)
        let place = Place(
            id: PlaceID(provider: "osm", nativeID: "node/2385473"), name: "Café Regatta",
            coordinate: Coordinate(latitude: 60.1830467, longitude: 24.9095513),
            address: PostalAddress(houseNumber: "10", street: "Merikannontie", postcode: "00260", city: "Helsinki", countryCode: "FI"),
            formattedAddress: "Merikannontie 10, 00260 Helsinki, FI", phone: "+358405167444",
            website: "https://www.caferegatta.fi", categories: ["amenity=cafe"], category: "cafe",
            openingHoursText: "Mo-Su 08:00-23:00",
            openingPeriods: [WeeklyOpenPeriod(open: WeekTime(weekday: 1, minute: 480), close: WeekTime(weekday: 1, minute: 1380))],
            timeZone: "Europe/Helsinki", status: .operational, attribution: "© OpenStreetMap contributors",
            alternateIDs: [PlaceID(provider: "google", nativeID: "ChIJ7Zc0nJ0LkkYR3Sd9I0hI9yE")]
        ).attributed(to: "local", at: fetched)
        var spot = Spot(saving: place, fetchedFrom: "local", at: fetched)
        spot.tags = ["cinnamon buns", "sea, view", "quote\"d"]
        spot.notes = "Queue moves fast.\nTry the korvapuusti; cash & card."
        spot.rating = .like
        spot.url = "https://maps.google.com/?cid=1234567890123456789"
        spot.updatedAt = Date(timeIntervalSince1970: 1_777_200_000.456).roundedToMilliseconds
        return spot
    }
}
