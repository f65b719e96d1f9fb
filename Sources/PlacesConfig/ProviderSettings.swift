import Foundation
import PlacesCore

/// `[providers.<name>]`: how to reach one network provider, and what it may cost.
///
/// ```toml
/// [providers.google]
/// enabled = true
/// api_key_env = "GOOGLE_PLACES_API_KEY"   # or api_key = "…"
/// base_url = "https://places.googleapis.com"
/// timeout_s = 5
/// rate_limit_per_s = 10
///
/// [providers.google.prices]               # dollars per 1,000 calls, by SKU
/// "details.enterprise" = 20
///
/// [providers.google.cache_limits]         # seconds; override the provider's terms
/// content_s = 3600
/// ```
public struct ProviderSettings: Sendable, Hashable {
    public var name: String
    public var enabled: Bool
    /// The environment variable holding the key (default `GOOGLE_PLACES_API_KEY`, `YELP_API_KEY`, `FOURSQUARE_API_KEY`).
    public var apiKeyEnv: String?
    /// A key written into the file itself; the environment variable wins when both are set.
    public var apiKey: String?
    public var baseURL: URL
    public var timeout: Double
    /// Client-side pace; Nominatim is capped at 1 whatever is configured.
    public var rateLimitPerSecond: Double
    /// Nominatim only: the email or URL its usage policy wants in the User-Agent.
    public var contact: String?
    /// Calls in all for one request, the first included.
    public var maxAttempts: Int
    /// Consecutive failures that pause the provider, and how long the pause lasts.
    public var circuitFailures: Int
    public var circuitCoolDown: Double
    /// SKU → dollars per 1,000 calls, replacing the provider's defaults.
    public var prices: [String: Double]
    /// Overrides of the provider's cache terms, in seconds.
    public var cacheLimits: CacheLimitOverrides
    /// The longest reply body read (`max_body_mb`, default 8); a longer one is refused unread.
    public var maxBodyBytes: Int

    public struct CacheLimitOverrides: Sendable, Hashable {
        public var ids: Double?
        public var coordinates: Double?
        public var content: Double?

        public init(ids: Double? = nil, coordinates: Double? = nil, content: Double? = nil) {
            self.ids = ids
            self.coordinates = coordinates
            self.content = content
        }

        /// `terms` with each configured figure replacing the provider's own.
        public func applied(to terms: CacheTerms) -> CacheTerms {
            CacheTerms(ids: ids ?? terms.ids, coordinates: coordinates ?? terms.coordinates, content: content ?? terms.content)
        }

        public var isEmpty: Bool { ids == nil && coordinates == nil && content == nil }
    }

    struct Defaults {
        var baseURL: String
        var apiKeyEnv: String?
        var timeout: Double
        var rate: Double
    }

    static let defaults: [String: Defaults] = [
        "google": Defaults(baseURL: "https://places.googleapis.com", apiKeyEnv: "GOOGLE_PLACES_API_KEY", timeout: 5, rate: 10),
        "yelp": Defaults(baseURL: "https://api.yelp.com", apiKeyEnv: "YELP_API_KEY", timeout: 5, rate: 5),
        "foursquare": Defaults(baseURL: "https://places-api.foursquare.com", apiKeyEnv: "FOURSQUARE_API_KEY", timeout: 5, rate: 20),
        "nominatim": Defaults(baseURL: "https://nominatim.openstreetmap.org", apiKeyEnv: nil, timeout: 10, rate: 1),
    ]

    static let knownKeys = [
        "enabled", "api_key_env", "api_key", "base_url", "timeout_s", "rate_limit_per_s", "contact", "max_attempts",
        "circuit_failures", "circuit_cooldown_s", "prices", "cache_limits", "max_body_mb",
    ]

    /// 8 MiB, as ``ProviderHTTP``'s client defaults to; far above a real page of places.
    static let defaultMaxBodyMB = 8.0

    /// The defaults for `name`, with `section` (if any) applied; `file` names the config in errors.
    public init(name: String, section: ConfigValue?, file: String = "config.toml") throws(InputError) {
        let base = Self.defaults[name] ?? Defaults(baseURL: "", apiKeyEnv: "\(name.uppercased())_API_KEY", timeout: 5, rate: 5)
        let where_ = "\(file): [providers.\(name)]"
        guard section == nil || section?.table != nil else { throw InputError("\(where_) must be a table") }
        let table = section?.table ?? [:]
        try ConfigNames.requireKnown(table, known: Self.knownKeys, in: where_)

        func string(_ key: String) throws(InputError) -> String? {
            guard let value = table[key] else { return nil }
            guard let text = value.string else { throw InputError("\(where_) \(key) must be a string") }
            return text
        }
        /// A positive number no larger than `limit` (a zero pace or timeout would stall every call).
        func number(_ key: String, upTo limit: Double, _ unit: String) throws(InputError) -> Double? {
            guard let value = table[key] else { return nil }
            guard let number = value.number, number.isFinite, number > 0, number <= limit else {
                throw InputError("\(where_) \(key) must be a positive number\(unit), at most \(limit.compactText)")
            }
            return number
        }
        func whole(_ key: String, _ range: ClosedRange<Int>) throws(InputError) -> Int? {
            guard let value = table[key] else { return nil }
            guard let number = value.integer ?? value.number.flatMap({ Int(exactly: $0) }), range.contains(number) else {
                throw InputError("\(where_) \(key) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }

        self.name = name
        if let value = table["enabled"] {
            guard let flag = value.bool else { throw InputError("\(where_) enabled must be true or false") }
            enabled = flag
        } else {
            enabled = true
        }
        apiKeyEnv = try string("api_key_env") ?? base.apiKeyEnv
        apiKey = try string("api_key").flatMap { $0.isEmpty ? nil : $0 }
        let urlText = try string("base_url") ?? base.baseURL
        guard let url = URL(string: urlText), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            if urlText.isEmpty { throw InputError("\(where_): base_url is required for a provider places does not know") }
            throw InputError("\(where_) base_url '\(urlText)' must be an http(s) URL such as \(base.baseURL.isEmpty ? "https://api.example.com" : base.baseURL)")
        }
        baseURL = url
        timeout = try number("timeout_s", upTo: 300, " of seconds") ?? base.timeout
        rateLimitPerSecond = try number("rate_limit_per_s", upTo: 10_000, " of requests per second") ?? base.rate
        contact = try string("contact").flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        maxAttempts = try whole("max_attempts", 1...10) ?? 3
        circuitFailures = try whole("circuit_failures", 1...1_000) ?? 5
        circuitCoolDown = try number("circuit_cooldown_s", upTo: 86_400, " of seconds") ?? 30
        maxBodyBytes = Int((try number("max_body_mb", upTo: 1_024, " of MiB") ?? Self.defaultMaxBodyMB) * 1_048_576)

        var prices: [String: Double] = [:]
        if let value = table["prices"] {
            guard let priceTable = value.table else { throw InputError("\(where_).prices must be a table of \"sku\" = dollars per 1,000") }
            for (sku, price) in priceTable {
                guard let dollars = price.number, dollars.isFinite, (0...1_000_000).contains(dollars) else {
                    throw InputError("\(where_).prices \"\(sku)\" must be a non-negative number of dollars per 1,000 calls")
                }
                prices[sku] = dollars
            }
        }
        self.prices = prices

        var limits = CacheLimitOverrides()
        if let value = table["cache_limits"] {
            guard let limitTable = value.table else { throw InputError("\(where_).cache_limits must be a table") }
            for (key, limit) in limitTable {
                guard let seconds = limit.number, seconds.isFinite, (0...PipelineSettings.longestDuration).contains(seconds) else {
                    throw InputError("\(where_).cache_limits \(key) must be a non-negative number of seconds")
                }
                switch key {
                case "ids_s": limits.ids = seconds
                case "coordinates_s": limits.coordinates = seconds
                case "content_s": limits.content = seconds
                default: throw ConfigNames.unknown("key", key, known: ["ids_s", "coordinates_s", "content_s"], in: "\(where_).cache_limits")
                }
            }
        }
        cacheLimits = limits
    }

    /// The key to use: the environment variable named by `api_key_env` first, then `api_key`.
    public func resolvedAPIKey(environment: [String: String]) -> String? {
        if let env = apiKeyEnv, let value = environment[env], !value.isEmpty { return value }
        return apiKey
    }

    /// TOML lines for `places config show`; the key itself is never printed.
    public var redactedLines: [String] {
        var lines = ["[providers.\(name)]", "enabled = \(enabled)"]
        if let apiKeyEnv { lines.append("api_key_env = \(ConfigValue.quote(apiKeyEnv))") }
        if apiKey != nil { lines.append("api_key = \(ConfigValue.quote(ConfigValue.redacted))") }
        lines.append("base_url = \(ConfigValue.quote(baseURL.absoluteString))")
        lines.append("timeout_s = \(Self.number(timeout))")
        lines.append("rate_limit_per_s = \(Self.number(rateLimitPerSecond))")
        if let contact { lines.append("contact = \(ConfigValue.quote(contact))") }
        lines.append("max_attempts = \(maxAttempts)")
        lines.append("circuit_failures = \(circuitFailures)")
        lines.append("circuit_cooldown_s = \(Self.number(circuitCoolDown))")
        lines.append("max_body_mb = \(Self.number(Double(maxBodyBytes) / 1_048_576))")
        if !prices.isEmpty {
            lines.append("prices = { " + prices.keys.sorted().map { "\(ConfigValue.quote($0)) = \(Self.number(prices[$0]!))" }
                .joined(separator: ", ") + " }")
        }
        if !cacheLimits.isEmpty {
            let parts = [("ids_s", cacheLimits.ids), ("coordinates_s", cacheLimits.coordinates), ("content_s", cacheLimits.content)]
                .compactMap { key, value in value.map { "\(key) = \(Self.number($0))" } }
            lines.append("cache_limits = { " + parts.joined(separator: ", ") + " }")
        }
        return lines
    }

    static func number(_ value: Double) -> String {
        value.compactText
    }
}

extension PlacesConfiguration {
    /// The effective configuration as TOML, defaults filled in, every secret replaced by `[REDACTED]`.
    /// Sections owned by other modules are printed as written (secret-looking keys redacted).
    public var redactedDescription: String {
        var blocks: [String] = []
        let source = file.map { fileExists ? "# from \($0.path)" : "# \($0.path) does not exist: all defaults" } ?? "# built-in defaults"
        blocks.append(source)
        for name in providers.keys.sorted() {
            blocks.append(providers[name]!.redactedLines.joined(separator: "\n"))
        }
        for key in root.keys.sorted() where key != "providers" {
            // A database URL may carry a password (`[storage] url`): it never leaves this command.
            blocks.append(Redaction.urlPasswords(Self.render(root[key]!, path: key)))
        }
        return blocks.joined(separator: "\n\n") + "\n"
    }

    static func render(_ value: ConfigValue, path: String) -> String {
        guard let table = value.table else {
            return "\(path) = \(ConfigValue.isSecretKey(path) ? ConfigValue.quote(ConfigValue.redacted) : value.tomlText())"
        }
        var lines = ["[\(path)]"]
        var nested: [String] = []
        for key in table.keys.sorted() {
            let item = table[key]!
            if item.table != nil {
                nested.append(render(item, path: "\(path).\(key)"))
            } else {
                let text = ConfigValue.isSecretKey(key) ? ConfigValue.quote(ConfigValue.redacted) : item.tomlText()
                lines.append("\(key) = \(text)")
            }
        }
        return ([lines.joined(separator: "\n")] + nested).joined(separator: "\n\n")
    }
}
