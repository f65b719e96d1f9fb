import ArgumentParser
import Foundation
import PlacesApp
import PlacesCore
import PlacesHours

struct HoursCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hours",
        abstract: "Evaluate an OSM opening_hours value: open or closed at a moment, and when that changes.",
        discussion: """
            For people who edit OSM data: checks that a value reads as intended. The moment is read on the \
            wall clock of --tz, so daylight-saving changes are applied. PH (public holiday) rules apply only \
            on the dates given with --holidays; without them the answer says it depends on holidays.
            Text that cannot be read is reported as unknown (exit status 1), never guessed.

            Examples:
              places hours 'Mo-Fr 09:00-19:00; Sa 09:00-18:00; PH off' --at 2026-11-21T17:30 --tz Europe/Helsinki
              places hours 'Fr-Sa 22:00-04:00' --at 2026-11-22T03:00+02:00 --tz Europe/Helsinki --json
              places hours 'Mo-Fr 10:00-18:00; PH off' --at 2026-12-24T12:00 --tz Europe/Helsinki --holidays 2026-12-24,2026-12-25
            """)

    @Argument(help: ArgumentHelp("The opening_hours value; quote it.", valueName: "SPEC"))
    var spec: String

    @Option(help: ArgumentHelp(
        "The moment: ISO 8601, with an offset (2026-11-21T17:30:00+02:00) or without (read in --tz). Default: now.",
        valueName: "ISO8601"))
    var at: String?

    @Option(name: .customLong("tz"), help: ArgumentHelp(
        "The place's IANA time zone, e.g. Europe/Helsinki. Default: this computer's zone.", valueName: "ZONE"))
    var timeZone: String?

    @Option(help: ArgumentHelp("Public holidays for PH rules, comma-separated.", valueName: "YYYY-MM-DD,…"))
    var holidays: String?

    @Flag(help: "Print a JSON object: hours, open_now, next_change, caveats.")
    var json = false

    func run() async throws {
        var unreadable = false
        try await reportingErrors {
            let zone = try HoursCommand.zone(timeZone)
            let clock = LocalClock(timeZone: zone)
            let moment = try at.map { text throws(InputError) in try clock.parse(text) } ?? Date()
            let calendar = try holidays.map { text throws(InputError) in
                try HolidayCalendar(isoPublicHolidays: text.split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                })
            }
            let hours = OpeningHours(osm: spec)
            let report = HoursReport.evaluate(hours, at: moment, timeZone: zone, holidays: calendar)
            if json {
                printData(PlacesJSON.hours(report, pretty: isTerminal(.standardOutput)))
            } else {
                print(HoursText.render(report, at: moment, clock: clock), terminator: "")
            }
            if let error = hours.syntaxError {
                printError("places: cannot read opening hours: \(error)")
                unreadable = true
            }
        }
        if unreadable { throw ExitCode(1) }
    }

    static func zone(_ identifier: String?) throws(InputError) -> TimeZone {
        guard let identifier else { return TimeZone.current }
        guard let zone = TimeZone(identifier: identifier) else {
            throw InputError("unknown time zone '\(identifier)': use an IANA name such as Europe/Helsinki or America/New_York")
        }
        return zone
    }
}

/// The hours answer for people: the state, the next change, the week, then what it depends on.
enum HoursText {
    static func render(_ report: HoursReport, at moment: Date, clock: LocalClock) -> String {
        let now = clock.local(moment)
        let weekday = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][now.date.weekday - 1]
        let when = "\(weekday) \(now.date) \(HoursInterval.clock(now.minute)) \(clock.timeZone.identifier)"
        var lines: [String] = []
        switch report.state {
        case .open: lines.append("open at \(when)")
        case .closed: lines.append("closed at \(when)")
        case .unknown: lines.append("unknown at \(when)")
        }
        if let change = report.nextChange {
            let verb = switch change.state {
            case .open: "opens"
            case .closed: "closes"
            case .unknown: "becomes uncertain"
            }
            let local = clock.local(change.at)
            let day = local.date == now.date
                ? "" : "\(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][local.date.weekday - 1]) \(local.date) "
            lines.append("\(verb) \(day)at \(HoursInterval.clock(local.minute)) (\(change.localTime))")
        } else if report.state != .unknown {
            lines.append("no change ahead")
        }
        lines.append("week: \(report.hours.summary)")
        for caveat in report.caveats { lines.append("note: \(caveat)") }
        for warning in report.hours.warnings where !report.caveats.contains(warning) {
            lines.append("warning: \(warning)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension HoursText {
    /// Rows for `places details`: the week, whether it is open at the moment asked about, and the next change.
    static func detailRows(_ report: HoursReport, raw: String?) -> [[String]] {
        var rows: [[String]] = [["hours", report.hours.parsed ? report.hours.summary : (raw ?? "unknown")]]
        if let raw, report.hours.parsed, report.hours.source == "osm", raw != report.hours.summary {
            rows.append(["opening_hours", raw])
        }
        rows.append(["open now", report.openNow.map { $0 ? "yes" : "no" } ?? "unknown"])
        if let change = report.nextChange {
            let verb = switch change.state {
            case .open: "opens"
            case .closed: "closes"
            case .unknown: "uncertain from"
            }
            rows.append(["next change", "\(verb) \(change.localTime)"])
        }
        for caveat in report.caveats { rows.append(["hours note", caveat]) }
        return rows
    }
}

/// `--open-now` / `--open-at` for `search` and `nearby`: keeps the places whose hours say they are
/// open, each read on its own wall clock. Places without hours, or whose hours do not say, are left out.
/// The application applies it (``OpenHoursFilter``), as it does for the server's `OPEN NOW`.
struct OpenFilterOptions: ParsableArguments {
    @Flag(name: .customLong("open-now"), help: "Only places whose opening hours say they are open now; places without hours are left out.")
    var openNow = false

    @Option(name: .customLong("open-at"), help: ArgumentHelp(
        "Only places open at this moment; a time without an offset (2026-11-21T20:00) is each place's local time; places without hours are left out.",
        valueName: "ISO8601"))
    var openAt: String?

    /// The filter both edges apply (``OpenHoursFilter``); `nil` keeps every place.
    var filter: OpenHoursFilter? { openAt.map(OpenHoursFilter.at) ?? (openNow ? .now : nil) }

    func validate() throws {
        if openNow && openAt != nil { throw ValidationError("choose one of --open-now and --open-at") }
    }
}
