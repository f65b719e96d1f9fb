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

    /// Opens the state under `environment`, building the local index from the embedded data when it is empty.
    /// - Parameter notice: receives one line before and one after a first-run build (the CLI prints them on stderr).
    public static func open(_ environment: PlacesEnvironment,
                            notice: @Sendable (String) -> Void = { _ in }) throws -> PlacesService {
        // Every command that opens places reads config.toml first, so a broken or misspelt file is reported
        // at once rather than when some later command happens to need the setting.
        _ = try PipelineSettings.load(from: environment.configFile)
        try environment.createDirectories()
        let index = try PlaceIndexStore(path: environment.indexDatabase)
        let service = PlacesService(environment: environment, index: index)
        if try index.isEmpty {
            notice("places: first run: building the local index in \(environment.indexDatabase.path) from the bundled data …")
            for summary in try EmbeddedData.install(into: index) {
                notice("places: \(summary.line)")
            }
        }
        return service
    }

    // MARK: Questions answered by the local index (or one named provider).

    /// Searches the local index, or asks one named provider directly (`places search --provider google`).
    public func search(_ query: SearchQuery, provider name: String? = nil) async throws -> [Place] {
        guard let name, name != local.name else { return try withTimeZones(await local.search(query)) }
        let configuration = try PlacesConfiguration.load(environment)
        let provider = try ProviderFactory.provider(named: name, configuration: configuration, environment: environment)
        return try withTimeZones(await provider.search(query))
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

    static func install(into index: PlaceIndexStore) throws -> [ImportSummary] {
        let importer = LocalImporter(index: index)
        return try files.map { try importer.importFile(url($0)) }
    }
}
