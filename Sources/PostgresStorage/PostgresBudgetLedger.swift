import BudgetLedger
import Foundation
import PlacesCore
import PostgresNIO

/// The money ledger on PostgreSQL: the SQLite ``BudgetLedger``'s semantics, shared by every instance.
///
/// A reservation is one call of the `places_reserve` function: under a transaction-scoped advisory lock it checks
/// the provider's and the overall day and month limits against running totals and records the charge, so with a
/// budget of N calls exactly N reservations succeed however many processes and hosts race for them. Concurrent
/// writes of one process are group-committed: they reach the database as one `places_ledger_batch` call (one round
/// trip, one commit) that runs them in arrival order. Days and months are keyed in the policy's zone, as SQLite's
/// are. Settle and refund as there; in addition ``refundDangling(olderThan:)`` returns reservations whose call
/// cannot still be running (older than the provider timeout): the process that made them died before settling.
public final class PostgresBudgetLedger: BudgetLedger {
    public let database: SharedDatabase
    public let policy: BudgetPolicy
    private let clock: @Sendable () -> Date
    /// Group commit: concurrent reserves, settles and refunds of this process share one `places_ledger_batch` call,
    /// i.e. one round trip, one take of the budget lock and one durable commit, decided in arrival order.
    private let writes: GroupCommittedWrites

    /// Names "the budget ledger" among advisory locks: every reservation and refund takes it for its transaction.
    static let lockKey: Int64 = 0x706C_6163_6573_4231  // "placesB1"

    /// - Parameter maximumBatch: the most writes one `places_ledger_batch` call takes; 1 turns group commit off (one
    ///   call and one commit per write), which is what `places-bench postgres` compares against.
    public init(database: SharedDatabase, policy: BudgetPolicy = BudgetPolicy(), clock: @escaping @Sendable () -> Date = { Date() },
                maximumBatch: Int = GroupCommitQueueLimit.default) {
        self.database = database
        self.policy = policy
        self.clock = clock
        writes = GroupCommittedWrites(policy: policy, clock: clock, maximumBatch: maximumBatch) { batch in try await Self.commit(batch, database: database, policy: policy) }
    }

    /// `places_ledger_batch(…)`, prepared once per connection: a batch of writes, one array element each.
    struct BatchStatement: PostgresPreparedStatement {
        static let sql = """
            SELECT ord, charge_id, charged, denied_scope, denied_period, denied_limit, denied_spent
            FROM places_ledger_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
            """
        typealias Row = (Int32, Int64?, Int64?, String?, String?, Int64?, Int64?)

        var operation: [String] = [], charge: [Int64] = [], provider: [String] = [], sku: [String] = [], cost: [Int64] = []
        var day: [String] = [], month: [String] = [], now: [Double] = [], allowance: [Int32] = []
        /// -1 for "no limit configured" (see ``PostgresMigrations/ledgerBatch``).
        var providerDay: [Int64] = [], providerMonth: [Int64] = [], overallDay: [Int64] = [], overallMonth: [Int64] = []

        init(_ batch: [LedgerWrite], policy: BudgetPolicy) {
            func limit(_ amount: MicroDollars?) -> Int64 { amount?.value ?? -1 }
            for write in batch {
                switch write {
                case .reserve(let name, let quote, let dayKey, let monthKey, let time):
                    let configured = policy.providers[name] ?? .unlimited
                    append("reserve", charge: 0, provider: name, sku: quote.sku, cost: quote.cost.value, day: dayKey, month: monthKey,
                           now: time.timeIntervalSince1970, allowance: Int32(clamping: policy.freeCallsPerMonth[quote.sku] ?? 0),
                           limits: [limit(configured.perDay), limit(configured.perMonth),
                                    limit(policy.overall.perDay), limit(policy.overall.perMonth)])
                case .settle(let id):
                    append("settle", charge: id)
                case .refund(let id):
                    append("refund", charge: id)
                }
            }
        }

        private mutating func append(_ kind: String, charge id: Int64, provider name: String = "", sku code: String = "", cost price: Int64 = 0,
                                     day dayKey: String = "", month monthKey: String = "", now time: Double = 0, allowance free: Int32 = 0,
                                     limits: [Int64] = [-1, -1, -1, -1]) {
            operation.append(kind)
            charge.append(id)
            provider.append(name)
            sku.append(code)
            cost.append(price)
            day.append(dayKey)
            month.append(monthKey)
            now.append(time)
            allowance.append(free)
            providerDay.append(limits[0])
            providerMonth.append(limits[1])
            overallDay.append(limits[2])
            overallMonth.append(limits[3])
        }

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 13)
            bindings.append(operation)
            bindings.append(charge)
            bindings.append(provider)
            bindings.append(sku)
            bindings.append(cost)
            bindings.append(day)
            bindings.append(month)
            bindings.append(now)
            bindings.append(allowance)
            bindings.append(providerDay)
            bindings.append(providerMonth)
            bindings.append(overallDay)
            bindings.append(overallMonth)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// Runs one batch as one statement (one round trip, one commit): each reserve's answer in its place, nil for
    /// settles and refunds.
    static func commit(_ batch: [LedgerWrite], database: SharedDatabase, policy: BudgetPolicy) async throws -> [ReservationOutcome?] {
        var outcomes = [ReservationOutcome?](repeating: nil, count: batch.count)
        for (ord, id, charged, scope, period, limit, spent) in try await database.execute(BatchStatement(batch, policy: policy)) {
            let index = Int(ord) - 1
            guard batch.indices.contains(index), case .reserve(let provider, let quote, _, _, _) = batch[index] else {
                throw PostgresStatementError(sqlState: nil, message: "places_ledger_batch answered for write \(ord) of \(batch.count), not a reservation")
            }
            if let id, let charged {
                outcomes[index] = .granted(Reservation(id: id, provider: provider, sku: quote.sku, cost: MicroDollars(charged), listPrice: quote.cost))
            } else {
                outcomes[index] = .denied(BudgetDenial(
                    limitedProvider: scope == nil || scope == "*" ? nil : scope, period: BudgetPeriod(rawValue: period ?? "day") ?? .day,
                    limit: MicroDollars(limit ?? 0), spent: MicroDollars(spent ?? 0), requested: quote.cost))
            }
        }
        for (index, write) in batch.enumerated() {
            if case .reserve = write, outcomes[index] == nil {
                throw PostgresStatementError(sqlState: nil, message: "places_ledger_batch gave no answer for reservation \(index + 1) of \(batch.count)")
            }
        }
        return outcomes
    }

    /// Reserves the price of one call, or says which limit forbids it. Free calls (price zero) are granted without
    /// touching the database.
    public func reserve(provider: String, quote: PriceQuote) async throws -> ReservationOutcome {
        try await writes.reserve(provider: provider, quote: quote)
    }

    /// The call was answered: the charge stays.
    public func settle(_ reservation: Reservation) async throws { try await writes.settle(reservation) }

    /// The call failed and the provider does not bill failures: the money (and the free-tier call) comes back.
    public func refund(_ reservation: Reservation) async throws { try await writes.refund(reservation) }

    /// Refunds reservations older than `age` that were never settled or refunded: their call cannot still be
    /// running (the provider timeout is shorter), so the process that made them died in between.
    /// - Returns: how many were refunded.
    @discardableResult
    public func refundDangling(olderThan age: TimeInterval) async throws -> Int {
        let cutoff = clock().timeIntervalSince1970 - age
        let rows = try await database.rows("""
            SELECT count(*) FILTER (WHERE places_refund(id)) FROM budget_charge WHERE state = 'reserved' AND created_at < \(cutoff)
            """)
        return try rows.first?.decode(Int.self) ?? 0
    }

    /// Recomputes the running totals from the charges (after charges were copied in); the caller holds ``lockKey``.
    static func rebuildTotals(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM budget_window", logger: logger)
        try await connection.query("""
            INSERT INTO budget_window (scope, period, key, spent)
            SELECT provider, 'day', day, sum(cost) FROM budget_charge WHERE state <> 'refunded' GROUP BY provider, day
            UNION ALL SELECT provider, 'month', month, sum(cost) FROM budget_charge WHERE state <> 'refunded' GROUP BY provider, month
            UNION ALL SELECT '*', 'day', day, sum(cost) FROM budget_charge WHERE state <> 'refunded' GROUP BY day
            UNION ALL SELECT '*', 'month', month, sum(cost) FROM budget_charge WHERE state <> 'refunded' GROUP BY month
            """, logger: logger)
        try await connection.query("DELETE FROM budget_sku_calls", logger: logger)
        try await connection.query("""
            INSERT INTO budget_sku_calls (sku, month, calls)
            SELECT sku, month, count(*) FROM budget_charge WHERE state <> 'refunded' GROUP BY sku, month
            """, logger: logger)
    }

    // MARK: Limits and reports

    /// Persists limits for one provider (or overall when `provider` is nil); a `nil` period is left as it was.
    /// Pass `.some(nil)` to remove a cap.
    public func setLimits(provider: String?, perDay: MicroDollars?? = .none, perMonth: MicroDollars?? = .none) async throws {
        let scope = provider ?? "*"
        let changes = [(BudgetPeriod.day, perDay), (.month, perMonth)].compactMap { period, value in value.map { (period, $0) } }
        guard !changes.isEmpty else { return }
        try await database.withTransaction { connection in
            for (period, amount) in changes {
                try await connection.query("""
                    INSERT INTO budget_limit (scope, period, amount) VALUES (\(scope), \(period.rawValue), \(amount?.value))
                    ON CONFLICT (scope, period) DO UPDATE SET amount = EXCLUDED.amount
                    """, logger: self.database.logger)
            }
        }
    }

    /// Today's and this month's figures for every provider that is configured, limited or has spent: the same
    /// report as SQLite's, computed from the charges themselves.
    public func report() async throws -> BudgetReport {
        let (day, month) = policy.periodKeys(for: clock())
        let policy = policy
        return try await database.withTransaction { connection in
            let logger = self.database.logger
            var limits: [String: MicroDollars?] = [:]   // "scope|period" → amount (nil = explicitly unlimited)
            for try await (scope, period, amount) in try await connection.query(
                "SELECT scope, period, amount FROM budget_limit", logger: logger).decode((String, String, Int64?).self) {
                // `updateValue`: a stored NULL ("no cap") must stay in the dictionary, not remove the key.
                limits.updateValue(amount.map(MicroDollars.init), forKey: "\(scope)|\(period)")
            }
            func limit(_ scope: String?, _ period: BudgetPeriod) -> MicroDollars? {
                if let stored = limits["\(scope ?? "*")|\(period.rawValue)"] { return stored }
                let configured = scope.map { policy.providers[$0] ?? .unlimited } ?? policy.overall
                return period == .day ? configured.perDay : configured.perMonth
            }
            // Spend and calls per provider, today and this month, in one pass over the month's live charges.
            var figures: [String: (daySpent: Int64, dayCalls: Int, monthSpent: Int64, monthCalls: Int)] = [:]
            for try await (provider, dayCost, dayCalls, monthCost, monthCalls) in try await connection.query("""
                SELECT provider, COALESCE(sum(cost) FILTER (WHERE day = \(day)), 0)::bigint, count(*) FILTER (WHERE day = \(day)),
                       COALESCE(sum(cost), 0)::bigint, count(*)
                FROM budget_charge WHERE month = \(month) AND state <> 'refunded' GROUP BY provider
                """, logger: logger).decode((String, Int64, Int, Int64, Int).self) {
                figures[provider] = (dayCost, dayCalls, monthCost, monthCalls)
            }
            var skuCalls: [String: (provider: String, calls: Int)] = [:]
            for try await (provider, sku, calls) in try await connection.query("""
                SELECT provider, sku, count(*) FILTER (WHERE state <> 'refunded') FROM budget_charge WHERE month = \(month) GROUP BY provider, sku
                """, logger: logger).decode((String, String, Int).self) {
                skuCalls[sku] = (provider, calls + (skuCalls[sku]?.calls ?? 0))
            }
            var charged = Set<String>()
            for try await provider in try await connection.query(
                "SELECT DISTINCT provider FROM budget_charge WHERE month = \(month)", logger: logger).decode(String.self) {
                charged.insert(provider)
            }
            func period(_ provider: String?, _ period: BudgetPeriod) -> BudgetReport.PeriodFigures {
                let rows = provider.map { figures[$0].map { [$0] } ?? [] } ?? Array(figures.values)
                let spent = MicroDollars(rows.reduce(0) { $0 + (period == .day ? $1.daySpent : $1.monthSpent) })
                let calls = rows.reduce(0) { $0 + (period == .day ? $1.dayCalls : $1.monthCalls) }
                let cap = limit(provider, period)
                return BudgetReport.PeriodFigures(spent: spent, limit: cap, remaining: cap.map { max(.zero, $0 - spent) }, calls: calls)
            }
            var names = Set(policy.providers.keys).union(charged)
            names.formUnion(limits.keys.compactMap { key in
                let scope = String(key.split(separator: "|", maxSplits: 1)[0])
                return scope == "*" ? nil : scope
            })
            let providers = names.sorted().map { name in
                let skus = Set(policy.freeCallsPerMonth.keys.filter { $0.hasPrefix(name + ".") })
                    .union(skuCalls.filter { $0.value.provider == name }.keys)
                let free = skus.sorted().compactMap { sku -> BudgetReport.FreeTierUse? in
                    guard let allowance = policy.freeCallsPerMonth[sku], allowance > 0 else { return nil }
                    return BudgetReport.FreeTierUse(sku: sku, used: min(skuCalls[sku]?.calls ?? 0, allowance), allowance: allowance)
                }
                return BudgetReport.ProviderFigures(provider: name, today: period(name, .day), month: period(name, .month), freeTier: free)
            }
            return BudgetReport(day: day, month: month, timeZone: policy.timeZone.identifier, overallToday: period(nil, .day),
                                overallMonth: period(nil, .month), providers: providers)
        }
    }
}
