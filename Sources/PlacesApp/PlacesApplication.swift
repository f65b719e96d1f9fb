import BudgetLedger
import Foundation
import LocalProvider
import Logging
import LookupCache
import PlaceIndex
import PlacesConfig
import PlacesCore
import PlacesMatching
import PlacesPipeline
import PostgresStorage
import ProviderHTTP
import SpotStore

/// The application: one object, opened once per process from a ``PlacesEnvironment``, that the CLI and the
/// server both ask, so a command and its server twin cannot drift apart and neither holds wiring of its own.
///
/// Opening it reads `config.toml` once (every command that opens places checks it, so a misspelt key is
/// reported at once) and creates the state directories once. Each store is opened on first use through the
/// ``StoreFactory`` and kept, so a command opens only what it uses; the network providers are built once,
/// already metered, cached and single-flighted (``ProviderDecorations``), so no use case can reach a paid
/// provider around the budget. The local index is built from the bundled data on first use, which is what
/// lets a fresh machine answer its first question with no keys and no network.
///
/// ```swift
/// let app = try PlacesApplication.open(.resolve()) { print($0) }
/// let places = try await app.search(SearchQuery(text: "maya bar", near: here)).places
/// let outcome = try await app.lookup(.asking(MatchQuery(name: "Maya Bar & Grill", near: here), for: [.phone]))
/// ```
public final class PlacesApplication: Sendable {
    public let environment: PlacesEnvironment
    /// `config.toml`'s `[providers.*]` sections.
    public let configuration: PlacesConfiguration
    /// `config.toml`'s `[pipeline]`, `[cache]` and `[budget]` sections.
    public let settings: PipelineSettings

    private let indexStore: OpenedOnce<PlaceIndexStore>
    private let cacheStore: OpenedOnce<any LookupCacheStore>
    private let ledgerStore: OpenedOnce<any BudgetLedger>
    private let spotStore: OpenedOnce<SpotsService>
    private let networkProviders: OpenedOnce<[ConfiguredProvider]>
    private let lookupPipeline: OpenedOnce<LookupPipeline>
    /// The request's time: what `OPEN NOW` and `--open-now` read each place's hours at.
    private let clock: @Sendable () -> Date

    /// The shared database's pool, when the state is shared (``SharedStorage``).
    let sharedDatabase: SharedDatabase?

    private init(environment: PlacesEnvironment, configuration: PlacesConfiguration, settings: PipelineSettings,
                 shared: SharedDatabase?, notice: @escaping @Sendable (String) -> Void, logger: Logger?,
                 transport: (any HTTPTransport)?, lifetime: ProcessLifetime, clock: @escaping @Sendable () -> Date) {
        self.environment = environment
        self.configuration = configuration
        self.settings = settings
        sharedDatabase = shared
        self.clock = clock
        let stores = StoreFactory(environment: environment, settings: settings, shared: shared, lifetime: lifetime, clock: clock)
        let indexStore = OpenedOnce { try stores.openIndex(notice: notice) }
        let cacheStore = OpenedOnce { try stores.openCache() }
        let ledgerStore = OpenedOnce { try stores.openLedger() }
        let networkProviders = OpenedOnce {
            let decorations = ProviderDecorations(ledger: try ledgerStore.get(), cache: try cacheStore.get(),
                                                  grid: CoordinateGrid(meters: settings.cache.gridMeters),
                                                  longestTTL: settings.cache.answerTTL, logger: logger, clock: clock)
            return ProviderFactory.makeAll(configuration: configuration, environment: environment,
                                           decorations: decorations, transport: transport)
        }
        self.indexStore = indexStore
        self.cacheStore = cacheStore
        self.ledgerStore = ledgerStore
        self.networkProviders = networkProviders
        spotStore = OpenedOnce { SpotsService(store: try stores.openSpots(), backupDirectory: environment.dataDirectory) }
        lookupPipeline = OpenedOnce {
            // The configured chain decides which providers take part and breaks price ties.
            let usable: [any PlaceProvider] = [LocalProvider(index: try indexStore.get())]
                + (try networkProviders.get()).compactMap(\.provider)
            let chain = settings.chain.compactMap { name in usable.first { $0.name == name } }
            let thresholds = MatchThresholds(accept: settings.acceptThreshold, review: settings.reviewThreshold)
            let cache = try cacheStore.get()
            let front = lifetime == .serving
                ? CacheHitFront<LookupOutcome>(refreshInterval: cache.configuration.touchInterval) : nil
            return LookupPipeline(providers: chain, scorer: MatcherScorer(matcher: PlaceMatcher(thresholds: thresholds)),
                                  cache: cache, ledger: try ledgerStore.get(),
                                  policy: Self.lookupPolicy(settings), hitFront: front, clock: clock)
        }
    }

    /// Opens the application under `environment`: reads and checks `config.toml`, creates the state
    /// directories. Stores are opened when first used.
    /// - Parameters:
    ///   - notice: receives one line before and one after a first-run build or a repair of the local index
    ///     (the CLI prints them on stderr).
    ///   - logger: where paid calls and budget denials are logged (the server's log).
    ///   - transport: replaces URLSession for every provider (tests, benchmarks).
    ///   - lifetime: ``ProcessLifetime/serving`` for a long-running process (`places serve`), which opens the stores
    ///     for parallel requests and remembers cache hits; the default is one command, then exit.
    public static func open(_ environment: PlacesEnvironment, notice: @escaping @Sendable (String) -> Void = { _ in },
                            logger: Logger? = nil, transport: (any HTTPTransport)? = nil, lifetime: ProcessLifetime = .oneCommand,
                            clock: @escaping @Sendable () -> Date = { Date() }) throws -> PlacesApplication {
        let configuration = try PlacesConfiguration.load(environment)
        let settings = try PipelineSettings(configuration: configuration)
        let shared = try SharedStorage.open(try SharedStorage.settings(configuration, environment))
        try environment.createDirectories()
        return PlacesApplication(environment: environment, configuration: configuration, settings: settings,
                                 shared: shared, notice: notice, logger: logger, transport: transport,
                                 lifetime: lifetime, clock: clock)
    }

    // MARK: Parts, opened on first use.

    var index: PlaceIndexStore { get throws { try indexStore.get() } }
    var local: LocalProvider { get throws { LocalProvider(index: try index) } }
    var cache: any LookupCacheStore { get throws { try cacheStore.get() } }
    var ledger: any BudgetLedger { get throws { try ledgerStore.get() } }
    var pipeline: LookupPipeline { get throws { try lookupPipeline.get() } }

    /// Opens (and on a fresh machine builds) the local index now rather than on first use: the server does,
    /// so its first client does not wait for a build, nor for the cities it keeps in memory.
    public func openLocalIndex() throws {
        try index.readIntoMemory()
    }

    /// Saved spots, with the rules that need the matcher (duplicates, backups, visits).
    public var spots: SpotsService { get throws { try spotStore.get() } }

    /// The usable network provider called `name` (metered and cached), or why there is none.
    func provider(named name: String) throws -> any PlaceProvider {
        try ProviderFactory.usable(named: name, among: try networkProviders.get())
    }

    /// Whether a use case asks the local index: no provider named, or `local`.
    private func isLocal(_ name: String?) -> Bool { name == nil || name?.lowercased() == "local" }

    // MARK: Questions answered by the local index (or one named provider).

    /// Searches the local index, or asks one named provider (`places search --provider google`), metered
    /// in the budget and cached within the provider's terms. The CLI's `search` and the server's SEARCH both
    /// ask here. A local search also says what to tell the user besides the places: "did you mean …" when
    /// nothing was found but a word looks like a typo, and a coverage line when `near` lies outside every
    /// imported map extract or nothing was found at all. With `open`, only the places open at its moment
    /// are kept (``OpenHoursFilter``), still at most `query.limit` of them.
    public func search(_ query: SearchQuery, provider name: String? = nil, open: OpenHoursFilter? = nil) async throws -> SearchOutcome {
        guard let name, !isLocal(name) else { return try localSearch(query, open: open) }
        let asked = try Self.fetched(query, open: open)
        let places = try withTimeZones(DuplicatePlaces.collapse(await provider(named: name).search(asked)))
        return SearchOutcome(places: try kept(places, query, open: open), notes: [], reference: query.near)
    }

    /// ``search(_:provider:open:)`` of the local index, on the calling thread: it reads only this machine's index,
    /// in a bounded time, which is why the server answers it on its event loop without starting a task.
    public func localSearch(_ query: SearchQuery, open: OpenHoursFilter? = nil) throws -> SearchOutcome {
        var outcome = try searchIndex(try Self.fetched(query, open: open))
        outcome.places = try kept(outcome.places, query, open: open)
        return outcome
    }

    /// The query as asked of a provider: its category checked, and with `open`, more places fetched than shown.
    private static func fetched(_ query: SearchQuery, open: OpenHoursFilter?) throws -> SearchQuery {
        try open?.validate()
        var asked = query
        asked.category = try PlaceCategory.checked(query.category)
        asked.limit = OpenHoursFilter.fetchLimit(query.limit, filter: open)
        return asked
    }

    /// With `open`, the places open at its moment, at most `query.limit` of them.
    private func kept(_ places: [Place], _ query: SearchQuery, open: OpenHoursFilter?) throws -> [Place] {
        guard let open else { return places }
        return try open.keep(places, limit: query.limit, now: clock())
    }

    private func searchIndex(_ query: SearchQuery) throws -> SearchOutcome {
        let index = try index
        let result = try index.searchExplained(text: query.text, near: query.near, radius: query.radius,
                                               category: query.category, limit: query.limit)
        var notes: [LocalSearchNote] = []
        if let correction = result.didYouMean { notes.append(.didYouMean(correction)) }
        if let around = result.around { notes.append(.searchedAround(name: around.name, at: around.coordinate)) }
        let sources = try index.sources()
        let extracts = sources.filter { $0.kind == ImportSummary.Kind.osmPBF.rawValue }
        // Where the places were looked for: the point given, or the place "sushi in tokyo" named.
        let searchedPoint = result.around?.coordinate ?? query.near
        if let near = searchedPoint, !extracts.contains(where: { $0.bounds?.contains(near) == true }) {
            notes.append(.outsideMapData(near: near,
                                         covered: extracts.compactMap { source in source.bounds.map { "\(source.name) covers \($0)" } }))
        } else if result.places.isEmpty, result.didYouMean == nil {
            notes.append(.nothingMatches(text: query.text, importedFiles: sources.count))
        }
        return SearchOutcome(places: try withTimeZones(DuplicatePlaces.collapse(result.places)), notes: notes,
                             reference: searchedPoint)
    }

    /// What the local index holds: each imported file, newest first.
    public func indexedSources() throws -> [IndexedSource] {
        try index.sources()
    }

    /// Places around a point from the local index, or from one named provider (metered and cached). With
    /// `open`, only the places open at its moment are kept, still at most `query.limit` of them.
    public func nearby(_ query: NearbyQuery, provider name: String? = nil, open: OpenHoursFilter? = nil) async throws -> [Place] {
        try open?.validate()
        var asked = query
        asked.category = try PlaceCategory.checked(query.category)
        asked.limit = OpenHoursFilter.fetchLimit(query.limit, filter: open)
        let places: [Place]
        if let name, !isLocal(name) {
            places = try withTimeZones(DuplicatePlaces.collapse(await provider(named: name).nearby(asked)))
        } else {
            places = try withTimeZones(DuplicatePlaces.collapse(await local.nearby(asked)))
        }
        guard let open else { return places }
        return try open.keep(places, limit: query.limit, now: clock())
    }

    /// The place with this id: `osm:` and `geonames:` ids from the local index, a usable network provider's
    /// id from that provider (metered and cached).
    /// - Throws: ``NotFound`` when nobody knows the id.
    public func details(_ id: PlaceID, fields: Set<PlaceField> = PlaceField.defaultSet) async throws -> Place {
        let query = DetailsQuery(id: id, fields: fields)
        if Self.isLocal(id) { return try localDetails(id) }
        // An id of a provider that is not usable here (unknown, disabled, no key) is a miss, as it always was.
        guard let provider = try networkProviders.get().first(where: { $0.name == id.provider })?.provider else {
            throw NotFound(.noProviderFor(id))
        }
        guard let place = try await provider.details(query) else {
            throw NotFound(.placeID(id))
        }
        return try withTimeZones([place])[0]
    }

    /// Whether ``details(_:fields:)`` reads `id` from the local index (OSM objects and GeoNames cities).
    public static func isLocal(_ id: PlaceID) -> Bool { LocalProvider.handles(id) }

    /// ``details(_:fields:)`` of an id of the local index (``isLocal(_:)``), on the calling thread: one row of this
    /// machine's index and its city's time zone, which is why the server answers it on its event loop.
    /// - Throws: ``NotFound`` when the index does not hold the id.
    public func localDetails(_ id: PlaceID) throws -> Place {
        guard let place = try index.place(id: id) else { throw NotFound(.placeID(id)) }
        return try withTimeZones([place])[0]
    }

    /// The nearest address or place, the city, country and time zone at a point.
    /// - Throws: ``NotFound`` when the index knows nothing near it.
    public func reverse(_ coordinate: Coordinate) async throws -> ReverseGeocode {
        guard let answer = try await local.reverse(ReverseQuery(coordinate: coordinate)) else {
            throw NotFound(.near(coordinate))
        }
        return answer
    }

    /// Search-as-you-type from the local index, or from one named provider (metered and cached).
    public func suggest(_ query: SuggestQuery, provider name: String? = nil) async throws -> [Suggestion] {
        guard let name, !isLocal(name) else { return DuplicatePlaces.collapse(try await local.suggest(query)) }
        return DuplicatePlaces.collapse(try await provider(named: name).suggest(query))
    }

    /// Imports an `.osm.pbf` extract or a GeoNames dump into the local index, in one transaction.
    /// - Returns: the one-line summary printed at the end of `places import`.
    public func importFile(_ url: URL, progress: (@Sendable (_ bytesRead: Int64, _ totalBytes: Int64) -> Void)? = nil) throws -> String {
        var forward: (@Sendable (ImportProgress) -> Void)?
        if let progress { forward = { progress($0.bytesRead, $0.totalBytes) } }
        return try LocalImporter(index: try index).importFile(url, progress: forward).line
    }

    /// Gives places without a zone of their own the IANA zone of their GeoNames city: what opening
    /// hours are evaluated in when a provider gave none. One index read serves the whole result set.
    func withTimeZones(_ places: [Place]) throws -> [Place] {
        let missing = places.indices.filter { places[$0].timeZone == nil && places[$0].utcOffsetMinutes == nil }
        guard !missing.isEmpty else { return places }
        let zones = try index.timeZones(near: missing.map { places[$0].coordinate })
        var result = places
        for (i, zone) in zip(missing, zones) { result[i].timeZone = zone }
        return result
    }

    // MARK: Lookups: cache, local index, paid providers under the budget.

    /// Looks one place up through the pipeline. The answer carries its time zone, so `open_now` is known.
    public func lookup(_ request: LookupRequest) async throws -> LookupOutcome {
        try await leasedLookup(request).outcome
    }

    /// ``lookup(_:)`` with the lease of a cache hit the server's front answered or remembered
    /// (``LookupPipeline/leasedLookup(_:)``): `places serve` repeats the reply it builds for as long as the lease holds.
    public func leasedLookup(_ request: LookupRequest) async throws -> (outcome: LookupOutcome, lease: CacheHitLease?) {
        let (outcome, lease) = try await pipeline.leasedLookup(request)
        return (try withTimeZone(outcome), lease)
    }

    /// The providers `request` would ask, cheapest first, with their quotes (`--explain`'s chain line).
    public func lookupChain(for request: LookupRequest) throws -> [(provider: String, quote: PriceQuote)] {
        try pipeline.chain(for: request).map { ($0.provider.name, $0.quote) }
    }

    /// Providers in the configured chain that cannot be used, each with why ("no API key: set YELP_API_KEY").
    public func unusableProviders() throws -> [(provider: String, reason: String)] {
        try networkProviders.get().filter { settings.chain.contains($0.name) }
            .compactMap { configured in configured.reason.map { (configured.name, $0) } }
            .sorted { $0.provider < $1.provider }
    }

    /// Looks up every row of a batch file (the columns of `places match`), each asked as one `places lookup`
    /// with the batch's options (``BatchLookupRequest/request(for:)``), at most `concurrency` in flight.
    public func lookupBatch(_ request: BatchLookupRequest,
                            onResult: @Sendable (_ result: BatchRowResult, _ done: Int, _ total: Int) async throws -> Void)
        async throws -> BatchSummary {
        let rows = try RecordFile.read(request.file).records.map { record in
            BatchRow(id: record.id, query: MatchQuery(name: record.name, near: record.coordinate, address: record.address,
                                                      city: record.city, countryCode: record.countryCode,
                                                      phone: record.phone, category: record.category))
        }
        return try await pipeline.runBatch(rows, concurrency: request.concurrency ?? settings.batchConcurrency,
                                           request: request.request(for:)) { result, done in
            var result = result
            if let outcome = result.outcome { result.outcome = try withTimeZone(outcome) }
            try await onResult(result, done, rows.count)
        }
    }

    private func withTimeZone(_ outcome: LookupOutcome) throws -> LookupOutcome {
        guard let place = outcome.place else { return outcome }
        var result = outcome
        result.place = try withTimeZones([place])[0]
        return result
    }

    static func lookupPolicy(_ settings: PipelineSettings) -> LookupPolicy {
        var preference: [PlaceField: [String]] = [:]
        for (name, providers) in settings.fieldPreference {
            if let fields = try? PlaceField.parseList(name) { for field in fields { preference[field] = providers } }
        }
        return LookupPolicy(grid: CoordinateGrid(meters: settings.cache.gridMeters), answerTTL: settings.cache.answerTTL,
                            negativeTTL: settings.cache.negativeTTL,
                            merger: PlaceMerger(preference: preference, defaultPreference: settings.defaultPreference),
                            payWhenAmbiguous: settings.payWhenAmbiguous)
    }

    // MARK: Budget and cache.

    /// Spend, limits and what is left, per provider, today and this month.
    public func budgetReport() async throws -> BudgetReport {
        try await ledger.report()
    }

    /// Sets a provider's (or, with `nil`, the overall) limits; `.some(nil)` removes one, `.none` leaves it.
    public func setBudgetLimits(provider: String?, perDay: MicroDollars??, perMonth: MicroDollars??) async throws {
        try await ledger.setLimits(provider: provider, perDay: perDay, perMonth: perMonth)
    }

    public func cacheStats() async throws -> CacheStats {
        try await cache.stats()
    }

    /// Where the lookup cache lives (a file path for SQLite), for `places cache stats`.
    public func cacheLocation() throws -> String {
        try cache.location
    }

    /// Drops cached entries (all, one provider's, or only expired ones) and says how many.
    public func purgeCache(provider: String? = nil, expiredOnly: Bool = false) async throws -> Int {
        try await cache.purge(provider: provider, expiredOnly: expiredOnly)
    }

    public func vacuumCache() async throws {
        try await cache.vacuum()
    }
}

/// The name the server and older callers know the application by.
public typealias PlacesService = PlacesApplication

extension LookupRequest {
    /// The one way every front end asks a lookup (CLI `lookup` and `--batch`, server `LOOKUP`, spots): the
    /// usual fields are fetched and shown when known, but only an id, a name, a point and `extra` are worth
    /// paying for. Asked the same way, the same question has the same cache key wherever it comes from.
    public static func asking(_ query: MatchQuery, for extra: Set<PlaceField> = [], maxCost: MicroDollars? = nil,
                              offline: Bool = false, payWhenAmbiguous: Bool = false) -> LookupRequest {
        var query = query
        query.fields = PlaceField.defaultSet.union(extra)
        return LookupRequest(query: query, maxCost: maxCost, offline: offline,
                             requiredFields: Set<PlaceField>([.id, .name, .coordinate]).union(extra),
                             payWhenAmbiguous: payWhenAmbiguous)
    }
}

/// `places lookup --batch FILE`: every row of the file is asked as `places lookup` asks one question with the
/// same options, so a row and the same question typed alone share their cache entry and their policy.
public struct BatchLookupRequest: Sendable, Hashable {
    /// CSV with a header or JSON lines, in the columns of `places match`.
    public var file: URL
    /// `--fields`: worth paying for in every row, on top of an id, a name and a point.
    public var extraFields: Set<PlaceField>
    /// `--max-cost`: the most one row may spend, on top of the ledger's limits.
    public var maxCostPerRow: MicroDollars?
    /// `--offline`: the cache and the local index only.
    public var offline: Bool
    /// `--pay-when-ambiguous`: ask paid providers for a row even when several nearby places fit it equally.
    public var payWhenAmbiguous: Bool
    /// Lookups in flight at once; `nil`: `[pipeline] batch_concurrency`.
    public var concurrency: Int?

    public init(file: URL, extraFields: Set<PlaceField> = [], maxCostPerRow: MicroDollars? = nil, offline: Bool = false,
                payWhenAmbiguous: Bool = false, concurrency: Int? = nil) {
        self.file = file
        self.extraFields = extraFields
        self.maxCostPerRow = maxCostPerRow
        self.offline = offline
        self.payWhenAmbiguous = payWhenAmbiguous
        self.concurrency = concurrency
    }

    /// One row's request: its question asked as a single lookup with the batch's options.
    public func request(for query: MatchQuery) -> LookupRequest {
        .asking(query, for: extraFields, maxCost: maxCostPerRow, offline: offline, payWhenAmbiguous: payWhenAmbiguous)
    }
}

/// A search's places and what to tell the user about them (a local search's notes; none from a provider).
public struct SearchOutcome: Sendable {
    public var places: [Place]
    public var notes: [LocalSearchNote]
    /// Where the places' distances are measured from: the query's `near`, or the place "pharmacy near kiasma"
    /// was searched around (``LocalSearchNote/searchedAround(name:at:)``).
    public var reference: Coordinate?
}

/// Something a local search says besides its places; each front end words it.
public enum LocalSearchNote: Sendable, Hashable {
    /// A word looked like a typo of this.
    case didYouMean(String)
    /// "pharmacy near kiasma": the places were searched around this place, the one the words after "near" named.
    case searchedAround(name: String, at: Coordinate)
    /// The point searched around (`--near`, or the place "sushi in tokyo" named) lies outside every imported map
    /// extract (`covered` says what each one covers).
    case outsideMapData(near: Coordinate, covered: [String])
    /// Nothing matched, with this many files imported.
    case nothingMatches(text: String, importedFiles: Int)
}

extension LocalProvider {
    /// Whether an id belongs to the local index (OSM objects and GeoNames cities).
    static func handles(_ id: PlaceID) -> Bool { id.provider == "osm" || id.provider == "geonames" }
}

/// How long the process that opens the application lives: what its stores are opened for.
public enum ProcessLifetime: Sendable {
    /// One command, then exit (the CLI): each SQLite store through one connection, which opens without writing.
    case oneCommand
    /// Many requests over time (`places serve`): each SQLite store through a pool whose reads run in parallel,
    /// repeated LOOKUP cache hits answered from memory while the cache's change stamp stays the same
    /// (``CacheHitFront``), and the index's cities and imported files held in memory (`IndexInMemory`).
    case serving
}

/// The data shipped inside the package: the Helsinki OSM extract and a worldwide GeoNames cities list.
enum EmbeddedData {
    static let files = ["helsinki.osm.pbf", "geonames-cities15000.txt.gz"]

    /// The bundled files' folder. SwiftPM puts a target's resources in `places_PlacesApp.resources` beside the
    /// executable, and the README's install keeps them there, so that is looked for first; then the package's own
    /// copy, where a binary built on this machine was built from. Not `Bundle.module`: it stops the program
    /// (`fatalError`) when neither place exists, as for a binary copied alone to another machine, where `url(_:)`
    /// says what is missing instead; and it creates `Bundle.main`, which on Linux reads every entry of the
    /// executable's directory (2.6 ms of a `places search` whose binary sat in a 1,400-entry directory).
    private static let directory: URL? = {
        var candidates: [URL] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent()
                .appendingPathComponent("places_PlacesApp.resources/EmbeddedData", isDirectory: true))
        }
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Resources/EmbeddedData", isDirectory: true))
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
    }()

    static func url(_ name: String) throws -> URL {
        guard let url = directory?.appendingPathComponent(name), FileManager.default.fileExists(atPath: url.path) else {
            throw InputError("the bundled data file \(name) is missing from this build; reinstall places")
        }
        return url
    }
}
