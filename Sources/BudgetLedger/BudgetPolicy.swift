import Foundation
import PlacesCore

/// A spending cap for one period; `nil` means no cap for that period.
public struct BudgetLimits: Sendable, Hashable, Codable {
    public var perDay: MicroDollars?
    public var perMonth: MicroDollars?

    public init(perDay: MicroDollars? = nil, perMonth: MicroDollars? = nil) {
        self.perDay = perDay
        self.perMonth = perMonth
    }

    public static let unlimited = BudgetLimits()
}

public enum BudgetPeriod: String, Sendable, Codable, CaseIterable {
    case day, month
}

/// The limits the ledger enforces. Days and months are calendar periods in `timeZone`, so "5 $ a
/// day" resets at the user's midnight, not UTC's.
public struct BudgetPolicy: Sendable, Hashable {
    public var timeZone: TimeZone
    /// Across all providers together.
    public var overall: BudgetLimits
    public var providers: [String: BudgetLimits]
    /// Calls per calendar month that a SKU gives for free (Google: 10,000 Essentials, 5,000 Pro …).
    public var freeCallsPerMonth: [String: Int]

    public init(timeZone: TimeZone = .current, overall: BudgetLimits = .unlimited,
                providers: [String: BudgetLimits] = [:], freeCallsPerMonth: [String: Int] = [:]) {
        self.timeZone = timeZone
        self.overall = overall
        self.providers = providers
        self.freeCallsPerMonth = freeCallsPerMonth
    }

    /// `2026-11-21` and `2026-11` for `date` in the policy's zone: the day and month a charge counts against.
    public func periodKeys(for date: Date) -> (day: String, month: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        let month = String(format: "%04d-%02d", parts.year ?? 0, parts.month ?? 0)
        return (month + String(format: "-%02d", parts.day ?? 0), month)
    }
}

/// A granted reservation: the money is counted as spent until ``BudgetLedger/refund(_:)``.
public struct Reservation: Sendable, Hashable {
    /// The ledger's id for the charge; `0` for a free call, which is not recorded.
    public var id: Int64
    public var provider: String
    public var sku: String
    /// What the call counts against the budget: zero when it falls inside the SKU's free allowance.
    public var cost: MicroDollars
    public var listPrice: MicroDollars
    public var isFree: Bool { cost == .zero && listPrice > .zero }

    public init(id: Int64, provider: String, sku: String, cost: MicroDollars, listPrice: MicroDollars) {
        self.id = id
        self.provider = provider
        self.sku = sku
        self.cost = cost
        self.listPrice = listPrice
    }
}

/// Why a paid call was not allowed. The pipeline turns it into `budget_exhausted` and a stderr note.
public struct BudgetDenial: Sendable, Hashable, CustomStringConvertible {
    /// The provider whose limit stops the call, or `nil` for the overall limit.
    public var limitedProvider: String?
    public var period: BudgetPeriod
    public var limit: MicroDollars
    public var spent: MicroDollars
    public var requested: MicroDollars

    public init(limitedProvider: String?, period: BudgetPeriod, limit: MicroDollars, spent: MicroDollars, requested: MicroDollars) {
        self.limitedProvider = limitedProvider
        self.period = period
        self.limit = limit
        self.spent = spent
        self.requested = requested
    }

    public var description: String {
        let scope = limitedProvider.map { "\($0) budget" } ?? "overall budget"
        return "\(scope) per \(period.rawValue) \(limit) would be exceeded (spent \(spent), call costs \(requested))"
    }
}

public enum ReservationOutcome: Sendable, Hashable {
    case granted(Reservation)
    case denied(BudgetDenial)
}

/// `places budget`: spend and what is left, per provider, today and this month.
public struct BudgetReport: Sendable, Hashable, Codable {
    public struct PeriodFigures: Sendable, Hashable, Codable {
        public var spent: MicroDollars
        public var limit: MicroDollars?
        public var remaining: MicroDollars?
        public var calls: Int

        public init(spent: MicroDollars, limit: MicroDollars?, remaining: MicroDollars?, calls: Int) {
            self.spent = spent
            self.limit = limit
            self.remaining = remaining
            self.calls = calls
        }
    }

    public struct FreeTierUse: Sendable, Hashable, Codable {
        public var sku: String
        public var used: Int
        public var allowance: Int

        public init(sku: String, used: Int, allowance: Int) {
            self.sku = sku
            self.used = used
            self.allowance = allowance
        }
    }

    public struct ProviderFigures: Sendable, Hashable, Codable {
        public var provider: String
        public var today: PeriodFigures
        public var month: PeriodFigures
        public var freeTier: [FreeTierUse]

        public init(provider: String, today: PeriodFigures, month: PeriodFigures, freeTier: [FreeTierUse]) {
            self.provider = provider
            self.today = today
            self.month = month
            self.freeTier = freeTier
        }
    }

    public var day: String
    public var month: String
    public var timeZone: String
    public var overallToday: PeriodFigures
    public var overallMonth: PeriodFigures
    public var providers: [ProviderFigures]

    public init(day: String, month: String, timeZone: String, overallToday: PeriodFigures, overallMonth: PeriodFigures,
                providers: [ProviderFigures]) {
        self.day = day
        self.month = month
        self.timeZone = timeZone
        self.overallToday = overallToday
        self.overallMonth = overallMonth
        self.providers = providers
    }
}
