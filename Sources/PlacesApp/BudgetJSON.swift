import BudgetLedger
import Foundation
import PlacesCore

/// `places budget --json` and the server's BUDGET reply: the ledger's report with money in dollars and the unit in
/// every money key (`spent_usd`, `limit_usd`, `remaining_usd`), as `cost_usd` in a lookup. The ledger itself counts
/// integer micro-dollars; these are for reading only (`null` limit: none set).
public struct BudgetJSON: Encodable, Sendable {
    public struct Period: Encodable, Sendable {
        public var spentUsd: Double
        public var limitUsd: Double?
        public var remainingUsd: Double?
        public var calls: Int

        init(_ figures: BudgetReport.PeriodFigures) {
            spentUsd = figures.spent.dollars
            limitUsd = figures.limit?.dollars
            remainingUsd = figures.remaining?.dollars
            calls = figures.calls
        }

        enum CodingKeys: String, CodingKey {
            case calls
            case spentUsd = "spent_usd"
            case limitUsd = "limit_usd"
            case remainingUsd = "remaining_usd"
        }

        /// Every key present, a missing limit as `null`.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(calls, forKey: .calls)
            try c.encode(spentUsd, forKey: .spentUsd)
            try c.encode(limitUsd, forKey: .limitUsd)
            try c.encode(remainingUsd, forKey: .remainingUsd)
        }
    }

    public struct Provider: Encodable, Sendable {
        public var provider: String
        public var today: Period
        public var month: Period
        public var freeTier: [BudgetReport.FreeTierUse]
    }

    public var day: String
    public var month: String
    public var timeZone: String
    public var overallToday: Period
    public var overallMonth: Period
    public var providers: [Provider]

    public init(_ report: BudgetReport) {
        day = report.day
        month = report.month
        timeZone = report.timeZone
        overallToday = Period(report.overallToday)
        overallMonth = Period(report.overallMonth)
        providers = report.providers.map {
            Provider(provider: $0.provider, today: Period($0.today), month: Period($0.month), freeTier: $0.freeTier)
        }
    }
}

extension PlacesJSON {
    public static func budget(_ report: BudgetReport, pretty: Bool = false) throws -> Data {
        try encode(BudgetJSON(report), pretty: pretty)
    }

    /// The application's budget report as `places budget --json` prints it.
    public static func budget(_ app: PlacesApplication, pretty: Bool = false) async throws -> Data {
        try budget(try await app.budgetReport(), pretty: pretty)
    }
}
