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

    public init(root: [String: ConfigValue]) throws(InputError) {
        self.init()
        if let section = root["pipeline"]?.table {
            if let chain = try Self.strings(section, "chain", in: "pipeline") { self.chain = chain.map { $0.lowercased() } }
            if let value = try Self.number(section, "accept_threshold", in: "pipeline") { acceptThreshold = value }
            if let value = try Self.number(section, "review_threshold", in: "pipeline") { reviewThreshold = value }
            if let value = try Self.number(section, "batch_concurrency", in: "pipeline") { batchConcurrency = max(1, Int(value)) }
            if let preference = section["field_preference"]?.table {
                for key in preference.keys {
                    guard let list = try Self.strings(preference, key, in: "pipeline.field_preference") else { continue }
                    if key == "default" { defaultPreference = list } else {
                        _ = try PlaceField.parseList(key)
                        fieldPreference[key] = list
                    }
                }
            }
        }
        if let section = root["cache"]?.table {
            if let value = try Self.number(section, "grid_meters", in: "cache") { cache.gridMeters = value }
            if let value = try Self.duration(section, "answer_ttl", in: "cache") { cache.answerTTL = value }
            if let value = try Self.duration(section, "negative_ttl", in: "cache") { cache.negativeTTL = value }
            if let value = try Self.number(section, "max_size_mb", in: "cache") { cache.maxBytes = Int(value * 1_048_576) }
        }
        if let section = root["budget"]?.table {
            if let zone = section["time_zone"]?.string {
                guard TimeZone(identifier: zone) != nil else {
                    throw InputError("config [budget] time_zone '\(zone)' is not an IANA zone such as Europe/Helsinki")
                }
                budget.timeZone = zone
            }
            budget.overall = try Self.limits(section, in: "budget", base: budget.overall)
            if let providers = section["providers"]?.table {
                for name in providers.keys {
                    guard let table = providers[name]?.table else { continue }
                    budget.providers[name.lowercased()] = try Self.limits(table, in: "budget.providers.\(name)", base: BudgetSettings.Limits())
                }
            }
            if let free = section["free_calls_per_month"]?.table {
                for sku in free.keys {
                    guard let calls = free[sku]?.integer, calls >= 0 else {
                        throw InputError("config [budget.free_calls_per_month] \(sku) must be a whole number of calls")
                    }
                    budget.freeCallsPerMonth[sku] = calls
                }
            }
        }
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

    private static func number(_ table: [String: ConfigValue], _ key: String, in section: String) throws(InputError) -> Double? {
        guard let value = table[key] else { return nil }
        if let number = value.number { return number }
        throw InputError("config [\(section)] \(key) must be a number")
    }

    /// Seconds as a number, or text such as "90s", "15m", "6h", "7d".
    private static func duration(_ table: [String: ConfigValue], _ key: String, in section: String) throws(InputError) -> TimeInterval? {
        guard let value = table[key] else { return nil }
        if let int = value.integer { return TimeInterval(int) }
        if let text = value.string?.trimmingCharacters(in: .whitespaces), let unit = text.last,
           let amount = Double(text.dropLast()), amount >= 0 {
            let seconds: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
            if let factor = seconds[unit] { return amount * factor }
        }
        throw InputError("config [\(section)] \(key) must be seconds or a duration such as \"6h\" or \"7d\"")
    }

    private static func limits(_ table: [String: ConfigValue], in section: String, base: BudgetSettings.Limits) throws(InputError) -> BudgetSettings.Limits {
        var limits = base
        if let day = try number(table, "daily_usd", in: section) { limits.perDay = MicroDollars(Int64((day * 1_000_000).rounded())) }
        if let month = try number(table, "monthly_usd", in: section) { limits.perMonth = MicroDollars(Int64((month * 1_000_000).rounded())) }
        return limits
    }
}
