import BudgetLedger
import Foundation
import PlacesCore
import StoreTestSupport
import Testing

/// Google's Pro search SKU at $32 per 1,000 calls: $0.032, i.e. 32,000 micro-dollars a call.
private let googlePro = PriceQuote(sku: "google.places.search.pro", cost: MicroDollars(32_000))
/// Yelp at $9.99 per 1,000 calls: 9,990 micro-dollars.
private let yelpCall = PriceQuote(sku: "yelp.call", cost: MicroDollars(9_990))
private let helsinki = TimeZone(identifier: "Europe/Helsinki")!
private let losAngeles = TimeZone(identifier: "America/Los_Angeles")!

private func instant(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso)! }

/// Reserves and returns the grant, recording an issue (and returning nil) when it was denied.
private func granted(_ ledger: any BudgetLedger, _ provider: String, _ quote: PriceQuote,
                     sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reservation? {
    switch try await ledger.reserve(provider: provider, quote: quote) {
    case .granted(let reservation): return reservation
    case .denied(let denial):
        Issue.record("expected a grant, got a denial: \(denial)", sourceLocation: sourceLocation)
        return nil
    }
}

private func denial(_ ledger: any BudgetLedger, _ provider: String, _ quote: PriceQuote,
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> BudgetDenial? {
    switch try await ledger.reserve(provider: provider, quote: quote) {
    case .granted:
        Issue.record("expected a denial, got a grant", sourceLocation: sourceLocation)
        return nil
    case .denied(let denial): return denial
    }
}

/// Reserves concurrently from `ledgers` in turn and counts the grants.
private func grants(of count: Int, from ledgers: [any BudgetLedger], provider: String, quote: PriceQuote) async throws -> Int {
    try await withThrowingTaskGroup(of: Bool.self) { group in
        for i in 0..<count {
            let ledger = ledgers[i % ledgers.count]
            group.addTask {
                if case .granted = try await ledger.reserve(provider: provider, quote: quote) { return true }
                return false
            }
        }
        return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
}

/// What every paid call relies on from any budget ledger (see ``BudgetLedger``).
/// Every test runs once per implementation in ``BudgetLedgerImplementation/all``.
@Suite("Budget ledger contract")
struct BudgetLedgerContract {
    @Test("a budget of N calls grants exactly N of 100 concurrent reservations", arguments: BudgetLedgerImplementation.all)
    func concurrentReservations(_ implementation: BudgetLedgerImplementation) async throws {
        let ledger = try await implementation.make(BudgetPolicy(providers: ["google": BudgetLimits(perDay: MicroDollars(7 * 32_000))]))
        #expect(try await grants(of: 100, from: [ledger], provider: "google", quote: googlePro) == 7)
        let figures = try #require(try await ledger.report().providers.first { $0.provider == "google" })
        #expect(figures.today.spent == MicroDollars(224_000) && figures.today.calls == 7)
        #expect(figures.today.remaining == .zero)
    }

    /// Independent handles share nothing but the storage, exactly like two `places` processes (or two hosts).
    @Test("two ledgers on one store (as two processes) never overspend together", arguments: BudgetLedgerImplementation.all)
    func twoHandles(_ implementation: BudgetLedgerImplementation) async throws {
        let open = try await implementation.freshStorage()
        let policy = BudgetPolicy(overall: BudgetLimits(perMonth: MicroDollars(11 * 32_000)))
        let first = try await open(policy, { Date() })
        let second = try await open(policy, { Date() })
        #expect(try await grants(of: 100, from: [first, second], provider: "google", quote: googlePro) == 11)
        #expect(try await first.report().overallMonth.spent == MicroDollars(352_000))
        #expect(try await second.report().overallMonth.calls == 11)
    }

    @Test("a call that reaches the limit exactly is allowed; the next is denied with the figures", arguments: BudgetLedgerImplementation.all)
    func limitAndDenial(_ implementation: BudgetLedgerImplementation) async throws {
        let ledger = try await implementation.make(BudgetPolicy(providers: ["google": BudgetLimits(perDay: MicroDollars(64_000))]))
        _ = try await granted(ledger, "google", googlePro)
        _ = try await granted(ledger, "google", googlePro)
        let why = try #require(try await denial(ledger, "google", googlePro))
        #expect(why == BudgetDenial(limitedProvider: "google", period: .day, limit: MicroDollars(64_000),
                                    spent: MicroDollars(64_000), requested: MicroDollars(32_000)))
        // Another provider is not limited by Google's cap.
        _ = try await granted(ledger, "yelp", yelpCall)
    }

    @Test("the overall limit counts every provider; per-month limits hold across days", arguments: BudgetLedgerImplementation.all)
    func overallAndMonth(_ implementation: BudgetLedgerImplementation) async throws {
        let clock = ManualClock(start: instant("2026-11-10T12:00:00Z"))
        let policy = BudgetPolicy(timeZone: helsinki, overall: BudgetLimits(perDay: MicroDollars(50_000)),
                                  providers: ["yelp": BudgetLimits(perMonth: MicroDollars(3 * 9_990))])
        let ledger = try await implementation.make(policy, clock: { clock.now })
        _ = try await granted(ledger, "google", googlePro)   // 32,000 of the 50,000 overall today
        _ = try await granted(ledger, "yelp", yelpCall)      // 41,990
        let overall = try #require(try await denial(ledger, "yelp", yelpCall))  // 51,980 > 50,000
        #expect(overall.limitedProvider == nil && overall.period == .day && overall.spent == MicroDollars(41_990))
        clock.advance(86_400)
        _ = try await granted(ledger, "yelp", yelpCall)
        _ = try await granted(ledger, "yelp", yelpCall)      // Yelp's third call this month
        let monthly = try #require(try await denial(ledger, "yelp", yelpCall))
        #expect(monthly.limitedProvider == "yelp" && monthly.period == .month && monthly.limit == MicroDollars(29_970))
        let report = try await ledger.report()
        #expect(report.overallToday.spent == MicroDollars(19_980) && report.overallMonth.spent == MicroDollars(61_970))
        #expect(report.overallToday.limit == MicroDollars(50_000) && report.overallToday.remaining == MicroDollars(30_020))
    }

    @Test("a refunded call gives its money back; a settled one keeps it", arguments: BudgetLedgerImplementation.all)
    func settleAndRefund(_ implementation: BudgetLedgerImplementation) async throws {
        let ledger = try await implementation.make(BudgetPolicy(providers: ["google": BudgetLimits(perDay: MicroDollars(64_000))]))
        let kept = try #require(try await granted(ledger, "google", googlePro))
        try await ledger.settle(kept)
        let failed = try #require(try await granted(ledger, "google", googlePro))
        _ = try await denial(ledger, "google", googlePro)
        try await ledger.refund(failed)
        try await ledger.refund(failed)  // idempotent
        var figures = try #require(try await ledger.report().providers.first { $0.provider == "google" })
        #expect(figures.today.spent == MicroDollars(32_000) && figures.today.calls == 1)
        let again = try #require(try await granted(ledger, "google", googlePro))
        try await ledger.settle(again)
        try await ledger.settle(again)  // idempotent
        figures = try #require(try await ledger.report().providers.first { $0.provider == "google" })
        #expect(figures.today.spent == MicroDollars(64_000) && figures.today.calls == 2)
    }

    @Test("a reservation never settled nor refunded stays counted", arguments: BudgetLedgerImplementation.all)
    func danglingReservationCounts(_ implementation: BudgetLedgerImplementation) async throws {
        let open = try await implementation.freshStorage()
        let policy = BudgetPolicy(providers: ["google": BudgetLimits(perDay: MicroDollars(32_000))])
        let crashed = try await open(policy, { Date() })
        _ = try await granted(crashed, "google", googlePro)
        let restarted = try await open(policy, { Date() })
        _ = try await denial(restarted, "google", googlePro)
    }

    @Test("a monthly free allowance per SKU is used before money; a refund returns the free call", arguments: BudgetLedgerImplementation.all)
    func freeAllowance(_ implementation: BudgetLedgerImplementation) async throws {
        let ledger = try await implementation.make(BudgetPolicy(providers: ["google": BudgetLimits(perDay: MicroDollars(32_000))],
                                                                freeCallsPerMonth: [googlePro.sku: 3]))
        var free: [Reservation] = []
        for _ in 0..<3 {
            if let grant = try await granted(ledger, "google", googlePro) { free.append(grant) }
        }
        #expect(free.map(\.cost) == [.zero, .zero, .zero])
        #expect(free.allSatisfy { $0.isFree && $0.listPrice == MicroDollars(32_000) })
        // A refunded call did not happen: the allowance has room for one more free call.
        try await ledger.refund(free[0])
        #expect(try await granted(ledger, "google", googlePro)?.cost == .zero)
        // The allowance is used up: the next call costs money, and fills the one-call daily limit.
        #expect(try await granted(ledger, "google", googlePro)?.cost == MicroDollars(32_000))
        _ = try await denial(ledger, "google", googlePro)
        let report = try await ledger.report()
        let google = try #require(report.providers.first { $0.provider == "google" })
        #expect(google.freeTier == [BudgetReport.FreeTierUse(sku: googlePro.sku, used: 3, allowance: 3)])
        #expect(google.today.calls == 4 && report.overallMonth.spent == MicroDollars(32_000))
    }

    @Test("a free call is granted without being recorded", arguments: BudgetLedgerImplementation.all)
    func freeCalls(_ implementation: BudgetLedgerImplementation) async throws {
        let ledger = try await implementation.make(BudgetPolicy(overall: BudgetLimits(perDay: .zero)))
        let grant = try #require(try await granted(ledger, "local", .free))
        #expect(grant.id == 0 && grant.cost == .zero)
        try await ledger.settle(grant)
        try await ledger.refund(grant)
        let report = try await ledger.report()
        #expect(report.overallToday.calls == 0 && report.providers.isEmpty)
    }

    @Test("days are calendar days in the configured time zone (Helsinki: UTC+2 in November)", arguments: BudgetLedgerImplementation.all)
    func dayBoundaryEastOfUTC(_ implementation: BudgetLedgerImplementation) async throws {
        // 2026-11-21 23:30 in Helsinki is 21:30 UTC.
        let clock = ManualClock(start: instant("2026-11-21T21:30:00Z"))
        let ledger = try await implementation.make(
            BudgetPolicy(timeZone: helsinki, providers: ["google": BudgetLimits(perDay: MicroDollars(32_000))]),
            clock: { clock.now })
        _ = try await granted(ledger, "google", googlePro)
        #expect(try await ledger.report().day == "2026-11-21")
        _ = try await denial(ledger, "google", googlePro)
        clock.advance(45 * 60)  // 00:15 on the 22nd in Helsinki, still the 21st in UTC
        let report = try await ledger.report()
        #expect(report.day == "2026-11-22" && report.timeZone == "Europe/Helsinki")
        _ = try await granted(ledger, "google", googlePro)
    }

    @Test("west of UTC the day has not turned when UTC's has (Los Angeles: UTC−8)", arguments: BudgetLedgerImplementation.all)
    func dayBoundaryWestOfUTC(_ implementation: BudgetLedgerImplementation) async throws {
        // 2026-11-21 15:30 in Los Angeles is 23:30 UTC; an hour later UTC is on the 22nd, Los Angeles is not.
        let clock = ManualClock(start: instant("2026-11-21T23:30:00Z"))
        let ledger = try await implementation.make(
            BudgetPolicy(timeZone: losAngeles, providers: ["google": BudgetLimits(perDay: MicroDollars(32_000))]),
            clock: { clock.now })
        _ = try await granted(ledger, "google", googlePro)
        clock.advance(60 * 60)
        #expect(try await ledger.report().day == "2026-11-21")
        _ = try await denial(ledger, "google", googlePro)
        clock.advance(8 * 60 * 60)  // 00:30 on the 22nd in Los Angeles
        _ = try await granted(ledger, "google", googlePro)
    }

    @Test("months turn at midnight of the 1st in the configured zone", arguments: BudgetLedgerImplementation.all)
    func monthBoundary(_ implementation: BudgetLedgerImplementation) async throws {
        // 2026-11-30 23:50 in Helsinki is 21:50 UTC.
        let clock = ManualClock(start: instant("2026-11-30T21:50:00Z"))
        let ledger = try await implementation.make(
            BudgetPolicy(timeZone: helsinki, overall: BudgetLimits(perMonth: MicroDollars(32_000)), freeCallsPerMonth: ["yelp.call": 1]),
            clock: { clock.now })
        _ = try await granted(ledger, "google", googlePro)
        let free = try #require(try await granted(ledger, "yelp", yelpCall))
        #expect(free.cost == .zero)
        #expect(try await ledger.report().month == "2026-11")
        _ = try await denial(ledger, "google", googlePro)
        clock.advance(20 * 60)  // 00:10 on 1 December in Helsinki, still November in UTC
        let report = try await ledger.report()
        #expect(report.month == "2026-12" && report.day == "2026-12-01" && report.overallMonth.spent == .zero)
        _ = try await granted(ledger, "google", googlePro)
        // The free tier is per month too.
        #expect(try await granted(ledger, "yelp", yelpCall)?.cost == .zero)
    }

    @Test("limits set with `budget set` override the configured ones; .some(nil) lifts a cap", arguments: BudgetLedgerImplementation.all)
    func setLimits(_ implementation: BudgetLedgerImplementation) async throws {
        let ledger = try await implementation.make(BudgetPolicy(providers: ["google": BudgetLimits(perDay: .zero)]))
        _ = try await denial(ledger, "google", googlePro)
        try await ledger.setLimits(provider: "google", perDay: .some(MicroDollars(5_000_000)), perMonth: .some(MicroDollars(50_000_000)))
        _ = try await granted(ledger, "google", googlePro)
        var figures = try #require(try await ledger.report().providers.first { $0.provider == "google" })
        #expect(figures.today.limit == MicroDollars(5_000_000))
        #expect(figures.month.remaining == MicroDollars(49_968_000))
        // A nil period is left as it was.
        try await ledger.setLimits(provider: "google", perDay: .some(MicroDollars(32_000)), perMonth: .none)
        figures = try #require(try await ledger.report().providers.first { $0.provider == "google" })
        #expect(figures.today.limit == MicroDollars(32_000) && figures.month.limit == MicroDollars(50_000_000))
        _ = try await denial(ledger, "google", googlePro)
        // .some(nil) stores "no cap", which wins over the configured zero too.
        try await ledger.setLimits(provider: "google", perDay: .some(nil), perMonth: .some(nil))
        _ = try await granted(ledger, "google", googlePro)
        figures = try #require(try await ledger.report().providers.first { $0.provider == "google" })
        #expect(figures.today.limit == nil && figures.today.remaining == nil)
        // The overall scope.
        try await ledger.setLimits(provider: nil, perDay: .some(MicroDollars(64_000)), perMonth: .none)
        #expect(try await ledger.report().overallToday.limit == MicroDollars(64_000))
        let overall = try #require(try await denial(ledger, "yelp", yelpCall))
        #expect(overall.limitedProvider == nil)
    }

    @Test("the report lists configured, limited and spending providers in name order", arguments: BudgetLedgerImplementation.all)
    func reportProviders(_ implementation: BudgetLedgerImplementation) async throws {
        let ledger = try await implementation.make(BudgetPolicy(timeZone: helsinki, providers: ["yelp": BudgetLimits(perDay: MicroDollars(1_000_000))]))
        try await ledger.setLimits(provider: "foursquare", perDay: .none, perMonth: .some(MicroDollars(2_000_000)))
        _ = try await granted(ledger, "google", googlePro)
        let report = try await ledger.report()
        #expect(report.providers.map(\.provider) == ["foursquare", "google", "yelp"])
        #expect(report.providers[0].month.limit == MicroDollars(2_000_000) && report.providers[0].month.calls == 0)
        #expect(report.providers[1].today.spent == MicroDollars(32_000) && report.providers[1].today.limit == nil)
        #expect(report.providers[2].today.remaining == MicroDollars(1_000_000))
    }
}
