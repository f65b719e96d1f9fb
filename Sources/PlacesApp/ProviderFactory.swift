import BudgetLedger
import FoursquareProvider
import Foundation
import GoogleProvider
import Logging
import LookupCache
import NominatimProvider
import PlacesConfig
import PlacesCore
import PlacesPipeline
import ProviderHTTP
import YelpProvider

/// One configured network provider: ready to call, or the reason it cannot be.
public struct ConfiguredProvider: Sendable {
    public enum Status: Sendable {
        case usable
        /// `enabled = false` in its section.
        case disabled
        /// Missing key, missing contact, bad settings: `reason` says what to do.
        case unusable(reason: String)
    }

    public let name: String
    public let settings: ProviderSettings
    public let status: Status
    /// What it can do, what it costs and how long its answers may be kept, known even when it is unusable.
    public let capabilities: ProviderCapabilities
    public let prices: PriceTable
    public let cacheTerms: CacheTerms
    /// The provider, already metered, cached and single-flighted (see ``ProviderDecorations``); `nil` when
    /// it is not usable, or when only statuses were asked for (``ProviderFactory/statuses(configuration:environment:)``).
    public let provider: (any PlaceProvider)?

    public var isUsable: Bool {
        if case .usable = status { true } else { false }
    }

    /// `nil` when usable; otherwise one line such as "no API key: set YELP_API_KEY".
    public var reason: String? {
        switch status {
        case .usable: nil
        case .disabled: "disabled in config (enabled = false under [providers.\(name)])"
        case .unusable(let reason): reason
        }
    }
}

/// What the provider factory wraps every network provider in, outermost first: single flight, a cache that
/// follows the provider's terms, and metering in the budget ledger. A provider comes out of the factory only
/// wrapped, so no path to a paid provider can spend outside the budget or skip the cache.
public struct ProviderDecorations: Sendable {
    public var ledger: any BudgetLedger
    public var cache: (any LookupCacheStore)?
    /// Coordinates in cache keys are snapped to this grid (`[cache] grid_m`).
    public var grid: CoordinateGrid
    /// The longest any answer is kept (`[cache] answer_ttl_s`); a provider's terms may shorten it.
    public var longestTTL: TimeInterval
    /// Where each paid call and each denial is logged (the server's log); `nil` logs nothing.
    public var logger: Logger?
    public var clock: @Sendable () -> Date

    public init(ledger: any BudgetLedger, cache: (any LookupCacheStore)?, grid: CoordinateGrid = CoordinateGrid(meters: 100),
                longestTTL: TimeInterval = 7 * 86_400, logger: Logger? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.ledger = ledger
        self.cache = cache
        self.grid = grid
        self.longestTTL = longestTTL
        self.logger = logger
        self.clock = clock
    }

    func wrap(_ provider: any PlaceProvider) -> any PlaceProvider {
        let metered = MeteredProvider(provider, ledger: ledger, logger: logger)
        let cached: any PlaceProvider = cache.map { CachingProvider(metered, cache: $0, grid: grid, longest: longestTTL, clock: clock) }
            ?? metered
        return SingleFlightProvider(cached)
    }
}

/// Builds the network providers (Google, Yelp, Foursquare, Nominatim) from `config.toml` and the
/// environment, wrapped in their ``ProviderDecorations``. Build them once per process and keep them (the
/// application does): each carries its own rate limiter and circuit breaker (Nominatim's limiter is
/// process-wide whatever is built).
///
/// ```swift
/// let configuration = try PlacesConfiguration.load(environment)
/// let google = try ProviderFactory.provider(named: "google", configuration: configuration, environment: environment,
///                                           decorations: ProviderDecorations(ledger: ledger, cache: cache))
/// let places = try await google.search(SearchQuery(text: "Blue Bottle Coffee", near: near))  // metered, cached
/// ```
public enum ProviderFactory {
    public static let networkProviderNames = PlacesConfiguration.networkProviders

    /// Every network provider, in the order above, with its status, usable ones wrapped in `decorations`.
    public static func makeAll(configuration: PlacesConfiguration, environment: PlacesEnvironment,
                               decorations: ProviderDecorations, transport: (any HTTPTransport)? = nil) -> [ConfiguredProvider] {
        networkProviderNames.map {
            make($0, configuration: configuration, environment: environment, decorations: decorations, transport: transport)
        }
    }

    /// What each network provider can do and why it cannot be used, without building anything callable
    /// (`places providers`).
    public static func statuses(configuration: PlacesConfiguration, environment: PlacesEnvironment) -> [ConfiguredProvider] {
        networkProviderNames.map { make($0, configuration: configuration, environment: environment, decorations: nil) }
    }

    /// The provider called `name`, wrapped in `decorations`, or an `InputError` that says why it cannot be used.
    public static func provider(named name: String, configuration: PlacesConfiguration, environment: PlacesEnvironment,
                                decorations: ProviderDecorations,
                                transport: (any HTTPTransport)? = nil) throws(InputError) -> any PlaceProvider {
        try usable(named: name, among: makeAll(configuration: configuration, environment: environment,
                                               decorations: decorations, transport: transport))
    }

    /// The usable provider called `name` among `providers`, or an `InputError` that says why there is none.
    static func usable(named name: String, among providers: [ConfiguredProvider]) throws(InputError) -> any PlaceProvider {
        let lowered = name.lowercased()
        guard let configured = providers.first(where: { $0.name == lowered }) else {
            throw InputError("unknown provider '\(name)': choose from local, \(networkProviderNames.joined(separator: ", "))")
        }
        guard let provider = configured.provider else {
            throw InputError("\(lowered): \(configured.reason ?? "not usable")")
        }
        return provider
    }

    /// One provider's status, and with `decorations` the provider itself; `transport` replaces URLSession
    /// (tests, benchmarks).
    static func make(_ name: String, configuration: PlacesConfiguration, environment: PlacesEnvironment,
                     decorations: ProviderDecorations?, transport: (any HTTPTransport)? = nil) -> ConfiguredProvider {
        let settings = configuration.settings(for: name)
        let (capabilities, defaultPrices, defaultTerms) = catalogue(name)
        let prices = defaultPrices.overriding(dollarsPerThousand: settings.prices)
        let cacheTerms = settings.cacheLimits.applied(to: defaultTerms)
        func result(_ status: ConfiguredProvider.Status, _ provider: (any PlaceProvider)? = nil) -> ConfiguredProvider {
            ConfiguredProvider(name: name, settings: settings, status: status, capabilities: capabilities,
                               prices: prices, cacheTerms: cacheTerms, provider: provider.flatMap { decorations?.wrap($0) })
        }
        guard settings.enabled else { return result(.disabled) }

        let key = settings.resolvedAPIKey(environment: environment.variables)
        if name != "nominatim", key == nil {
            let env = settings.apiKeyEnv.map { "set \($0)" } ?? "set api_key_env"
            return result(.unusable(reason: "no API key: \(env) (or api_key under [providers.\(name)] in \(environment.configFile.path))"))
        }
        let hint: String = {
            if let env = settings.apiKeyEnv, let value = environment.variables[env], !value.isEmpty {
                return "check the key in $\(env) (named by api_key_env under [providers.\(name)])"
            }
            return "check api_key under [providers.\(name)] in \(environment.configFile.path)"
        }()
        let clock = SystemClock()
        let configurationForClient = HTTPClientConfiguration(
            provider: name, baseURL: settings.baseURL, timeout: settings.timeout,
            userAgent: UserAgent.make(product: PlacesVersion.userAgentProduct, contact: name == "nominatim" ? settings.contact : nil),
            retry: RetryPolicy(maxAttempts: settings.maxAttempts), secrets: key.map { [$0] } ?? [], credentialHint: hint,
            maxBodyBytes: settings.maxBodyBytes)
        let breaker = CircuitBreaker(failureThreshold: settings.circuitFailures, coolDown: settings.circuitCoolDown, clock: clock)
        // Nominatim's 1 request/s is for the whole process, so every client shares one limiter.
        let limiter = name == "nominatim" ? RateLimiter.nominatimProcessWide
            : RateLimiter(requestsPerSecond: settings.rateLimitPerSecond, clock: clock)
        func client(errorReader: @escaping @Sendable (HTTPResponse) -> UpstreamErrorDetail = HTTPClient.genericErrorDetail) -> HTTPClient {
            HTTPClient(configuration: configurationForClient, limiter: limiter, breaker: breaker, clock: clock,
                       transport: transport ?? URLSessionTransport(), errorReader: errorReader)
        }

        switch name {
        case "google":
            return result(.usable, GoogleProvider(
                client: client(errorReader: GoogleProvider.errorReader),
                prices: prices, cacheTerms: cacheTerms))
        case "yelp":
            return result(.usable, YelpProvider(
                client: client(errorReader: YelpProvider.errorReader),
                prices: prices, cacheTerms: cacheTerms))
        case "foursquare":
            return result(.usable, FoursquareProvider(
                client: client(),
                prices: prices, cacheTerms: cacheTerms))
        case "nominatim":
            do {
                return result(.usable, try NominatimProvider(
                    client: client(), contact: settings.contact, cacheTerms: cacheTerms))
            } catch {
                return result(.unusable(reason: error.message))
            }
        default:
            return result(.unusable(reason: "unknown provider: places knows \(networkProviderNames.joined(separator: ", "))"))
        }
    }
}

extension ProviderFactory {
    /// Capabilities, default prices and default cache terms of each network provider.
    static func catalogue(_ name: String) -> (ProviderCapabilities, PriceTable, CacheTerms) {
        switch name {
        case "google": ([.textSearch, .nearby, .details, .suggest], GoogleProvider.defaultPrices, GoogleProvider.defaultCacheTerms)
        case "yelp": ([.textSearch, .details, .match], YelpProvider.defaultPrices, YelpProvider.defaultCacheTerms)
        case "foursquare": ([.textSearch, .details, .match], FoursquareProvider.defaultPrices, FoursquareProvider.defaultCacheTerms)
        case "nominatim": ([.textSearch, .details, .reverse], PriceTable(provider: "nominatim", perCall: [:]), .unlimited)
        default: ([], PriceTable(provider: name, perCall: [:]), .unlimited)
        }
    }
}

extension PlacesConfiguration {
    /// Reads `environment.configFile` (`--config FILE`, or `config.toml` under `$PLACES_HOME`/XDG).
    public static func load(_ environment: PlacesEnvironment) throws(InputError) -> PlacesConfiguration {
        try load(from: environment.configFile)
    }
}
