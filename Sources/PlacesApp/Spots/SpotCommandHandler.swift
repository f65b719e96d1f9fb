import Foundation
import PlacesCore
import SpotStore

/// The server's SPOT.* commands, answered with exactly the JSON the CLI prints for `places spots … --json`
/// to a pipe, and on the same database, so a write from either side is at once visible to the other.
///
/// Syntax (Redis style: positional arguments, then `KEYWORD value` options, keywords case-insensitive):
///
///     SPOT.ADD name lat lon [CATEGORY c] [TAG t]… [NOTE text] [RATING like|dislike|none]
///     SPOT.LIST [CATEGORY c] [TAG t]… [RATING r] [SORT name|recent|distance] [AT lat lon]
///     SPOT.SHOW id
///     SPOT.NEAR lat lon [RADIUS m]
///     SPOT.NEAREST lat lon [LIMIT n]
///     SPOT.LOG (SPOT id | AT lat lon) [NOTE text] [TIME iso8601]
///     SPOT.VISITS [DAY yyyy-mm-dd | SINCE date]
///
/// The server plugs it in with one dispatch case: `try handler.reply(name, arguments)`; an unknown
/// spot id is a miss (`nil`, a null bulk reply), bad arguments throw ``InputError`` (an `-ERR` line).
public struct SpotCommandHandler: Sendable {
    public let spots: SpotsService

    public init(spots: SpotsService) { self.spots = spots }

    /// The command names this handler answers, upper case.
    public static let commandNames = ["SPOT.ADD", "SPOT.LIST", "SPOT.SHOW", "SPOT.NEAR", "SPOT.NEAREST", "SPOT.LOG", "SPOT.VISITS"]

    public func reply(_ command: String, _ arguments: [String], now: Date = Date()) async throws -> Data? {
        var reader = Reader(command: command.uppercased(), arguments: arguments)
        switch command.uppercased() {
        case "SPOT.ADD":
            let name = try reader.text("name")
            let point = try reader.coordinate()
            var spot = Spot(name: name, coordinate: point, createdAt: now)
            var attributes = SpotAttributes()
            while let keyword = reader.keyword() {
                switch keyword {
                case "CATEGORY": attributes.category = try reader.text("category")
                case "TAG": attributes.tags.append(try reader.text("tag"))
                case "NOTE": attributes.notes = try reader.text("note")
                case "RATING": attributes.rating = try SpotRating.parse(try reader.text("rating"))
                default: throw reader.unexpected(keyword)
                }
            }
            attributes.apply(to: &spot)
            do {
                return try PlacesJSON.spot(try await spots.add(spot))
            } catch let duplicate as DuplicateSpot {
                throw InputError("\(duplicate); SPOT.ADD saves only new places")
            }
        case "SPOT.LIST":
            var filter = SpotFilter()
            while let keyword = reader.keyword() {
                switch keyword {
                case "CATEGORY":
                    let category = try reader.text("category")
                    filter.category = PlaceCategory.normalize(category) ?? category
                case "TAG": filter.tags.append(try reader.text("tag"))
                case "RATING": filter.rating = .some(try SpotRating.parse(try reader.text("rating")))
                case "SORT":
                    let text = try reader.text("order")
                    guard let sort = SpotFilter.Sort(rawValue: text.lowercased()) else {
                        throw InputError("invalid SORT '\(text)': expected name, recent or distance")
                    }
                    filter.sort = sort
                case "AT": filter.reference = try reader.coordinate()
                default: throw reader.unexpected(keyword)
                }
            }
            if filter.sort == .distance && filter.reference == nil { throw InputError("SORT distance needs AT lat lon") }
            return try PlacesJSON.spots(try await spots.store.list(filter), reference: filter.reference)
        case "SPOT.SHOW":
            let reference = try reader.text("id")
            try reader.end()
            do { return try PlacesJSON.spot(try await spots.store.resolve(reference)) } catch is UnknownSpot {
                return nil
            }
        case "SPOT.NEAR":
            let point = try reader.coordinate()
            var radius = 805.0
            while let keyword = reader.keyword() {
                guard keyword == "RADIUS" else { throw reader.unexpected(keyword) }
                radius = try reader.radius()
            }
            return try PlacesJSON.spots(try await spots.store.near(point, radius: radius))
        case "SPOT.NEAREST":
            let point = try reader.coordinate()
            var limit = 20
            while let keyword = reader.keyword() {
                guard keyword == "LIMIT" else { throw reader.unexpected(keyword) }
                limit = try reader.limit()
            }
            return try PlacesJSON.spots(try await spots.store.nearest(point, limit: limit))
        case "SPOT.LOG":
            var spotReference: String?
            var point: Coordinate?
            var note: String?
            var time: String?
            while let keyword = reader.keyword() {
                switch keyword {
                case "SPOT": spotReference = try reader.text("id")
                case "AT": point = try reader.coordinate()
                case "NOTE": note = try reader.text("note")
                case "TIME": time = try reader.text("time")
                default: throw reader.unexpected(keyword)
                }
            }
            let visit: Visit, spot: Spot?
            do {
                (visit, spot) = try await spots.log(spot: spotReference, at: point, note: note, time: time, now: now)
            } catch let unknown as UnknownSpot {
                throw InputError("unknown spot '\(unknown.reference.prefix(40))': SPOT.LIST shows the saved ids")
            }
            return try PlacesJSON.encode(VisitJSON(visit, spotName: spot?.name))
        case "SPOT.VISITS":
            var day: String?
            var since: String?
            while let keyword = reader.keyword() {
                switch keyword {
                case "DAY": day = try reader.text("day")
                case "SINCE": since = try reader.text("date")
                default: throw reader.unexpected(keyword)
                }
            }
            if day != nil && since != nil { throw InputError("choose one of DAY and SINCE") }
            let visits = try await spots.visits(day: day, since: since)
            return try PlacesJSON.visitDays(visits, spotNames: try await spots.spotNames(for: visits))
        default:
            throw InputError("unknown command '\(command)': the spot commands are \(Self.commandNames.joined(separator: ", "))")
        }
    }

    private struct Reader {
        let command: String
        let arguments: [String]
        var position = 0

        init(command: String, arguments: [String]) {
            self.command = command
            self.arguments = arguments
        }

        mutating func text(_ what: String) throws(InputError) -> String {
            guard position < arguments.count else { throw InputError("\(command): missing \(what)") }
            defer { position += 1 }
            return arguments[position]
        }

        mutating func keyword() -> String? {
            guard position < arguments.count else { return nil }
            defer { position += 1 }
            return arguments[position].uppercased()
        }

        mutating func coordinate() throws(InputError) -> Coordinate {
            let lat = try text("latitude"), lon = try text("longitude")
            guard let latitude = Double(lat), let longitude = Double(lon) else {
                throw InputError("\(command): invalid coordinate '\(lat.prefix(40)) \(lon.prefix(40))': expected lat lon in decimal degrees")
            }
            do { return try Coordinate.check(latitude: latitude, longitude: longitude) } catch {
                throw InputError("\(command): invalid coordinate: \(error)")
            }
        }

        mutating func radius() throws(InputError) -> Double {
            let raw = try text("radius")
            do { return try InputRange.metres(parsing: raw, named: "RADIUS") } catch { throw InputError("\(command): \(error.message)") }
        }

        mutating func limit() throws(InputError) -> Int {
            let raw = try text("limit")
            do { return try InputRange.limit(parsing: raw, named: "LIMIT") } catch { throw InputError("\(command): \(error.message)") }
        }

        func end() throws(InputError) {
            if position < arguments.count { throw InputError("\(command): unexpected '\(arguments[position].prefix(40))'") }
        }

        func unexpected(_ keyword: String) -> InputError {
            InputError("\(command): syntax error at '\(keyword.prefix(40))'")
        }
    }
}
