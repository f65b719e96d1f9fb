import Foundation
import PlacesCore

/// Shares one in-flight call between concurrent identical questions to a provider (the server's clients
/// asking the same SEARCH at once), so they make, and pay for, one upstream call.
///
/// `match` passes through: the lookup pipeline already shares whole identical lookups.
public final class SingleFlightProvider: ProviderDecorator {
    public let wrapped: any PlaceProvider
    private let places = SingleFlight<[Place]>()
    private let place = SingleFlight<Place?>()
    private let reverses = SingleFlight<ReverseGeocode?>()
    private let suggestions = SingleFlight<[Suggestion]>()
    private let probes = SingleFlight<[String]>()

    public init(_ provider: any PlaceProvider) {
        wrapped = provider
    }

    public func search(_ query: SearchQuery) async throws -> [Place] {
        let wrapped = wrapped
        return try await places.run(query.canonicalForm) { try await wrapped.search(query) }.0
    }

    public func nearby(_ query: NearbyQuery) async throws -> [Place] {
        let wrapped = wrapped
        return try await places.run(query.canonicalForm) { try await wrapped.nearby(query) }.0
    }

    public func details(_ query: DetailsQuery) async throws -> Place? {
        let wrapped = wrapped
        return try await place.run(query.canonicalForm) { try await wrapped.details(query) }.0
    }

    public func reverse(_ query: ReverseQuery) async throws -> ReverseGeocode? {
        let wrapped = wrapped
        return try await reverses.run(query.canonicalForm) { try await wrapped.reverse(query) }.0
    }

    public func suggest(_ query: SuggestQuery) async throws -> [Suggestion] {
        let wrapped = wrapped
        return try await suggestions.run(query.canonicalForm) { try await wrapped.suggest(query) }.0
    }

    /// Callers now waiting on another caller's identical call, whatever the operation (for tests).
    func waitingCallers() async -> Int {
        await places.followers + place.followers + reverses.followers + suggestions.followers + probes.followers
    }

    public func probe(_ query: ProbeQuery) async throws -> [String] {
        let wrapped = wrapped
        return try await probes.run(query.canonicalForm) { try await wrapped.probe(query) }.0
    }

    public func match(_ query: MatchQuery) async throws -> [Place] {
        try await wrapped.match(query)
    }
}
