import Foundation
import LocalProvider
import PlaceIndex
import PlacesConfig
import PlacesCore

/// The application façade: one object that the CLI and the server both ask, so a command and its
/// server twin cannot drift apart.
///
/// It owns the local index and builds it from the bundled data on first use, which is what lets a
/// fresh machine answer its first question with no keys and no network.
public final class PlacesService: Sendable {
    public let environment: PlacesEnvironment
    public let index: PlaceIndexStore
    public let local: LocalProvider

    init(environment: PlacesEnvironment, index: PlaceIndexStore) {
        self.environment = environment
        self.index = index
        self.local = LocalProvider(index: index)
    }

    /// Opens the state under `environment`, building the local index from the embedded data when it is
    /// empty, and repairing it when a build was cut short or the file is damaged (see ``LocalIndexSetup``).
    /// - Parameter notice: receives one line before and one after a first-run build or a repair (the CLI
    ///   prints them on stderr).
    public static func open(_ environment: PlacesEnvironment,
                            notice: @Sendable (String) -> Void = { _ in }) throws -> PlacesService {
        // Every command that opens places reads config.toml first, so a broken or misspelt file is reported
        // at once rather than when some later command happens to need the setting.
        _ = try PipelineSettings.load(from: environment.configFile)
        try environment.createDirectories()
        return PlacesService(environment: environment, index: try LocalIndexSetup.open(environment, notice: notice))
    }

    // MARK: Questions answered by the local index (or one named provider).

    /// Searches the local index, or asks one named provider directly (`places search --provider google`).
    public func search(_ query: SearchQuery, provider name: String? = nil) async throws -> [Place] {
        guard let name, name != local.name else { return try withTimeZones(await local.search(query)) }
        let configuration = try PlacesConfiguration.load(environment)
        let provider = try ProviderFactory.provider(named: name, configuration: configuration, environment: environment)
        return try withTimeZones(await provider.search(query))
    }

    /// A local search with what to tell the user besides the places: "did you mean …" when nothing was
    /// found but a word looks like a typo, and a coverage line when `--near` lies outside every imported
    /// map extract or nothing was found at all.
    public func searchLocally(_ query: SearchQuery) throws -> LocalSearchOutcome {
        let result = try index.searchExplained(text: query.text, near: query.near, radius: query.radius,
                                               category: query.category, limit: query.limit)
        var notes: [String] = []
        if let correction = result.didYouMean { notes.append("did you mean \"\(correction)\"?") }
        let sources = try index.sources()
        let extracts = sources.filter { $0.kind == ImportSummary.Kind.osmPBF.rawValue }
        if let near = query.near, !extracts.contains(where: { $0.bounds?.contains(near) == true }) {
            let covered = extracts.compactMap { source in source.bounds.map { "\(source.name) covers \($0)" } }
            notes.append("--near \(near) is outside the imported map data"
                + (covered.isEmpty ? "" : " (\(covered.joined(separator: "; ")))")
                + ": only GeoNames cities are known there; add an OpenStreetMap extract of the area with "
                + "`places import REGION.osm.pbf` (e.g. from download.geofabrik.de)")
        } else if result.places.isEmpty, result.didYouMean == nil {
            notes.append("nothing in the local index matches \"\(query.text)\" (\(sources.count) imported file(s), "
                + "see `places index`); `places import FILE` adds an .osm.pbf extract or a GeoNames dump")
        }
        return LocalSearchOutcome(places: try withTimeZones(result.places), notes: notes)
    }

    /// What the local index holds: each imported file, newest first.
    public func indexedSources() throws -> [IndexedSource] {
        try index.sources()
    }

    public func nearby(_ query: NearbyQuery) async throws -> [Place] {
        try withTimeZones(await local.nearby(query))
    }

    /// The place with this id, or an `InputError` that says the id is unknown.
    public func details(_ id: PlaceID, fields: Set<PlaceField> = PlaceField.defaultSet) async throws -> Place {
        guard local.handles(id) else {
            throw InputError("no provider for id '\(id)': the local index answers osm: and geonames: ids")
        }
        guard let place = try await local.details(DetailsQuery(id: id, fields: fields)) else {
            throw InputError("unknown place id '\(id)': it is not in the local index (import the extract that holds it with `places import FILE`)")
        }
        return try withTimeZones([place])[0]
    }

    public func reverse(_ coordinate: Coordinate) async throws -> ReverseGeocode {
        guard let answer = try await local.reverse(ReverseQuery(coordinate: coordinate)) else {
            throw InputError("nothing is known near \(coordinate): import an extract or GeoNames dump that covers it")
        }
        return answer
    }

    public func suggest(_ query: SuggestQuery) async throws -> [Suggestion] {
        try await local.suggest(query)
    }

    /// Imports an `.osm.pbf` extract or a GeoNames dump into the local index, in one transaction.
    /// - Returns: the one-line summary printed at the end of `places import`.
    public func importFile(_ url: URL, progress: (@Sendable (_ bytesRead: Int64, _ totalBytes: Int64) -> Void)? = nil) throws -> String {
        var forward: (@Sendable (ImportProgress) -> Void)?
        if let progress { forward = { progress($0.bytesRead, $0.totalBytes) } }
        return try LocalImporter(index: index).importFile(url, progress: forward).line
    }

    /// Gives places without a zone of their own the IANA zone of their GeoNames city: what opening
    /// hours are evaluated in when a provider gave none. One index read serves the whole result set.
    private func withTimeZones(_ places: [Place]) throws -> [Place] {
        let missing = places.indices.filter { places[$0].timeZone == nil && places[$0].utcOffsetMinutes == nil }
        guard !missing.isEmpty else { return places }
        let cities = try index.cities(near: missing.map { places[$0].coordinate })
        var result = places
        for (i, city) in zip(missing, cities) { result[i].timeZone = city?.timeZone }
        return result
    }
}

/// A local search's places and the lines to print around them.
public struct LocalSearchOutcome: Sendable {
    public var places: [Place]
    public var notes: [String]
}

extension LocalProvider {
    /// Whether an id belongs to the local index (OSM objects and GeoNames cities).
    func handles(_ id: PlaceID) -> Bool { id.provider == "osm" || id.provider == "geonames" }
}

/// The data shipped inside the package: the Helsinki OSM extract and a worldwide GeoNames cities list.
enum EmbeddedData {
    static let files = ["helsinki.osm.pbf", "geonames-cities15000.txt.gz"]

    static func url(_ name: String) throws -> URL {
        let directory = Bundle.module.resourceURL?.appendingPathComponent("EmbeddedData", isDirectory: true)
        guard let url = directory?.appendingPathComponent(name), FileManager.default.fileExists(atPath: url.path) else {
            throw InputError("the bundled data file \(name) is missing from this build; reinstall places")
        }
        return url
    }
}
