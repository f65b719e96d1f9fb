import Foundation
import PlacesApp
import PlacesCore
import PlacesMatching
import PlacesPipeline
import SpotStore

/// The application as the server's commands see it: the one ``PlacesApplication`` `places serve` opens,
/// split by the parts each command needs. A part that failed to open when the server started answers its
/// commands with the reason (``ServerBackendError/notOpened(reason:)``), and the other commands still serve.
public struct ServerApplication: Sendable {
    /// The local index's questions (SEARCH, DETAILS, NEARBY, REVERSE, SUGGEST).
    public var places: Result<PlacesApplication, ServerBackendError>
    /// The lookup pipeline, the ledger and the cache (LOOKUP, BUDGET, CACHE.STATS).
    public var lookup: Result<PlacesApplication, ServerBackendError>
    /// Saved spots (SPOT.*).
    public var spots: Result<SpotsService, ServerBackendError>

    public init(places: Result<PlacesApplication, ServerBackendError>, lookup: Result<PlacesApplication, ServerBackendError>,
                spots: Result<SpotsService, ServerBackendError>) {
        self.places = places
        self.lookup = lookup
        self.spots = spots
    }

    /// Nothing opened: every command answers with `reason`. For tests of the command table's parsing.
    public static func unopened(_ reason: String) -> ServerApplication {
        ServerApplication(places: .failure(.notOpened(reason)), lookup: .failure(.notOpened(reason)), spots: .failure(.notOpened(reason)))
    }

    /// An unknown id is a miss (null reply), not an error, as Redis clients expect of a lookup by key.
    func details(_ query: DetailsQuery) async throws -> Data? {
        do {
            return try PlacesJSON.place(try await places.get().details(query.id, fields: query.fields))
        } catch is NotFound {
            return nil
        }
    }

    /// Nothing known near the point is a miss.
    func reverse(_ query: ReverseQuery) async throws -> Data? {
        do {
            return try PlacesJSON.reverse(try await places.get().reverse(query.coordinate))
        } catch is NotFound {
            return nil
        }
    }

    /// A provider failed, no other source knew the place and nothing was cached: an error, not a miss,
    /// or a client could not tell an outage from "no such place".
    func lookup(_ request: LookupRequest) async throws -> Data? {
        let outcome = try await lookup.get().lookup(request)
        if outcome.place == nil, !outcome.failures.isEmpty {
            throw ServerBackendError.failed(reason: outcome.errors.joined(separator: "; ")
                + "; no other source knew the place and nothing is cached")
        }
        guard outcome.place != nil else { return nil }
        return try PlacesJSON.lookup(outcome, reference: request.query.near)
    }

    /// SCORE a b: `places score a b --json` (the place algorithm). A and B are names or JSON records.
    static func score(_ pair: ServerRequests.NamePair) throws -> Data {
        func record(_ text: String, id: String) throws -> MatchRecord {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("{") else { return MatchRecord(id: id, name: text) }
            do { return try RecordFile.record(json: trimmed, defaultID: id) } catch {
                throw InputError("argument \(id.uppercased()): \(error.message)")
            }
        }
        let result = PlaceMatcher(thresholds: MatchThresholds()).compare(try record(pair.first, id: "a"), try record(pair.second, id: "b"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(result)
    }

    func addSpot(_ request: ServerRequests.NewSpot) async throws -> Data? {
        var spot = Spot(name: request.name, coordinate: request.coordinate, createdAt: Date())
        request.attributes.apply(to: &spot)
        do {
            return try PlacesJSON.spot(try await spots.get().add(spot))
        } catch let duplicate as DuplicateSpot {
            throw InputError("\(duplicate); SPOT.ADD saves only new places")
        }
    }

    /// An unknown id is a miss.
    func showSpot(_ reference: String) async throws -> Data? {
        let service = try spots.get()
        do { return try PlacesJSON.spot(try await service.store.resolve(reference)) } catch is UnknownSpot {
            return nil
        }
    }

    func logVisit(_ request: ServerRequests.VisitLog) async throws -> Data? {
        let visit: Visit, spot: Spot?
        do {
            (visit, spot) = try await spots.get().log(spot: request.spot, at: request.point, note: request.note, time: request.time)
        } catch let unknown as UnknownSpot {
            throw InputError("unknown spot '\(unknown.reference.prefix(40))': SPOT.LIST shows the saved ids")
        }
        return try PlacesJSON.encode(VisitJSON(visit, spotName: spot?.name))
    }

    func visits(_ request: ServerRequests.VisitDays) async throws -> Data? {
        let service = try spots.get()
        let visits = try await service.visits(day: request.day, since: request.since)
        return try PlacesJSON.visitDays(visits, spotNames: try await service.spotNames(for: visits))
    }
}
