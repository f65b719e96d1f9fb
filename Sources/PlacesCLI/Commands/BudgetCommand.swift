import ArgumentParser
import BudgetLedger
import Foundation
import PlacesApp
import PlacesCore

struct BudgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "budget",
        abstract: "Show or change what paid providers may spend.",
        discussion: """
            Spend is recorded in a ledger before every paid call, so limits hold across concurrent lookups \
            and processes. Days and months are calendar periods in [budget] time_zone (config.toml).

            Examples:
              places budget                              # today and this month, per provider
              places budget set google 5/day 50/month    # dollars
              places budget set overall 2/day
              places budget set google none/day          # remove a limit
            """,
        subcommands: [BudgetShowCommand.self, BudgetSetCommand.self],
        defaultSubcommand: BudgetShowCommand.self)
}

struct BudgetShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Spend, limits, remaining and free-tier use.",
        discussion: """
            Examples:
              places budget show
              places budget show --json
            """)

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let report = try await state.openApp().budgetReport()
            if json {
                printData(try PlacesJSON.budget(report, pretty: isTerminal(.standardOutput)))
                return
            }
            print("budget (days in \(report.timeZone); today \(report.day), month \(report.month))")
            var rows = [["PROVIDER", "TODAY (CALLS)", "DAY LIMIT", "DAY LEFT", "MONTH (CALLS)", "MONTH LIMIT", "MONTH LEFT"]]
            rows.append(Self.row("overall", report.overallToday, report.overallMonth))
            for provider in report.providers { rows.append(Self.row(provider.provider, provider.today, provider.month)) }
            // Seven money columns: on a narrow terminal the table stacks, one provider per block.
            print(PlaceTable.render(rows: rows), terminator: "")
            for provider in report.providers {
                for free in provider.freeTier where free.used > 0 {
                    print("\(provider.provider) free tier \(free.sku): \(free.used) of \(free.allowance) calls this month")
                }
            }
        }
    }

    private static func row(_ name: String, _ day: BudgetReport.PeriodFigures, _ month: BudgetReport.PeriodFigures) -> [String] {
        func money(_ m: MicroDollars?) -> String { m.map { String(format: "$%.4f", $0.dollars) } ?? "-" }
        return [name, money(day.spent) + " (\(day.calls))", money(day.limit), money(day.remaining),
                money(month.spent) + " (\(month.calls))", money(month.limit), money(month.remaining)]
    }
}

struct BudgetSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set a provider's (or the overall) daily and monthly limits in dollars.",
        discussion: """
            Limits set here are stored in the ledger and take precedence over config.toml.

            Examples:
              places budget set google 5/day 50/month
              places budget set overall 1.50/day
              places budget set yelp none/month
            """)

    @Argument(help: "A provider name, or `overall`.")
    var scope: String

    @Argument(help: ArgumentHelp("One or two limits such as 5/day 50/month (dollars; `none` removes one).", valueName: "AMOUNT/PERIOD"),
              transform: BudgetLimitArgument.argument)
    var limits: [BudgetLimitArgument]

    @OptionGroup var state: StateOptions

    func validate() throws {
        if limits.isEmpty { throw ValidationError("give at least one limit, such as 5/day or 50/month") }
    }

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            var perDay: MicroDollars?? = .none
            var perMonth: MicroDollars?? = .none
            for limit in limits {
                if limit.period == .day { perDay = .some(limit.amount) } else { perMonth = .some(limit.amount) }
            }
            let provider = scope.lowercased() == "overall" ? nil : scope.lowercased()
            try await state.openApp().setBudgetLimits(provider: provider, perDay: perDay, perMonth: perMonth)
            let name = provider ?? "overall"
            for (period, value) in [("day", perDay), ("month", perMonth)] {
                guard let value else { continue }
                print("\(name): \(value.map(\.description) ?? "no limit") per \(period)")
            }
        }
    }
}

/// `5/day`, `50/month`, `none/day`: a limit in dollars per period, `none` removing it.
struct BudgetLimitArgument: Sendable {
    var amount: MicroDollars?
    var period: BudgetPeriod

    static func argument(_ text: String) throws -> BudgetLimitArgument {
        let parts = text.lowercased().split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let period = BudgetPeriod(rawValue: parts[1]) else {
            throw ArgumentRefusal("expected AMOUNT/day or AMOUNT/month, e.g. 5/day")
        }
        return BudgetLimitArgument(amount: parts[0] == "none" ? nil : try MicroDollars.argument(parts[0]), period: period)
    }
}
