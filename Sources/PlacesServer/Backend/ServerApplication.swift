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

    /// Runs a command's call into the core and puts the core's typed errors in the server's terms, by
    /// type and never by message text: a miss (``NotFound``) is a null reply, as Redis clients expect of a
    /// lookup by key; a budget denial, a provider failure and a storage failure are ``ServerBackendError``s
    /// the executor renders (`-ERR budget …`, `-ERR upstream …`, `-ERR storage unavailable: …`). Anything
    /// else passes through (an ``InputError`` is already one line for the client).
    func answering<Answer>(_ call: () async throws -> Answer?) async throws -> Answer? {
        do {
            return try await call()
        } catch {
            try throwInServerTerms(error)
            return nil
        }
    }

    /// ``answering(_:)`` for a call answered on the calling thread (``BackendCall/Work/now(_:)``).
    func answeringNow<Answer>(_ call: () throws -> Answer?) throws -> Answer? {
        do {
            return try call()
        } catch {
            try throwInServerTerms(error)
            return nil
        }
    }

    /// Returns for a miss (``NotFound``); throws anything else in the server's terms (see ``answering(_:)``).
    private func throwInServerTerms(_ error: any Error) throws {
        do {
            throw error
        } catch is NotFound {
            return
        } catch let unknown as UnknownSpot {
            throw InputError("unknown spot '\(unknown.reference.prefix(40))': SPOT.LIST shows the saved ids")
        } catch let unknown as UnknownVisit {
            throw InputError("unknown visit '\(unknown.reference.prefix(40))': SPOT.VISITS shows the logged ids")
        } catch let duplicate as DuplicateSpot {
            throw InputError("\(duplicate); SPOT.ADD saves only new places")
        } catch let denied as BudgetDenied {
            throw ServerBackendError.budgetDenied(reason: "denied: \(denied.provider) not asked: \(denied.denial)")
        } catch let failure as MeteredCallFailure {
            throw ServerBackendError.upstream(reason: Self.upstreamReason(failure.underlying, provider: failure.provider))
        } catch let failure as ProviderError {
            throw ServerBackendError.upstream(reason: failure.description)
        } catch let error where storageReason(error) != nil {
            throw ServerBackendError.storageUnavailable(reason: storageReason(error) ?? "")
        }
    }

    private static func upstreamReason(_ error: any Error, provider: String) -> String {
        (error as? ProviderError)?.description ?? "\(provider) failed"
    }

    /// A storage failure's one line, naming the state directory when the error itself names no file.
    private func storageReason(_ error: any Error) -> String? {
        let directory = ((try? places.get()) ?? (try? lookup.get()))?.environment.dataDirectory
            ?? FileManager.default.temporaryDirectory
        return StorageError.unavailableReason(error, directory: directory)
    }

    /// A local id is read on the calling thread (``PlacesApplication/localDetails(_:)``); a provider's by a task.
    func details(_ query: DetailsQuery) -> BackendCall.Work {
        guard PlacesApplication.isLocal(query.id) else {
            return .later {
                BackendAnswer(data: try await answering {
                    try PlacesJSON.place(try await places.get().details(query.id, fields: query.fields))
                })
            }
        }
        return .now { BackendAnswer(data: try answeringNow { try PlacesJSON.place(try places.get().localDetails(query.id)) }) }
    }

    /// The local index, on the calling thread (``PlacesApplication/localSearch(_:open:)``).
    func search(_ request: ServerRequests.Filtered<SearchQuery>) -> BackendCall.Work {
        .now {
            BackendAnswer(data: try answeringNow {
                let outcome = try places.get().localSearch(request.query, open: request.open)
                return try PlacesJSON.places(outcome.places, reference: outcome.reference)
            })
        }
    }

    func reverse(_ query: ReverseQuery) async throws -> Data? {
        try PlacesJSON.reverse(try await places.get().reverse(query.coordinate))
    }

    /// A provider failed, no other source knew the place and nothing was cached: an error, not a miss,
    /// or a client could not tell an outage from "no such place".
    /// A cache hit's reply comes with the hit's lease, under which the server repeats it (``Memoisation/whileLeased``).
    func lookup(_ request: LookupRequest) async throws -> BackendAnswer {
        let (outcome, lease) = try await lookup.get().leasedLookup(request)
        if outcome.place == nil, !outcome.failures.isEmpty {
            throw ServerBackendError.upstream(reason: outcome.errors.joined(separator: "; ")
                + "; no other source knew the place and nothing is cached")
        }
        guard outcome.place != nil else { return BackendAnswer(data: nil, lease: lease) }
        return BackendAnswer(data: try PlacesJSON.lookup(outcome, reference: request.query.near), lease: lease)
    }

    func addSpot(_ request: ServerRequests.NewSpot) async throws -> Data? {
        var spot = Spot(name: request.name, coordinate: request.coordinate, createdAt: Date())
        request.attributes.apply(to: &spot)
        return try PlacesJSON.spot(try await spots.get().add(spot))
    }

    /// An unknown id is a miss.
    func showSpot(_ reference: String) async throws -> Data? {
        let service = try spots.get()
        do { return try PlacesJSON.spot(try await service.spot(reference)) } catch is UnknownSpot {
            return nil
        }
    }

    func logVisit(_ request: ServerRequests.VisitLog) async throws -> Data? {
        let (visit, spot) = try await spots.get().log(spot: request.spot, at: request.point, note: request.note, time: request.time,
                                                      app: try? places.get())
        return try PlacesJSON.encode(VisitJSON(visit, spotName: spot?.name))
    }

    func editVisit(_ reference: String, _ change: SpotsService.VisitChange) async throws -> Data? {
        let service = try spots.get()
        return try await PlacesJSON.visit(try await service.editVisit(reference, change), spots: service)
    }

    func removeVisit(_ reference: String) async throws -> Data? {
        let service = try spots.get()
        return try await PlacesJSON.visit(try await service.removeVisit(reference), spots: service)
    }

    func visits(_ request: ServerRequests.VisitDays) async throws -> Data? {
        let service = try spots.get()
        let visits = try await service.visits(day: request.day, since: request.since)
        return try PlacesJSON.visitDays(visits, spotNames: try await service.spotNames(for: visits))
    }
}
