import Foundation
import PlacesCore

/// The `[pipeline]`, `[cache]` and `[budget]` sections of `config.toml`: everything the lookup
/// pipeline decides by policy. Plain values; `PlacesApp` turns them into the pipeline's types, so
/// this module stays free of SQLite and of the pipeline.
public struct PipelineSettings: Sendable, Hashable {
    /// The providers to try, in configured order. The pipeline still asks free ones before paid ones.
    public var chain: [String] = ["local", "nominatim", "foursquare", "yelp", "google"]
    /// Matcher score at or above which a candidate is accepted as the place asked for.
    public var acceptThreshold: Double = 0.8
    /// Score at or above which a candidate is shown as "review" rather than dropped.
    public var reviewThreshold: Double = 0.6
    /// Which provider wins a field when several describe the same place (field name → providers, best first).
    public var fieldPreference: [String: [String]] = [
        "hours": ["google", "yelp", "foursquare", "nominatim", "local"],
        "phone": ["google", "yelp", "foursquare", "nominatim", "local"],
        "coordinate": ["local", "nominatim", "google", "yelp", "foursquare"],
    ]
    /// The order used for fields without their own preference.
    public var defaultPreference: [String] = ["google", "yelp", "foursquare", "nominatim", "local"]
    /// Lookups in flight at once in `--batch`.
    public var batchConcurrency: Int = 8
    /// Ask paid providers even for an ambiguous question (several nearby places fit the name equally), which
    /// they answer with a guess; by default it is answered `review` with the places that fit, unpaid.
    public var payWhenAmbiguous = false
    public var cache = CacheSettings()
    public var budget = BudgetSettings()

    public init() {}
}

public struct CacheSettings: Sendable, Hashable {
    /// Coordinates in cache keys are snapped to a grid of this many metres.
    public var gridMeters: Double = 100
    /// The longest an answer is kept; providers' terms may shorten it (Yelp: 24 h).
    public var answerTTL: TimeInterval = 7 * 86_400
    /// How long "no such place" is remembered.
    public var negativeTTL: TimeInterval = 6 * 3_600
    public var maxBytes: Int = 64 << 20

    public init() {}
}

public struct BudgetSettings: Sendable, Hashable {
    public struct Limits: Sendable, Hashable {
        public var perDay: MicroDollars?
        public var perMonth: MicroDollars?
        public init(perDay: MicroDollars? = nil, perMonth: MicroDollars? = nil) {
            self.perDay = perDay
            self.perMonth = perMonth
        }
    }

    /// IANA zone whose midnight starts a budget day; `nil` uses the system's.
    public var timeZone: String?
    public var overall = Limits(perDay: MicroDollars(1_000_000), perMonth: MicroDollars(10_000_000))
    public var providers: [String: Limits] = [:]
    /// Calls per calendar month each SKU gives for free (Google's monthly allowances, late 2025).
    public var freeCallsPerMonth: [String: Int] = [
        "google.details.essentials": 10_000, "google.details.pro": 5_000, "google.details.enterprise": 1_000,
        "google.search.pro": 5_000, "google.search.enterprise": 1_000,
        "google.nearby.pro": 5_000, "google.nearby.enterprise": 1_000, "google.autocomplete": 10_000,
    ]

    public init() {}
}

extension PipelineSettings {
    /// Reads the three sections from the parsed config file; absent keys keep their defaults.
    public init(configuration: PlacesConfiguration) throws(InputError) {
        try self.init(root: configuration.root)
    }

    static let pipelineKeys = ["chain", "accept_threshold", "review_threshold", "batch_concurrency", "field_preference",
                               "pay_when_ambiguous"]
    static let cacheKeys = ["grid_meters", "answer_ttl", "negative_ttl", "max_size_mb"]
    static let budgetKeys = ["time_zone", "daily_usd", "monthly_usd", "providers", "free_calls_per_month"]
    static let limitKeys = ["daily_usd", "monthly_usd"]
    /// Ten years: no cache term or duration in this file needs more, and every figure stays exact in a `Date`.
    static let longestDuration: TimeInterval = 10 * 365 * 86_400

    public init(root: [String: ConfigValue]) throws(InputError) {
        self.init()
        // Names a chain or preference may use: the local index and every provider the file can configure.
        let providerNames = ["local"] + PlacesConfiguration.networkProviders
            + (root["providers"]?.table?.keys.sorted() ?? []).filter { !PlacesConfiguration.networkProviders.contains($0) }
        if let section = try Self.section(root, "pipeline", known: Self.pipelineKeys) {
            if let chain = try Self.providers(section, "chain", in: "pipeline", known: providerNames) {
                guard !chain.isEmpty else { throw InputError("config [pipeline] chain must name at least one provider, e.g. [\"local\"]") }
                self.chain = chain
            }
            if let value = try Self.number(section, "accept_threshold", in: "pipeline", range: 0.01...1, what: "a matcher score") {
                acceptThreshold = value
            }
            if let value = try Self.number(section, "review_threshold", in: "pipeline", range: 0.01...1, what: "a matcher score") {
                reviewThreshold = value
            }
            guard reviewThreshold <= acceptThreshold else {
                throw InputError("config [pipeline] review_threshold \(reviewThreshold.compactText) must not be above accept_threshold \(acceptThreshold.compactText)")
            }
            if let value = try Self.number(section, "batch_concurrency", in: "pipeline", range: 1...256, what: "a number of lookups in flight") {
                guard let whole = Int(exactly: value) else { throw InputError("config [pipeline] batch_concurrency must be a whole number from 1 to 256") }
                batchConcurrency = whole
            }
            if let value = section["pay_when_ambiguous"] {
                guard let flag = value.bool else { throw InputError("config [pipeline] pay_when_ambiguous must be true or false") }
                payWhenAmbiguous = flag
            }
            if let value = section["field_preference"] {
                guard let preference = value.table else { throw InputError("config [pipeline.field_preference] must be a table of field = [providers]") }
                for key in preference.keys.sorted() {
                    guard let list = try Self.providers(preference, key, in: "pipeline.field_preference", known: providerNames) else { continue }
                    if key == "default" { defaultPreference = list } else {
                        _ = try PlaceField.parseList(key)
                        fieldPreference[key] = list
                    }
                }
            }
        }
        if let section = try Self.section(root, "cache", known: Self.cacheKeys) {
            if let value = try Self.number(section, "grid_meters", in: "cache", range: 0.01...100_000, what: "a number of metres") { cache.gridMeters = value }
            if let value = try Self.duration(section, "answer_ttl", in: "cache") { cache.answerTTL = value }
            if let value = try Self.duration(section, "negative_ttl", in: "cache") { cache.negativeTTL = value }
            if let value = try Self.number(section, "max_size_mb", in: "cache", range: 1...1_048_576, what: "a number of MiB") {
                cache.maxBytes = Int(value * 1_048_576)
            }
        }
        if let section = try Self.section(root, "budget", known: Self.budgetKeys) {
            if let value = section["time_zone"] {
                guard let zone = value.string, TimeZone(identifier: zone) != nil else {
                    throw InputError("config [budget] time_zone '\(value.string ?? value.tomlText())' is not an IANA zone such as Europe/Helsinki")
                }
                budget.timeZone = zone
            }
            budget.overall = try Self.limits(section, in: "budget", base: budget.overall)
            if let value = section["providers"] {
                guard let providers = value.table else { throw InputError("config [budget.providers] must hold [budget.providers.<name>] sections") }
                for name in providers.keys.sorted() {
                    guard providerNames.contains(name.lowercased()) else {
                        throw ConfigNames.unknown("provider", name, known: providerNames, in: "config [budget.providers]")
                    }
                    guard let table = providers[name]?.table else {
                        throw InputError("config [budget.providers.\(name)] must be a section with daily_usd and/or monthly_usd")
                    }
                    try ConfigNames.requireKnown(table, known: Self.limitKeys, in: "config [budget.providers.\(name)]")
                    budget.providers[name.lowercased()] = try Self.limits(table, in: "budget.providers.\(name)", base: BudgetSettings.Limits())
                }
            }
            if let value = section["free_calls_per_month"] {
                guard let free = value.table else { throw InputError("config [budget.free_calls_per_month] must be a table of \"sku\" = calls") }
                for sku in free.keys {
                    guard let calls = free[sku]?.integer, calls >= 0 else {
                        throw InputError("config [budget.free_calls_per_month] \(sku) must be a whole number of calls")
                    }
                    budget.freeCallsPerMonth[sku] = calls
                }
            }
        }
    }

    /// The table `[name]`, after checking it is one and holds only `known` keys; `nil` when absent.
    private static func section(_ root: [String: ConfigValue], _ name: String, known: [String]) throws(InputError) -> [String: ConfigValue]? {
        guard let value = root[name] else { return nil }
        guard let table = value.table else { throw InputError("config '\(name)' must be a [\(name)] section, not a single value") }
        try ConfigNames.requireKnown(table, known: known, in: "config [\(name)]")
        return table
    }

    /// A list of provider names, each one places knows (`nosuch` gets a did-you-mean).
    private static func providers(_ table: [String: ConfigValue], _ key: String, in section: String,
                                  known: [String]) throws(InputError) -> [String]? {
        guard let names = try strings(table, key, in: section) else { return nil }
        let lowered = names.map { $0.lowercased() }
        for name in lowered where !known.contains(name) {
            throw ConfigNames.unknown("provider", name, known: known, in: "config [\(section)] \(key)")
        }
        return lowered
    }

    /// Reads the sections from `url`; a missing file gives the defaults.
    public static func load(from url: URL) throws(InputError) -> PipelineSettings {
        try PipelineSettings(configuration: PlacesConfiguration.load(from: url))
    }

    private static func strings(_ table: [String: ConfigValue], _ key: String, in section: String) throws(InputError) -> [String]? {
        guard let value = table[key] else { return nil }
        guard let array = value.array else {
            throw InputError("config [\(section)] \(key) must be a list of provider names, e.g. [\"local\", \"google\"]")
        }
        var result: [String] = []
        for element in array {
            guard let text = element.string else {
                throw InputError("config [\(section)] \(key) must be a list of provider names, e.g. [\"local\", \"google\"]")
            }
            result.append(text)
        }
        return result
    }

    /// A finite number in `range`.
    private static func number(_ table: [String: ConfigValue], _ key: String, in section: String,
                               range: ClosedRange<Double>, what: String) throws(InputError) -> Double? {
        guard let value = table[key] else { return nil }
        guard let number = value.number, number.isFinite, range.contains(number) else {
            throw InputError("config [\(section)] \(key) must be \(what) from \(range.lowerBound.compactText) to \(range.upperBound.compactText)")
        }
        return number
    }

    /// Seconds as a number, or text such as "90s", "15m", "6h", "7d".
    private static func duration(_ table: [String: ConfigValue], _ key: String, in section: String) throws(InputError) -> TimeInterval? {
        guard let value = table[key] else { return nil }
        if let int = value.integer, (0...Int(longestDuration)).contains(int) { return TimeInterval(int) }
        if let text = value.string?.trimmingCharacters(in: .whitespaces), let unit = text.last,
           let amount = Double(text.dropLast()), amount >= 0 {
            let seconds: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
            if let factor = seconds[unit], amount * factor <= longestDuration { return amount * factor }
        }
        throw InputError("config [\(section)] \(key) must be seconds or a duration such as \"6h\" or \"7d\", at most 10 years")
    }

    private static func limits(_ table: [String: ConfigValue], in section: String, base: BudgetSettings.Limits) throws(InputError) -> BudgetSettings.Limits {
        var limits = base
        // A billion dollars is more than any budget; below it every figure is exact in micro-dollars.
        if let day = try number(table, "daily_usd", in: section, range: 0...1e9, what: "a number of dollars") {
            limits.perDay = MicroDollars(Int64((day * 1_000_000).rounded()))
        }
        if let month = try number(table, "monthly_usd", in: section, range: 0...1e9, what: "a number of dollars") {
            limits.perMonth = MicroDollars(Int64((month * 1_000_000).rounded()))
        }
        return limits
    }
}
