import CoreMetrics

/// The pipeline's counters, observed where the work happens so the CLI and the server count the same way.
/// They go through swift-metrics: until a process bootstraps a metrics backend (`places serve
/// --metrics-port` does, before it opens anything) each is a no-op, so the CLI pays nothing for them.
/// Each is made once (here, or once per provider in ``MeteredProvider``), never per call: a call only adds.
enum PipelineMetrics {
    /// Which cache answered: `lookup` keeps whole merged lookups, `provider` one provider's answers.
    static let lookupCacheHits = Counter(label: "places_lookup_cache_hits_total", dimensions: [("layer", "lookup")])
    static let lookupCacheMisses = Counter(label: "places_lookup_cache_misses_total", dimensions: [("layer", "lookup")])
    static let providerCacheHits = Counter(label: "places_lookup_cache_hits_total", dimensions: [("layer", "provider")])
    static let providerCacheMisses = Counter(label: "places_lookup_cache_misses_total", dimensions: [("layer", "provider")])
}

/// A paid provider's calls and spend, as its ``MeteredProvider`` settles them with the ledger.
struct PaidCallMetrics: Sendable {
    /// Calls the ledger settled (answered, or a failure the provider bills), free allowance included.
    let calls: Counter
    /// Dollars settled: zero for a call a free allowance covered.
    let spend: FloatingPointCounter

    init(provider: String) {
        calls = Counter(label: "places_paid_calls_total", dimensions: [("provider", provider)])
        spend = FloatingPointCounter(label: "places_paid_spend_usd_total", dimensions: [("provider", provider)])
    }

    func record(costMicroDollars: Int64) {
        calls.increment()
        if costMicroDollars > 0 { spend.increment(by: Double(costMicroDollars) / 1_000_000) }
    }
}
