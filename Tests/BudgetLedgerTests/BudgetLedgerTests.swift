import BudgetLedger
import Foundation
import PlacesCore
import StoreTestSupport
import Testing

private let googlePro = PriceQuote(sku: "google.places.search.pro", cost: .perThousand(dollars: 32))

@Suite("Budget ledger")
struct BudgetLedgerTests {
    @Test("a budget of N calls grants exactly N of 100 concurrent reservations")
    func concurrentTasks() async throws {
        let ledger = try BudgetLedger(path: temporaryDatabase("budget.sqlite"),
                                      policy: BudgetPolicy(providers: ["google": BudgetLimits(perDay: googlePro.cost * 7)]))
        let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    if case .granted = try ledger.reserve(provider: "google", quote: googlePro) { return true }
                    return false
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(granted == 7)
        #expect(try ledger.report().providers.first?.today.spent == googlePro.cost * 7)
    }

    /// Two independent connection pools on one file stand in for two processes: they share nothing
    /// but the SQLite file and its locks, exactly like two `places` processes.
    @Test("two ledgers on one file (as two processes) never overspend together")
    func twoPools() async throws {
        let path = temporaryDatabase("budget.sqlite")
        let policy = BudgetPolicy(overall: BudgetLimits(perMonth: googlePro.cost * 11))
        let first = try BudgetLedger(path: path, policy: policy)
        let second = try BudgetLedger(path: path, policy: policy)
        let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<100 {
                let ledger = i.isMultiple(of: 2) ? first : second
                group.addTask {
                    if case .granted = try ledger.reserve(provider: "google", quote: googlePro) { return true }
                    return false
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(granted == 11)
    }

    @Test("a refunded call gives its money back")
    func refund() throws {
        let ledger = try BudgetLedger(path: temporaryDatabase("budget.sqlite"),
                                      policy: BudgetPolicy(providers: ["google": BudgetLimits(perDay: googlePro.cost)]))
        guard case .granted(let reservation) = try ledger.reserve(provider: "google", quote: googlePro) else {
            Issue.record("first call should be granted")
            return
        }
        guard case .denied(let denial) = try ledger.reserve(provider: "google", quote: googlePro) else {
            Issue.record("second call should be denied")
            return
        }
        #expect(denial.limitedProvider == "google" && denial.period == .day)
        try ledger.refund(reservation)
        #expect(try ledger.report().providers.first?.today.spent == .zero)
        guard case .granted = try ledger.reserve(provider: "google", quote: googlePro) else {
            Issue.record("the refunded money should allow another call")
            return
        }
    }

    @Test("monthly free allowance per SKU is used before money")
    func freeAllowance() throws {
        let ledger = try BudgetLedger(path: temporaryDatabase("budget.sqlite"),
                                      policy: BudgetPolicy(freeCallsPerMonth: [googlePro.sku: 3]))
        var charged: [MicroDollars] = []
        for _ in 0..<5 {
            if case .granted(let r) = try ledger.reserve(provider: "google", quote: googlePro) { charged.append(r.cost) }
        }
        #expect(charged == [.zero, .zero, .zero, googlePro.cost, googlePro.cost])
        let report = try ledger.report()
        #expect(report.providers.first?.freeTier.first?.used == 3)
        #expect(report.overallMonth.spent == googlePro.cost * 2)
    }

    @Test("days are calendar days in the configured time zone")
    func dayBoundary() throws {
        let helsinki = TimeZone(identifier: "Europe/Helsinki")!
        // 2026-11-21 23:30 in Helsinki is 21:30 UTC.
        let clock = ManualClock(start: ISO8601DateFormatter().date(from: "2026-11-21T21:30:00Z")!)
        let ledger = try BudgetLedger(
            path: temporaryDatabase("budget.sqlite"),
            policy: BudgetPolicy(timeZone: helsinki, providers: ["google": BudgetLimits(perDay: googlePro.cost)]),
            clock: { clock.now })
        guard case .granted = try ledger.reserve(provider: "google", quote: googlePro) else {
            Issue.record("first call of the day should pass")
            return
        }
        #expect(try ledger.report().day == "2026-11-21")
        clock.advance(45 * 60)  // 00:15 next day in Helsinki, still 21 Nov in UTC
        #expect(try ledger.report().day == "2026-11-22")
        guard case .granted = try ledger.reserve(provider: "google", quote: googlePro) else {
            Issue.record("a new Helsinki day should reset the daily limit")
            return
        }
    }

    @Test("limits set with `budget set` override the configured ones")
    func setLimits() throws {
        let ledger = try BudgetLedger(path: temporaryDatabase("budget.sqlite"),
                                      policy: BudgetPolicy(providers: ["google": BudgetLimits(perDay: .zero)]))
        guard case .denied = try ledger.reserve(provider: "google", quote: googlePro) else {
            Issue.record("a zero budget denies")
            return
        }
        try ledger.setLimits(provider: "google", perDay: .some(MicroDollars(5_000_000)), perMonth: .some(MicroDollars(50_000_000)))
        guard case .granted = try ledger.reserve(provider: "google", quote: googlePro) else {
            Issue.record("raised limit should allow the call")
            return
        }
        let figures = try #require(try ledger.report().providers.first { $0.provider == "google" })
        #expect(figures.today.limit == MicroDollars(5_000_000))
        #expect(figures.month.remaining == MicroDollars(50_000_000) - googlePro.cost)
    }
}
