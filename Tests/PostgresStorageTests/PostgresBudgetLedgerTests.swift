import BudgetLedger
import Foundation
import PlacesCore
import PostgresStorage
import PostgresTestCluster
import Testing

/// Expected figures are worked out by hand in the comments: micro-dollars, Helsinki is UTC+2 in November.
@Suite(.needsPostgres) struct PostgresBudgetLedgerTests {
    let search = PriceQuote(sku: "google.places.text", cost: MicroDollars(10_000))

    @Test func exactlyNReservationsSucceedAcrossTwoPoolsRacing() async throws {
        let url = try await PostgresTestCluster.freshDatabase()
        // Two pools: two processes as far as PostgreSQL can tell.
        let first = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 8, timeout: testTimeout))
        let second = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 8, timeout: testTimeout))
        defer { first.close(); second.close() }
        // 50,000 a day at 10,000 a call: 5 calls.
        let policy = BudgetPolicy(timeZone: TimeZone(identifier: "Europe/Helsinki")!,
                                  providers: ["google": BudgetLimits(perDay: MicroDollars(50_000))])
        let ledgers = [PostgresBudgetLedger(database: first, policy: policy), PostgresBudgetLedger(database: second, policy: policy)]
        let quote = search
        let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<40 {
                group.addTask {
                    if case .granted = try await ledgers[index % 2].reserve(provider: "google", quote: quote) { return true }
                    return false
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(granted == 5)
        let report = try await ledgers[0].report()
        #expect(report.overallToday.spent == MicroDollars(50_000))
        #expect(report.overallToday.calls == 5)
    }

    @Test func daysAndMonthsAreTheConfiguredZones() async throws {
        try await withFreshDatabase { database in
            // 21:30 UTC on 21 November is 23:30 in Helsinki; 22:30 UTC is already 00:30 on the 22nd there.
            let clock = TestClock(instant("2026-11-21T21:30:00Z"))
            let policy = BudgetPolicy(timeZone: TimeZone(identifier: "Europe/Helsinki")!,
                                      providers: ["google": BudgetLimits(perDay: MicroDollars(20_000), perMonth: MicroDollars(30_000))])
            let ledger = PostgresBudgetLedger(database: database, policy: policy, clock: clock.function)
            #expect(try await ledger.reserve(provider: "google", quote: search).isGranted)
            #expect(try await ledger.reserve(provider: "google", quote: search).isGranted)
            #expect(try await ledger.reserve(provider: "google", quote: search) == .denied(BudgetDenial(
                limitedProvider: "google", period: .day, limit: MicroDollars(20_000), spent: MicroDollars(20_000),
                requested: MicroDollars(10_000))))
            clock.set(instant("2026-11-21T22:30:00Z"))
            #expect(try await ledger.reserve(provider: "google", quote: search).isGranted)
            #expect(try await ledger.reserve(provider: "google", quote: search) == .denied(BudgetDenial(
                limitedProvider: "google", period: .month, limit: MicroDollars(30_000), spent: MicroDollars(30_000),
                requested: MicroDollars(10_000))))
            let report = try await ledger.report()
            #expect(report.day == "2026-11-22")
            #expect(report.month == "2026-11")
            #expect(report.timeZone == "Europe/Helsinki")
            let google = try #require(report.providers.first { $0.provider == "google" })
            #expect(google.today == BudgetReport.PeriodFigures(spent: MicroDollars(10_000), limit: MicroDollars(20_000),
                                                              remaining: MicroDollars(10_000), calls: 1))
            #expect(google.month == BudgetReport.PeriodFigures(spent: MicroDollars(30_000), limit: MicroDollars(30_000),
                                                              remaining: .zero, calls: 3))
        }
    }

    @Test func refundGivesTheMoneyBackAndSettleKeepsIt() async throws {
        try await withFreshDatabase { database in
            let policy = BudgetPolicy(timeZone: TimeZone(identifier: "UTC")!, overall: BudgetLimits(perDay: MicroDollars(20_000)))
            let ledger = PostgresBudgetLedger(database: database, policy: policy)
            guard case .granted(let first) = try await ledger.reserve(provider: "yelp", quote: search),
                  case .granted(let second) = try await ledger.reserve(provider: "google", quote: search) else {
                Issue.record("the first two calls fit the overall 20,000")
                return
            }
            // Overall limit reached by two providers together: the denial names no provider.
            #expect(try await ledger.reserve(provider: "google", quote: search) == .denied(BudgetDenial(
                limitedProvider: nil, period: .day, limit: MicroDollars(20_000), spent: MicroDollars(20_000), requested: MicroDollars(10_000))))
            try await ledger.settle(first)
            try await ledger.refund(second)
            try await ledger.refund(second)  // twice is once
            #expect(try await ledger.report().overallToday.spent == MicroDollars(10_000))
            #expect(try await ledger.reserve(provider: "google", quote: search).isGranted)
            #expect(try await ledger.report().overallToday.spent == MicroDollars(20_000))
        }
    }

    @Test func freeAllowanceIsCountedPerSkuAndMonth() async throws {
        try await withFreshDatabase { database in
            let policy = BudgetPolicy(timeZone: TimeZone(identifier: "UTC")!, freeCallsPerMonth: ["google.places.text": 2])
            let ledger = PostgresBudgetLedger(database: database, policy: policy)
            var costs: [MicroDollars] = []
            for _ in 0..<3 {
                guard case .granted(let reservation) = try await ledger.reserve(provider: "google", quote: search) else {
                    Issue.record("no limit is set")
                    return
                }
                costs.append(reservation.cost)
            }
            #expect(costs == [.zero, .zero, MicroDollars(10_000)])
            let google = try #require(try await ledger.report().providers.first { $0.provider == "google" })
            #expect(google.freeTier == [BudgetReport.FreeTierUse(sku: "google.places.text", used: 2, allowance: 2)])
            #expect(google.month.calls == 3)
            #expect(google.month.spent == MicroDollars(10_000))
        }
    }

    @Test func limitsSetByCommandWinOverConfigurationAndCanBeRemoved() async throws {
        try await withFreshDatabase { database in
            let policy = BudgetPolicy(timeZone: TimeZone(identifier: "UTC")!, providers: ["google": BudgetLimits(perDay: MicroDollars(50_000))])
            let ledger = PostgresBudgetLedger(database: database, policy: policy)
            try await ledger.setLimits(provider: "google", perDay: .some(MicroDollars(10_000)))
            #expect(try await ledger.reserve(provider: "google", quote: search).isGranted)
            #expect(!(try await ledger.reserve(provider: "google", quote: search).isGranted))
            try await ledger.setLimits(provider: "google", perDay: .some(nil))
            #expect(try await ledger.reserve(provider: "google", quote: search).isGranted)
            let google = try #require(try await ledger.report().providers.first { $0.provider == "google" })
            #expect(google.today.limit == nil)
        }
    }

    @Test func reservationsOlderThanTheProviderTimeoutAreRefunded() async throws {
        try await withFreshDatabase { database in
            let clock = TestClock(instant("2026-11-22T10:00:00Z"))
            let policy = BudgetPolicy(timeZone: TimeZone(identifier: "UTC")!, providers: ["google": BudgetLimits(perDay: MicroDollars(10_000))])
            let ledger = PostgresBudgetLedger(database: database, policy: policy, clock: clock.function)
            guard case .granted(let settled) = try await ledger.reserve(provider: "google", quote: search) else {
                Issue.record("the first call fits")
                return
            }
            try await ledger.settle(settled)
            try await ledger.setLimits(provider: "google", perDay: .some(MicroDollars(20_000)))
            #expect(try await ledger.reserve(provider: "google", quote: search).isGranted)  // never settled: its process "died"
            clock.advance(by: 30)
            #expect(try await ledger.refundDangling(olderThan: 60) == 0)
            clock.advance(by: 60)
            #expect(try await ledger.refundDangling(olderThan: 60) == 1)
            // The settled call stays; the dangling one's 10,000 is free again.
            #expect(try await ledger.report().overallToday.spent == MicroDollars(10_000))
            #expect(try await ledger.reserve(provider: "google", quote: search).isGranted)
        }
    }
}

extension ReservationOutcome {
    var isGranted: Bool {
        if case .granted = self { return true }
        return false
    }
}
