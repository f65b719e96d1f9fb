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
    private let pool: DatabasePool
    private let clock: @Sendable () -> Date

    public init(path: URL, policy: BudgetPolicy = BudgetPolicy(), clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.path = path
        self.policy = policy
        self.clock = clock
        var config = Configuration()
        // Another process may hold the write lock for a moment; wait rather than fail.
        config.busyMode = .timeout(30)
        pool = try StoreDatabase.open(name: "budget ledger", path: path, configuration: config, migrator: Self.migrator)
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
        guard quote.cost > .zero else {
            return .granted(Reservation(id: 0, provider: provider, sku: quote.sku, cost: .zero, listPrice: .zero))
        }
        let now = clock()
        let (day, month) = policy.periodKeys(for: now)
        return try await pool.writeWithoutTransaction { db in
            var outcome: ReservationOutcome!
            try db.inTransaction(.immediate) {
                var cost = quote.cost
                if let allowance = policy.freeCallsPerMonth[quote.sku], allowance > 0 {
                    let used = try Int.fetchOne(db, sql: """
                        SELECT COUNT(*) FROM charge WHERE month = ? AND sku = ? AND state != 'refunded'
                        """, arguments: [month, quote.sku]) ?? 0
                    if used < allowance { cost = .zero }
                }
                if cost > .zero, let denial = try self.denial(db, provider: provider, cost: cost, day: day, month: month) {
                    outcome = .denied(denial)
                    return .commit
                }
                try db.execute(sql: """
                    INSERT INTO charge (provider, sku, cost, list_price, state, day, month, created_at)
                    VALUES (?, ?, ?, ?, 'reserved', ?, ?, ?)
                    """, arguments: [provider, quote.sku, cost.value, quote.cost.value, day, month, now.timeIntervalSince1970])
                outcome = .granted(Reservation(id: db.lastInsertedRowID, provider: provider, sku: quote.sku,
                                               cost: cost, listPrice: quote.cost))
                return .commit
            }
            return outcome
        }
    }

    private func denial(_ db: Database, provider: String, cost: MicroDollars, day: String, month: String) throws -> BudgetDenial? {
        let checks: [(String?, BudgetPeriod, String)] = [
            (provider, .day, day), (provider, .month, month), (nil, .day, day), (nil, .month, month),
        ]
        for (scope, period, key) in checks {
            guard let limit = try limit(db, scope: scope, period: period) else { continue }
            let spent = try totals(db, provider: scope, period: period, key: key).spent
            if spent + cost > limit {
                return BudgetDenial(limitedProvider: scope, period: period, limit: limit, spent: spent, requested: cost)
            }
        }
        return nil
    }

    /// What the non-refunded charges of one period add up to, and how many there are.
    private func totals(_ db: Database, provider: String?, period: BudgetPeriod, key: String) throws -> (spent: MicroDollars, calls: Int) {
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
    private func limit(_ db: Database, scope: String?, period: BudgetPeriod) throws -> MicroDollars? {
        if let row = try Row.fetchOne(db, sql: "SELECT amount FROM budget_limit WHERE scope = ? AND period = ?",
                                      arguments: [scope ?? "*", period.rawValue]) {
            return (row["amount"] as Int64?).map(MicroDollars.init)
        }
        let configured = scope.map { policy.providers[$0] ?? .unlimited } ?? policy.overall
        return period == .day ? configured.perDay : configured.perMonth
    }

    public func settle(_ reservation: Reservation) async throws {
        guard reservation.id > 0 else { return }
        try await pool.write { db in
            try db.execute(sql: "UPDATE charge SET state = 'settled' WHERE id = ? AND state = 'reserved'",
                           arguments: [reservation.id])
        }
    }

    public func refund(_ reservation: Reservation) async throws {
        guard reservation.id > 0 else { return }
        try await pool.write { db in
            try db.execute(sql: "UPDATE charge SET state = 'refunded' WHERE id = ?", arguments: [reservation.id])
        }
    }

    // MARK: Limits and reports

    public func setLimits(provider: String?, perDay: MicroDollars??, perMonth: MicroDollars??) async throws {
        try await pool.write { db in
            for (period, value) in [(BudgetPeriod.day, perDay), (.month, perMonth)] {
                guard let value else { continue }
                try db.execute(sql: "INSERT OR REPLACE INTO budget_limit (scope, period, amount) VALUES (?, ?, ?)",
                               arguments: [provider ?? "*", period.rawValue, value?.value])
            }
        }
    }

    public func report() async throws -> BudgetReport {
        let (day, month) = policy.periodKeys(for: clock())
        return try await pool.read { db in
            func figures(_ provider: String?, _ period: BudgetPeriod, _ key: String) throws -> BudgetReport.PeriodFigures {
                let (spent, calls) = try totals(db, provider: provider, period: period, key: key)
                let limit = try limit(db, scope: provider, period: period)
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
