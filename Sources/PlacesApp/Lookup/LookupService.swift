import BudgetLedger
import Foundation
import LookupCache
import PlacesConfig
import PlacesCore
import PlacesMatching
import PlacesPipeline

/// The lookup pipeline wired to this installation: the cache and ledger under `PlacesEnvironment`,
/// the `[pipeline]`/`[cache]`/`[budget]` settings, and the providers that are usable (the caller
/// passes the local provider plus every remote provider that has its key).
public final class LookupService: Sendable {
    public let pipeline: LookupPipeline
    public let cache: any LookupCacheStore
    public let ledger: any BudgetLedger
    public let settings: PipelineSettings

    public init(environment: PlacesEnvironment, settings: PipelineSettings, providers: [any PlaceProvider],
                clock: @escaping @Sendable () -> Date = { Date() }) throws {
        try environment.createDirectories()
        self.settings = settings
        cache = try Self.openCache(environment, settings, clock: clock)
        ledger = try Self.openLedger(environment, settings, clock: clock)
        // The configured chain decides which providers take part and breaks price ties.
        let chain = settings.chain.compactMap { name in providers.first { $0.name == name } }
        let thresholds = MatchThresholds(accept: settings.acceptThreshold, review: settings.reviewThreshold)
        pipeline = LookupPipeline(providers: chain, scorer: MatcherScorer(matcher: PlaceMatcher(thresholds: thresholds)),
                                  cache: cache, ledger: ledger, policy: Self.lookupPolicy(settings), clock: clock)
    }

    /// Reads the settings from the environment's config file (defaults when it does not exist).
    public static func settings(_ environment: PlacesEnvironment) throws -> PipelineSettings {
        try PipelineSettings.load(from: environment.configFile)
    }

    public static func openCache(_ environment: PlacesEnvironment, _ settings: PipelineSettings,
                                 clock: @escaping @Sendable () -> Date = { Date() }) throws -> any LookupCacheStore {
        try SQLiteLookupCacheStore(path: environment.cacheDatabase,
                                   configuration: LookupCacheConfiguration(maxBytes: settings.cache.maxBytes), clock: clock)
    }

    public static func openLedger(_ environment: PlacesEnvironment, _ settings: PipelineSettings,
                                  clock: @escaping @Sendable () -> Date = { Date() }) throws -> any BudgetLedger {
        try SQLiteBudgetLedger(path: environment.budgetDatabase, policy: budgetPolicy(settings), clock: clock)
    }

    public static func budgetPolicy(_ settings: PipelineSettings) -> BudgetPolicy {
        let budget = settings.budget
        func limits(_ l: BudgetSettings.Limits) -> BudgetLimits { BudgetLimits(perDay: l.perDay, perMonth: l.perMonth) }
        return BudgetPolicy(timeZone: budget.timeZone.flatMap(TimeZone.init(identifier:)) ?? .current,
                            overall: limits(budget.overall), providers: budget.providers.mapValues(limits),
                            freeCallsPerMonth: budget.freeCallsPerMonth)
    }

    public static func lookupPolicy(_ settings: PipelineSettings) -> LookupPolicy {
        var preference: [PlaceField: [String]] = [:]
        for (name, providers) in settings.fieldPreference {
            if let fields = try? PlaceField.parseList(name) { for field in fields { preference[field] = providers } }
        }
        return LookupPolicy(grid: CoordinateGrid(meters: settings.cache.gridMeters), answerTTL: settings.cache.answerTTL,
                            negativeTTL: settings.cache.negativeTTL,
                            merger: PlaceMerger(preference: preference, defaultPreference: settings.defaultPreference),
                            payWhenAmbiguous: settings.payWhenAmbiguous)
    }

    public func lookup(_ request: LookupRequest) async throws -> LookupOutcome {
        try await pipeline.lookup(request)
    }

    /// Reads a batch file with the columns of `places match` (id,name,address,city,phone,lat,lon,category,country).
    public static func batchRows(_ url: URL, fields: Set<PlaceField>) throws -> [BatchRow] {
        try RecordFile.read(url).records.map { record in
            BatchRow(id: record.id, query: MatchQuery(name: record.name, near: record.coordinate, address: record.address,
                                                      city: record.city, countryCode: record.countryCode,
                                                      phone: record.phone, category: record.category, fields: fields))
        }
    }
}
