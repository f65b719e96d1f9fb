import Foundation
import GRDB
import PlacesCore
import StoreSupport

/// The money ledger: every paid call is reserved here before it is made.
///
/// A reservation checks the limits and records the charge in one `BEGIN IMMEDIATE` transaction, so
/// the check and the write cannot interleave with another task's or another process's: with a
/// budget of N calls, exactly N reservations succeed however many race for them. A call that fails
/// without being billed is refunded; one that never returns (a crash) stays counted, which errs on
/// the side of the user's wallet.
///
/// ```swift
/// let ledger = try BudgetLedger(path: env.budgetDatabase, policy: policy)
/// switch try ledger.reserve(provider: "google", quote: google.price(of: .match, fields: fields)) {
/// case .granted(let reservation): … call … try ledger.settle(reservation) or ledger.refund(reservation)
/// case .denied(let why): … skip google, flag budget_exhausted …
/// }
/// ```
public final class BudgetLedger: Sendable {
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

    /// Reserves the price of one call, or says which limit forbids it. Free calls (price zero) are
    /// granted without touching the database.
    public func reserve(provider: String, quote: PriceQuote) throws -> ReservationOutcome {
        guard quote.cost > .zero else {
            return .granted(Reservation(id: 0, provider: provider, sku: quote.sku, cost: .zero, listPrice: .zero))
        }
        let now = clock()
        let (day, month) = policy.periodKeys(for: now)
        return try pool.writeWithoutTransaction { db in
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
            let spent = try spent(db, provider: scope, period: period, key: key)
            if spent + cost > limit {
                return BudgetDenial(limitedProvider: scope, period: period, limit: limit, spent: spent, requested: cost)
            }
        }
        return nil
    }

    private func spent(_ db: Database, provider: String?, period: BudgetPeriod, key: String) throws -> MicroDollars {
        let column = period == .day ? "day" : "month"
        var sql = "SELECT COALESCE(SUM(cost), 0) FROM charge WHERE \(column) = ? AND state != 'refunded'"
        var arguments: StatementArguments = [key]
        if let provider {
            sql += " AND provider = ?"
            _ = arguments.append(contentsOf: [provider])
        }
        return MicroDollars(try Int64.fetchOne(db, sql: sql, arguments: arguments) ?? 0)
    }

    private func calls(_ db: Database, provider: String?, period: BudgetPeriod, key: String) throws -> Int {
        let column = period == .day ? "day" : "month"
        var sql = "SELECT COUNT(*) FROM charge WHERE \(column) = ? AND state != 'refunded'"
        var arguments: StatementArguments = [key]
        if let provider {
            sql += " AND provider = ?"
            _ = arguments.append(contentsOf: [provider])
        }
        return try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
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

    /// The call was answered: the charge stays.
    public func settle(_ reservation: Reservation) throws {
        guard reservation.id > 0 else { return }
        try pool.write { db in
            try db.execute(sql: "UPDATE charge SET state = 'settled' WHERE id = ? AND state = 'reserved'",
                           arguments: [reservation.id])
        }
    }

    /// The call failed and the provider does not bill failures: the money (and the free-tier call) comes back.
    public func refund(_ reservation: Reservation) throws {
        guard reservation.id > 0 else { return }
        try pool.write { db in
            try db.execute(sql: "UPDATE charge SET state = 'refunded' WHERE id = ?", arguments: [reservation.id])
        }
    }

    // MARK: Limits and reports

    /// Persists limits for one provider (or overall when `provider` is nil); a `nil` period is left as it was.
    /// Pass `.some(nil)` to remove a cap.
    public func setLimits(provider: String?, perDay: MicroDollars?? = .none, perMonth: MicroDollars?? = .none) throws {
        try pool.write { db in
            for (period, value) in [(BudgetPeriod.day, perDay), (.month, perMonth)] {
                guard let value else { continue }
                try db.execute(sql: "INSERT OR REPLACE INTO budget_limit (scope, period, amount) VALUES (?, ?, ?)",
                               arguments: [provider ?? "*", period.rawValue, value?.value])
            }
        }
    }

    /// Today's and this month's figures for every provider that is configured, limited or has spent.
    public func report() throws -> BudgetReport {
        let (day, month) = policy.periodKeys(for: clock())
        return try pool.read { db in
            func figures(_ provider: String?, _ period: BudgetPeriod, _ key: String) throws -> BudgetReport.PeriodFigures {
                let spent = try spent(db, provider: provider, period: period, key: key)
                let limit = try limit(db, scope: provider, period: period)
                return BudgetReport.PeriodFigures(
                    spent: spent, limit: limit, remaining: limit.map { max(.zero, $0 - spent) },
                    calls: try calls(db, provider: provider, period: period, key: key))
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
