import BudgetLedger
import Foundation
import PlacesCore
import StoreTestSupport
import Testing

/// Random sequences of what the lookup pipeline and `places budget` do to the ledger, on every implementation,
/// checked after each step against a model written from ``BudgetLedger``'s contract: reservations granted or denied
/// (by the first limit that fails, with its figures), free allowances used before money, settles and refunds (twice
/// too), limits set and lifted, and the clock crossing days and a month in Helsinki. No call may be granted that the
/// model denies, nor the other way round, and the report must give the model's figures. (150 seeds on SQLite and
/// PostgreSQL pass, with every kind of denial and free-tier grants among their steps; run more to search further.)
@Suite struct BudgetLedgerModelTests {
    static let helsinki = TimeZone(identifier: "Europe/Helsinki")!
    static let quotes: [(provider: String, quote: PriceQuote)] = [
        ("google", PriceQuote(sku: "google.places.search.pro", cost: MicroDollars(32_000))),
        ("google", PriceQuote(sku: "google.places.details.essentials", cost: MicroDollars(5_000))),
        ("yelp", PriceQuote(sku: "yelp.call", cost: MicroDollars(9_990))),
        ("local", .free),
    ]

    /// What the ledger must hold.
    struct Model {
        enum State { case open, settled, refunded }
        struct Charge {
            var provider: String
            var sku: String
            var cost: MicroDollars
            var day: String
            var month: String
            var state: State
        }
        var policy: BudgetPolicy
        var charges: [Charge] = []
        /// Limits set with `setLimits`, by scope ("*" overall) and period: `.some(nil)` is "no cap".
        var setLimits: [String: MicroDollars?] = [:]

        func limit(_ scope: String?, _ period: BudgetPeriod) -> MicroDollars? {
            if let set = setLimits["\(scope ?? "*")|\(period)"] { return set }
            let configured = scope.map { policy.providers[$0] ?? .unlimited } ?? policy.overall
            return period == .day ? configured.perDay : configured.perMonth
        }

        /// The charges of `scope` (every provider when `nil`) in the period `key`, refunded ones left out.
        func standing(_ scope: String?, _ period: BudgetPeriod, _ key: String) -> [Charge] {
            charges.filter { charge in
                charge.state != .refunded && (scope == nil || charge.provider == scope)
                    && (period == .day ? charge.day : charge.month) == key
            }
        }

        /// Calls of `sku` this month that count against its free allowance: every one not refunded, free or paid.
        func freeTierCalls(_ sku: String, _ month: String) -> Int {
            charges.filter { $0.sku == sku && $0.month == month && $0.state != .refunded }.count
        }

        func figures(_ scope: String?, _ period: BudgetPeriod, _ key: String) -> BudgetReport.PeriodFigures {
            let charges = standing(scope, period, key)
            let spent = charges.map(\.cost).reduce(.zero, +)
            let limit = limit(scope, period)
            return BudgetReport.PeriodFigures(spent: spent, limit: limit, remaining: limit.map { max(.zero, $0 - spent) },
                                              calls: charges.count)
        }

        enum Outcome { case granted(cost: MicroDollars), denied(BudgetDenial) }

        /// Reserves as the contract says, and returns the cost granted or the denial.
        mutating func reserve(_ provider: String, _ quote: PriceQuote, at now: Date) -> Outcome {
            guard quote.cost > .zero else { return .granted(cost: .zero) }  // free calls are granted, not recorded
            let (day, month) = policy.periodKeys(for: now)
            var cost = quote.cost
            if let allowance = policy.freeCallsPerMonth[quote.sku], freeTierCalls(quote.sku, month) < allowance {
                cost = .zero
            }
            if cost > .zero {
                for (scope, period, key) in [(provider, BudgetPeriod.day, day), (provider, .month, month), (nil, .day, day), (nil, .month, month)] {
                    guard let limit = limit(scope, period) else { continue }
                    let spent = standing(scope, period, key).map(\.cost).reduce(.zero, +)
                    if spent + cost > limit {
                        return .denied(BudgetDenial(limitedProvider: scope, period: period, limit: limit, spent: spent, requested: cost))
                    }
                }
            }
            charges.append(Charge(provider: provider, sku: quote.sku, cost: cost, day: day, month: month, state: .open))
            return .granted(cost: cost)
        }
    }

    static func randomLimits(_ random: inout SeededRandom) -> BudgetLimits {
        func amount() -> MicroDollars? {
            Bool.random(using: &random) ? nil : MicroDollars(Int64.random(in: 0...6, using: &random) * 20_000)
        }
        return BudgetLimits(perDay: amount(), perMonth: amount())
    }

    @Test(arguments: BudgetLedgerImplementation.all, 1...4)
    func everyStepLeavesWhatTheModelSays(_ implementation: BudgetLedgerImplementation, seed: Int) async throws {
        var random = SeededRandom(seed: seed)
        let policy = BudgetPolicy(
            timeZone: Self.helsinki, overall: Self.randomLimits(&random),
            providers: ["google": Self.randomLimits(&random), "yelp": Self.randomLimits(&random)],
            freeCallsPerMonth: ["google.places.details.essentials": Int.random(in: 0...3, using: &random)])
        // 29 November, 10:00 in Helsinki: the steps cross days and, a few days on, the month.
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_939_200))
        let ledger = try await implementation.make(policy, clock: { clock.now })
        var model = Model(policy: policy)
        var granted: [(reservation: Reservation, charge: Int)] = []
        for step in 0..<60 {
            let roll = Int.random(in: 0..<100, using: &random)
            var done = ""
            switch roll {
            case 0..<50:
                let (provider, quote) = Self.quotes.randomElement(using: &random)!
                let expected = model.reserve(provider, quote, at: clock.now)
                let outcome = try await ledger.reserve(provider: provider, quote: quote)
                switch (outcome, expected) {
                case (.granted(let reservation), .granted(let cost)):
                    #expect(reservation.cost == cost && reservation.listPrice == quote.cost && reservation.provider == provider,
                            "step \(step): \(reservation)")
                    if quote.cost > .zero { granted.append((reservation, model.charges.count - 1)) }
                case (.denied(let denial), .denied(let expectedDenial)):
                    #expect(denial == expectedDenial, "step \(step)")
                default:
                    Issue.record("step \(step): \(provider) \(quote.sku): the ledger said \(outcome), the model \(expected)")
                }
                done = "reserve \(quote.sku)"
            case 50..<65:
                guard let index = granted.indices.randomElement(using: &random) else { continue }
                let (reservation, charge) = granted[index]
                guard model.charges[charge].state == .open else { continue }  // settling a refunded call: not in the contract
                try await ledger.settle(reservation)
                if Bool.random(using: &random) { try await ledger.settle(reservation) }
                model.charges[charge].state = .settled
                done = "settle"
            case 65..<80:
                guard let index = granted.indices.randomElement(using: &random) else { continue }
                let (reservation, charge) = granted[index]
                try await ledger.refund(reservation)
                if Bool.random(using: &random) { try await ledger.refund(reservation) }
                model.charges[charge].state = .refunded
                done = "refund"
            case 80..<88:
                let scope = ["google", "yelp", nil].randomElement(using: &random)!
                func change() -> MicroDollars?? {
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: return .none
                    case 1: return .some(nil)
                    default: return .some(MicroDollars(Int64.random(in: 0...6, using: &random) * 20_000))
                    }
                }
                let (perDay, perMonth) = (change(), change())
                try await ledger.setLimits(provider: scope, perDay: perDay, perMonth: perMonth)
                if let perDay { model.setLimits["\(scope ?? "*")|day"] = perDay }
                if let perMonth { model.setLimits["\(scope ?? "*")|month"] = perMonth }
                done = "set limits of \(scope ?? "overall")"
            default:
                clock.advance(Double(Int.random(in: 1...36, using: &random)) * 3_600)
                done = "wait"
            }
            let (day, month) = policy.periodKeys(for: clock.now)
            let context = "\(implementation.name) seed \(seed), step \(step): \(done), \(day)"
            let report = try await ledger.report()
            #expect(report.day == day && report.month == month, "\(context)")
            #expect(report.overallToday == model.figures(nil, .day, day), "overall today: \(context)")
            #expect(report.overallMonth == model.figures(nil, .month, month), "overall this month: \(context)")
            for provider in ["google", "yelp"] {
                let figures = report.providers.first { $0.provider == provider }
                let listed = policy.providers[provider] != nil || model.charges.contains { $0.provider == provider && $0.month == month }
                    || model.setLimits.keys.contains { $0.hasPrefix(provider + "|") }
                #expect((figures != nil) == listed, "\(provider) listed: \(context)")
                guard let figures else { continue }
                #expect(figures.today == model.figures(provider, .day, day), "\(provider) today: \(context)")
                #expect(figures.month == model.figures(provider, .month, month), "\(provider) this month: \(context)")
                let allowances = policy.freeCallsPerMonth.filter { $0.key.hasPrefix(provider + ".") && $0.value > 0 }
                let freeTier = allowances.keys.sorted().map { sku in
                    BudgetReport.FreeTierUse(sku: sku, used: min(model.freeTierCalls(sku, month), allowances[sku]!),
                                             allowance: allowances[sku]!)
                }
                #expect(figures.freeTier == freeTier, "\(provider) free tier: \(context)")
            }
        }
    }
}
