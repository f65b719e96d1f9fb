import Foundation
import GRDB
import PlacesCore
import StoreSupport

/// The SQLite ledger: one file in the user's data directory.
///
/// A reservation checks the limits and records the charge in one `BEGIN IMMEDIATE` transaction, so
/// the check and the write cannot interleave with another task's or another process's.
public final class SQLiteBudgetLedger: BudgetLedger {
    public let path: URL
    public let policy: BudgetPolicy
    private let database: any DatabaseWriter
    private let clock: @Sendable () -> Date
    /// Reserves, settles and refunds coalesce (``GroupCommitter``): concurrent writes from this process share one
    /// `BEGIN IMMEDIATE` transaction, decided in arrival order, so the write lock is taken and the file synced once
    /// per batch instead of once per call.
    private let writes: GroupCommittedWrites

    /// - Parameter maximumBatch: the most writes one transaction takes (``GroupCommitQueue/maximumBatch``); 1 turns
    ///   group commit off (one transaction per call), which is what `places-bench postgres` compares against.
    public init(path: URL, policy: BudgetPolicy = BudgetPolicy(), clock: @escaping @Sendable () -> Date = { Date() },
                maximumBatch: Int = GroupCommitQueueLimit.default, concurrentReaders: Bool = true) throws {
        self.path = path
        self.policy = policy
        self.clock = clock
        var config = Configuration()
        // Another process may hold the write lock for a moment; wait rather than fail.
        config.busyMode = .timeout(30)
        let database = try StoreDatabase.open(name: "budget ledger", path: path, configuration: config, migrator: Self.migrator,
                                              concurrentReaders: concurrentReaders)
        self.database = database
        writes = GroupCommittedWrites(policy: policy, clock: clock, maximumBatch: maximumBatch) { [policy] batch in
            try await Self.commit(batch, database: database, policy: policy)
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE charge (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    provider TEXT NOT NULL,
                    sku TEXT NOT NULL,
                    cost INTEGER NOT NULL,         -- micro-dollars counted against limits
                    list_price INTEGER NOT NULL,   -- micro-dollars before free allowances
                    state TEXT NOT NULL,           -- reserved | settled | refunded
                    day TEXT NOT NULL,             -- calendar day in the policy's zone
                    month TEXT NOT NULL,
                    created_at REAL NOT NULL
                );
                CREATE INDEX charge_month ON charge(month, provider);
                CREATE INDEX charge_day ON charge(day, provider);
                CREATE TABLE budget_limit (
                    scope TEXT NOT NULL,           -- a provider name, or '*' for overall
                    period TEXT NOT NULL,          -- day | month
                    amount INTEGER,                -- micro-dollars; NULL = unlimited
                    PRIMARY KEY (scope, period)
                );
                """)
        }
        return migrator
    }

    // MARK: Reserve, settle, refund

    public func reserve(provider: String, quote: PriceQuote) async throws -> ReservationOutcome {
        try await writes.reserve(provider: provider, quote: quote)
    }

    public func settle(_ reservation: Reservation) async throws { try await writes.settle(reservation) }

    public func refund(_ reservation: Reservation) async throws { try await writes.refund(reservation) }

    /// Runs one batch in one transaction; a reservation's answer for each `.reserve`, nil for the others.
    private static func commit(_ batch: [LedgerWrite], database: any DatabaseWriter, policy: BudgetPolicy) async throws -> [ReservationOutcome?] {
        try await database.writeWithoutTransaction { db in
            var outcomes: [ReservationOutcome?] = []
            try db.inTransaction(.immediate) {
                outcomes = []
                var totals = RunningTotals(policy: policy)
                for write in batch {
                    switch write {
                    case .settle(let id):
                        try db.execute(sql: "UPDATE charge SET state = 'settled' WHERE id = ? AND state = 'reserved'", arguments: [id])
                        outcomes.append(nil)
                    case .refund(let id):
                        try db.execute(sql: "UPDATE charge SET state = 'refunded' WHERE id = ?", arguments: [id])
                        totals.forget()  // the refunded charge's windows are unknown here: read them again
                        outcomes.append(nil)
                    case .reserve(let provider, let quote, let day, let month, let time):
                        outcomes.append(try totals.reserve(db, provider: provider, quote: quote, day: day, month: month, time: time))
                    }
                }
                return .commit
            }
            return outcomes
        }
    }

    /// One batch's view of the limits and of what each window has spent: read once per window inside the batch's
    /// transaction, then kept current as the batch grants, so a batch of N reservations does not sum the month's
    /// charges N times.
    private struct RunningTotals {
        let policy: BudgetPolicy
        private var spent: [String: MicroDollars] = [:]       // "scope|period|key"
        private var limits: [String: MicroDollars?] = [:]     // "scope|period"
        private var freeCallsUsed: [String: Int] = [:]        // "sku|month"

        init(policy: BudgetPolicy) { self.policy = policy }

        mutating func forget() {
            spent.removeAll()
            freeCallsUsed.removeAll()
        }

        mutating func reserve(_ db: Database, provider: String, quote: PriceQuote, day: String, month: String,
                              time: Date) throws -> ReservationOutcome {
            var cost = quote.cost
            let freeTierKey = "\(quote.sku)|\(month)"
            if let allowance = policy.freeCallsPerMonth[quote.sku], allowance > 0 {
                let used = try freeCallsUsed[freeTierKey] ?? Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM charge WHERE month = ? AND sku = ? AND state != 'refunded'
                    """, arguments: [month, quote.sku]) ?? 0
                freeCallsUsed[freeTierKey] = used + 1  // counted as a call whatever it costs, as the charge row will be
                if used < allowance { cost = .zero }
            }
            let windows: [(String?, BudgetPeriod, String)] = [
                (provider, .day, day), (provider, .month, month), (nil, .day, day), (nil, .month, month),
            ]
            if cost > .zero {
                for (scope, period, key) in windows {
                    let limitKey = "\(scope ?? "*")|\(period.rawValue)"
                    let limit = try limits[limitKey] ?? SQLiteBudgetLedger.limit(db, policy: policy, scope: scope, period: period)
                    limits[limitKey] = .some(limit)
                    guard let limit else { continue }
                    let already = try spentSoFar(db, scope: scope, period: period, key: key)
                    if already + cost > limit {
                        freeCallsUsed[freeTierKey]? -= 1  // denied: no charge row, no call
                        return .denied(BudgetDenial(limitedProvider: scope, period: period, limit: limit, spent: already, requested: cost))
                    }
                }
            }
            try db.execute(sql: """
                INSERT INTO charge (provider, sku, cost, list_price, state, day, month, created_at)
                VALUES (?, ?, ?, ?, 'reserved', ?, ?, ?)
                """, arguments: [provider, quote.sku, cost.value, quote.cost.value, day, month, time.timeIntervalSince1970])
            for (scope, period, key) in windows {
                let windowKey = "\(scope ?? "*")|\(period.rawValue)|\(key)"
                if let known = spent[windowKey] { spent[windowKey] = known + cost }
            }
            return .granted(Reservation(id: db.lastInsertedRowID, provider: provider, sku: quote.sku, cost: cost, listPrice: quote.cost))
        }

        private mutating func spentSoFar(_ db: Database, scope: String?, period: BudgetPeriod, key: String) throws -> MicroDollars {
            let windowKey = "\(scope ?? "*")|\(period.rawValue)|\(key)"
            if let known = spent[windowKey] { return known }
            let total = try SQLiteBudgetLedger.totals(db, provider: scope, period: period, key: key).spent
            spent[windowKey] = total
            return total
        }
    }

    /// What the non-refunded charges of one period add up to, and how many there are.
    private static func totals(_ db: Database, provider: String?, period: BudgetPeriod, key: String) throws -> (spent: MicroDollars, calls: Int) {
        let column = period == .day ? "day" : "month"
        var sql = "SELECT COALESCE(SUM(cost), 0), COUNT(*) FROM charge WHERE \(column) = ? AND state != 'refunded'"
        var arguments: StatementArguments = [key]
        if let provider {
            sql += " AND provider = ?"
            _ = arguments.append(contentsOf: [provider])
        }
        guard let row = try Row.fetchOne(db, sql: sql, arguments: arguments) else { return (.zero, 0) }
        return (MicroDollars(row[0] as Int64), row[1])
    }

    /// A limit set with `places budget set` wins over the configured one.
    private static func limit(_ db: Database, policy: BudgetPolicy, scope: String?, period: BudgetPeriod) throws -> MicroDollars? {
        if let row = try Row.fetchOne(db, sql: "SELECT amount FROM budget_limit WHERE scope = ? AND period = ?",
                                      arguments: [scope ?? "*", period.rawValue]) {
            return (row["amount"] as Int64?).map(MicroDollars.init)
        }
        let configured = scope.map { policy.providers[$0] ?? .unlimited } ?? policy.overall
        return period == .day ? configured.perDay : configured.perMonth
    }

    // MARK: Limits and reports

    public func setLimits(provider: String?, perDay: MicroDollars??, perMonth: MicroDollars??) async throws {
        try await database.write { db in
            for (period, value) in [(BudgetPeriod.day, perDay), (.month, perMonth)] {
                guard let value else { continue }
                try db.execute(sql: "INSERT OR REPLACE INTO budget_limit (scope, period, amount) VALUES (?, ?, ?)",
                               arguments: [provider ?? "*", period.rawValue, value?.value])
            }
        }
    }

    public func report() async throws -> BudgetReport {
        let (day, month) = policy.periodKeys(for: clock())
        return try await database.read { db in
            func figures(_ provider: String?, _ period: BudgetPeriod, _ key: String) throws -> BudgetReport.PeriodFigures {
                let (spent, calls) = try Self.totals(db, provider: provider, period: period, key: key)
                let limit = try Self.limit(db, policy: policy, scope: provider, period: period)
                return BudgetReport.PeriodFigures(
                    spent: spent, limit: limit, remaining: limit.map { max(.zero, $0 - spent) },
                    calls: calls)
            }
            var names = Set(policy.providers.keys)
            names.formUnion(try String.fetchAll(db, sql: "SELECT DISTINCT provider FROM charge WHERE month = ?", arguments: [month]))
            names.formUnion(try String.fetchAll(db, sql: "SELECT DISTINCT scope FROM budget_limit WHERE scope != '*'"))
            let providers = try names.sorted().map { name in
                let skus = Set(policy.freeCallsPerMonth.keys.filter { $0.hasPrefix(name + ".") })
                    .union(try String.fetchAll(db, sql: "SELECT DISTINCT sku FROM charge WHERE month = ? AND provider = ?",
                                               arguments: [month, name]))
                let free = try skus.sorted().compactMap { sku -> BudgetReport.FreeTierUse? in
                    guard let allowance = policy.freeCallsPerMonth[sku], allowance > 0 else { return nil }
                    let used = try Int.fetchOne(db, sql: """
                        SELECT COUNT(*) FROM charge WHERE month = ? AND sku = ? AND state != 'refunded'
                        """, arguments: [month, sku]) ?? 0
                    return BudgetReport.FreeTierUse(sku: sku, used: min(used, allowance), allowance: allowance)
                }
                return BudgetReport.ProviderFigures(provider: name, today: try figures(name, .day, day),
                                                    month: try figures(name, .month, month), freeTier: free)
            }
            return BudgetReport(day: day, month: month, timeZone: policy.timeZone.identifier,
                                overallToday: try figures(nil, .day, day), overallMonth: try figures(nil, .month, month),
                                providers: providers)
        }
    }
}
