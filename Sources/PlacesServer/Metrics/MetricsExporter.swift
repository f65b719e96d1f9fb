import BudgetLedger
import Prometheus
import Synchronization

/// What `GET /metrics` answers: the Prometheus text of one registry holding every `places_` metric.
///
/// The server's own counters (requests by command, errors by kind, the reply memo's hits) live in
/// ``ServerMetrics`` and ``ReplyMemo``, which INFO reads too; a scrape copies them into the registry's
/// counters, so each request is counted once, by one atomic add. Latency histograms are recorded straight
/// into the registry (``ServerMetrics/CommandCounters/latency``), and the pipeline's counters (paid calls,
/// spend, lookup-cache hits) reach it through swift-metrics, where the work is metered.
public final class MetricsExporter: Sendable {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public let registry: PrometheusCollectorRegistry
    private let metrics: ServerMetrics
    private let memo: ReplyMemo
    private let budgetReport: (@Sendable () async throws -> BudgetReport)?
    private let requests: [(ServerMetrics.CommandCounters, Counter)]
    private let errors: [(ServerMetrics.ErrorKind, Counter)]
    private let memoHits: Counter
    private let memoMisses: Counter
    private let connectedClients: Gauge
    private let connections: Counter
    private let refusedConnections: Counter
    private let refusedScrapeConnections: Counter
    /// The metrics listener's own connections (``MetricsHTTPServer/maxConnections``), here so that a scrape
    /// reports its refusals as the Redis listener's are reported.
    public let scrapeConnections = ConnectionSlots()
    /// Held for a whole scrape: two scrapes at once must not interleave the copies into the registry.
    private let budgetGauges = Mutex<[String: Gauge]>([:])

    /// - Parameter budgetReport: the ledger's figures, for `places_budget_left_usd`; `nil` when the ledger
    ///   did not open (the gauges are then absent).
    public init(registry: PrometheusCollectorRegistry, metrics: ServerMetrics, memo: ReplyMemo,
                budgetReport: (@Sendable () async throws -> BudgetReport)?) {
        self.registry = registry
        self.metrics = metrics
        self.memo = memo
        self.budgetReport = budgetReport
        requests = metrics.commands.map { command in
            (command, registry.makeCounter(name: "places_requests_total", labels: [("command", command.name)],
                                           help: "Requests received, by command (memo answers included)."))
        }
        errors = ServerMetrics.ErrorKind.allCases.map { kind in
            (kind, registry.makeCounter(name: "places_errors_total", labels: [("kind", kind.rawValue)],
                                        help: "Error replies, by what they were about."))
        }
        memoHits = registry.makeCounter(name: "places_memo_hits_total", help: "Requests answered from the reply memo.")
        memoMisses = registry.makeCounter(name: "places_memo_misses_total",
                                          help: "Memoisable requests that went to the backend.")
        connectedClients = registry.makeGauge(name: "places_connected_clients", help: "Clients connected now.")
        connections = registry.makeCounter(name: "places_connections_total", help: "Connections accepted or refused.")
        refusedConnections = registry.makeCounter(
            name: "places_connections_refused_total", help: "Connections closed at once: max number of clients reached.")
        refusedScrapeConnections = registry.makeCounter(
            name: "places_metrics_connections_refused_total",
            help: "Connections to the metrics listener closed at once: its max number of connections reached.")
    }

    /// The registry's text after copying the current counters into it.
    public func scrape() async -> [UInt8] {
        let report = try? await budgetReport?()
        let counters = metrics.snapshot
        let memo = self.memo.statistics
        return budgetGauges.withLock { gauges in
            for (command, counter) in requests { Self.set(counter, command.callCount) }
            for (kind, counter) in errors { Self.set(counter, metrics.errorCount(kind)) }
            Self.set(memoHits, memo.hits)
            Self.set(memoMisses, memo.misses)
            Self.set(connections, counters.totalConnections)
            Self.set(refusedConnections, counters.rejectedConnections)
            Self.set(refusedScrapeConnections, scrapeConnections.refusedCount)
            connectedClients.set(Double(counters.connectedClients))
            if let report { updateBudget(report, gauges: &gauges) }
            return registry.emitToBuffer()
        }
    }

    private static func set(_ counter: Counter, _ value: Int) {
        counter.reset()
        counter.increment(by: Int64(max(0, value)))
    }

    /// `places_budget_left_usd{provider, window}` for each limit the ledger has (`provider="all"` is the
    /// overall limit); a limit removed since the last scrape takes its series away.
    private func updateBudget(_ report: BudgetReport, gauges: inout [String: Gauge]) {
        var left: [(provider: String, window: String, dollars: Double)] = []
        func add(_ provider: String, _ today: BudgetReport.PeriodFigures, _ month: BudgetReport.PeriodFigures) {
            if let remaining = today.remaining { left.append((provider, "day", Double(remaining.value) / 1_000_000)) }
            if let remaining = month.remaining { left.append((provider, "month", Double(remaining.value) / 1_000_000)) }
        }
        add("all", report.overallToday, report.overallMonth)
        for figures in report.providers { add(figures.provider, figures.today, figures.month) }
        var seen = Set<String>()
        for entry in left {
            let key = entry.provider + "\u{0}" + entry.window
            seen.insert(key)
            let gauge = gauges[key] ?? registry.makeGauge(
                name: "places_budget_left_usd", labels: [("provider", entry.provider), ("window", entry.window)],
                help: "Dollars a provider (or all providers) may still spend in the window, per the budget ledger.")
            gauges[key] = gauge
            gauge.set(entry.dollars)
        }
        for (key, gauge) in gauges where !seen.contains(key) {
            registry.unregisterGauge(gauge)
            gauges[key] = nil
        }
    }
}
