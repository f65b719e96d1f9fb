import ArgumentParser
import Foundation
import PlacesApp
import PlacesCore
import SpotStore

struct SpotsNearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "near", abstract: "Saved spots within a radius, nearest first, with distance and direction.",
        discussion: """
            The default radius is 805 m (half a mile).

            Examples:
              places spots near --at 60.1700,24.9410
              places spots near --at 60.1700,24.9410 --radius 200 --json
            """)

    @Option(parsing: .unconditional, help: ArgumentHelp("The reference point.", valueName: "LAT,LON"), transform: Coordinate.argument)
    var at: Coordinate

    @Option(parsing: .unconditional, help: ArgumentHelp("Radius in metres.", valueName: "M"), transform: Metres.argument)
    var radius: Double = SpotsService.defaultNearRadius

    @Flag(help: "Print a JSON array with distance_m and bearing.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let point = at
            SpotHitsOutput.print(try await state.openSpots().near(point, radius: radius), reference: point, json: json)
        }
    }
}

struct SpotsNearestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearest", abstract: "The N nearest saved spots, however far: the set a phone would monitor.",
        discussion: "Example:\n  places spots nearest --at 60.1700,24.9410 --limit 20 --json")

    @Option(parsing: .unconditional, help: ArgumentHelp("The reference point.", valueName: "LAT,LON"), transform: Coordinate.argument)
    var at: Coordinate

    @Option(parsing: .unconditional, help: ArgumentHelp("How many spots.", valueName: "N"), transform: ResultLimit.argument)
    var limit: Int = SpotsService.defaultNearestLimit

    @Flag(help: "Print a JSON array with distance_m and bearing.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let point = at
            SpotHitsOutput.print(try await state.openSpots().nearest(point, limit: limit), reference: point, json: json)
        }
    }
}

enum SpotHitsOutput {
    static func print(_ hits: [SpotDistance], reference: Coordinate, json: Bool) {
        if json {
            printData((try? PlacesJSON.spots(hits, pretty: isTerminal(.standardOutput))) ?? Data("[]".utf8))
        } else if hits.isEmpty {
            printError("no saved spots there")
        } else {
            Swift.print(SpotOutput.table(hits.map(\.spot), reference: reference), terminator: "")
        }
    }
}

struct SpotsRefreshCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh", abstract: "Re-run the attached lookups and report what changed.",
        discussion: """
            Each spot saved from a place keeps its lookup; refresh runs it again through the lookup pipeline \
            and reports changed phone, website, hours, address, status (closed permanently …) or position.
            Fresh cache entries answer for free (TTL); paid providers are asked only within the budget, and \
            --max-cost caps what the whole run may spend. Spots saved as raw points are skipped.

            Examples:
              places spots refresh 3f2a
              places spots refresh --all --max-cost 0.50
            """)

    @Argument(help: "The spot id or a prefix of it.")
    var id: String?

    @Flag(help: "Refresh every spot with an attached place.")
    var all = false

    @Option(help: ArgumentHelp("Spend at most this many US dollars.", valueName: "USD"), transform: MicroDollars.argument)
    var maxCost: MicroDollars?

    @Flag(help: "Print a JSON array of {spot, changes, error}.")
    var json = false

    @OptionGroup var state: StateOptions

    func validate() throws {
        if (id == nil) == !all { throw ValidationError("give a spot ID or --all") }
    }

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let cap = maxCost
            let app = try state.openApp()
            let spots = try app.spots
            let targets = all ? try await spots.allSpots() : [try await spots.spot(id ?? "")]
            let results = await spots.refresh(targets, app: app, maxCost: cap)
            if json {
                struct Entry: Encodable { let spot: SpotJSON; let changes: [String]; let error: String?; let costUsd: Double }
                printData(try PlacesJSON.encode(results.map {
                    Entry(spot: SpotJSON($0.spot), changes: $0.changes, error: $0.error.map(Self.text), costUsd: $0.cost.dollars)
                },
                                                pretty: isTerminal(.standardOutput)))
                return
            }
            if results.isEmpty { printError("no spots with an attached place to refresh") }
            for result in results {
                let head = "\(SpotOutput.shortID(result.spot))  \(result.spot.name)"
                if let error = result.error { print("\(head): failed: \(Self.text(error))") }
                else if result.changes.isEmpty { print("\(head): unchanged") }
                else { print("\(head): " + result.changes.joined(separator: "; ")) }
            }
            if results.contains(where: { $0.error != nil }) { throw ExitCode(1) }
        }
    }

    /// Why a spot was not refreshed, in the CLI's words.
    static func text(_ error: any Error) -> String {
        switch error {
        case RefreshSkipped.spendingCapReached: "--max-cost reached; not refreshed"
        case RefreshSkipped.noConfidentAnswer(let budgetNote):
            "the lookup found no confident answer this time\(budgetNote.map { " (\($0))" } ?? ""); the old snapshot is kept"
        case let input as InputError: input.message
        case let provider as ProviderError: provider.description
        default: "\(error)"
        }
    }
}

struct SpotsLogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log", abstract: "Log a visit or a meal, at a saved spot or at a point.",
        discussion: """
            Each visit keeps the street address and the IANA time zone the local index gives its point, so the \
            diary says where it was and lists it under the day it was there. --time takes now, -30m, -2h, -1d, \
            yesterday 19:30, today 8:05, 19:30, 2026-05-01 12:30 or ISO 8601; a time without an offset is read \
            on the place's clock, wherever this computer is.

            Examples:
              places spots log --spot 3f2a --note "Lunch: salmon soup"
              places spots log --at 60.1675,24.9525 --time "yesterday 19:30" --note "Market coffee"
              places spots log --spot 3f2a --time -30m
            """)

    @Option(help: ArgumentHelp("The saved spot.", valueName: "ID"))
    var spot: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Where it happened (defaults to the spot's point).", valueName: "LAT,LON"), transform: Coordinate.argument)
    var at: Coordinate?

    @Option(help: "What happened.")
    var note: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("When: now, -30m, yesterday 19:30, 2026-05-01 12:30 or ISO 8601 (default: now).", valueName: "TIME"))
    var time: String?

    @Option(help: ArgumentHelp("A photo to remember it by.", valueName: "PATH"))
    var photo: String?

    @Flag(help: "Print the visit as JSON.")
    var json = false

    @OptionGroup var state: StateOptions

    func validate() throws {
        if spot == nil && at == nil { throw ValidationError("say where: --spot ID or --at LAT,LON") }
        // The clock and zone do not change whether the text is a time: check it before opening anything.
        if let time { _ = try VisitTime.parse(time, now: Date(), zone: .current) }
    }

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let app = try state.openApp()
            let (visit, spot) = try await app.spots.log(spot: spot, at: at, note: note, time: time, photoPath: photo, app: app)
            if json {
                printData(try PlacesJSON.encode(VisitJSON(visit, spotName: spot?.name)))
            } else {
                let place = [spot?.name, visit.address?.formatted].compactMap { $0 }.first { !$0.isEmpty } ?? "\(visit.coordinate)"
                print(TerminalText.safe("logged \(VisitOutput.shortID(visit))  \(SpotTime.format(visit.time, timeZone: visit.timeZone))  \(place)"))
            }
        }
    }
}

/// `spots visits`: the diary, listed by day (the default), edited or deleted one visit at a time.
struct SpotsVisitsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "visits", abstract: "Logged visits: list them by local day, edit or delete one.",
        discussion: """
            Examples:
              places spots visits --day 2026-05-01
              places spots visits edit 7c1d --time "yesterday 20:15" --note "Salmon soup, again"
              places spots visits rm 7c1d
            """,
        subcommands: [SpotsVisitsListCommand.self, SpotsVisitsEditCommand.self, SpotsVisitsRemoveCommand.self],
        defaultSubcommand: SpotsVisitsListCommand.self)
}

enum VisitOutput {
    static func shortID(_ visit: Visit) -> String { String(visit.id.storeKey.prefix(8)) }
}

struct SpotsVisitsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Logged visits, grouped by local day, with their address (the default).",
        discussion: """
            `places spots visits` alone lists them too.

            Examples:
              places spots visits list --day 2026-05-01
              places spots visits list --since 2026-04-01 --json
            """)

    @Option(help: ArgumentHelp("Only this local day.", valueName: "YYYY-MM-DD"))
    var day: String?

    @Option(help: ArgumentHelp("Only from this date (or ISO 8601 time) on.", valueName: "DATE"))
    var since: String?

    @Flag(help: "Print a JSON array of {day, visits}.")
    var json = false

    @OptionGroup var state: StateOptions

    func validate() throws {
        if day != nil && since != nil { throw ValidationError("choose one of --day and --since") }
    }

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let spots = try state.openSpots()
            let visits = try await spots.visits(day: day, since: since)
            let names = try await spots.spotNames(for: visits)
            if json {
                printData(try PlacesJSON.visitDays(visits, spotNames: names, pretty: isTerminal(.standardOutput)))
                return
            }
            if visits.isEmpty { printError("no visits logged for that period") }
            for (day, dayVisits) in SpotsService.groupByDay(visits) {
                print(day)
                var rows: [[String]] = []
                for visit in dayVisits {
                    let local = SpotTime.format(visit.time, timeZone: visit.timeZone)
                    let clock = String(local.dropFirst(11).prefix(5))
                    // Where: the spot's name and its address, or the address alone, or the bare point.
                    let spotName = visit.spotID.flatMap { names[$0] }
                    let address = visit.address?.formatted
                    rows.append(["  " + clock, spotName ?? address ?? "\(visit.coordinate)", spotName == nil ? "" : address ?? "",
                                 visit.note ?? "", VisitOutput.shortID(visit)])
                }
                print(PlaceTable.render(rows: rows, header: false), terminator: "")
            }
        }
    }
}

struct SpotsVisitsEditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Change a logged visit's time, note or spot.",
        discussion: """
            A new time is read on the visit's own clock, as spots log reads it; --note "" removes the note.

            Examples:
              places spots visits edit 7c1d --time "yesterday 20:15"
              places spots visits edit 7c1d --note "Salmon soup, again" --spot 3f2a
            """)

    @Argument(help: "The visit's id or its first 4+ characters (spots visits lists them).")
    var id: String

    @Option(parsing: .unconditional, help: ArgumentHelp("When: now, -30m, yesterday 19:30, 2026-05-01 12:30 or ISO 8601.", valueName: "TIME"))
    var time: String?

    @Option(help: "What happened (empty to remove the note).")
    var note: String?

    @Option(help: ArgumentHelp("Move the visit to this saved spot.", valueName: "SPOT"))
    var spot: String?

    @Flag(help: "Print the changed visit as JSON.")
    var json = false

    @OptionGroup var state: StateOptions

    func validate() throws {
        if time == nil && note == nil && spot == nil { throw ValidationError("say what to change: --time, --note or --spot") }
        if let time { _ = try VisitTime.parse(time, now: Date(), zone: .current) }
    }

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let service = try state.openSpots()
            let visit = try await service.editVisit(id, SpotsService.VisitChange(time: time, note: note, spot: spot))
            if json { printData(try await PlacesJSON.visit(visit, spots: service)) } else {
                print(TerminalText.safe("changed \(VisitOutput.shortID(visit))  \(SpotTime.format(visit.time, timeZone: visit.timeZone))  \(visit.note ?? "")"))
            }
        }
    }
}

struct SpotsVisitsRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Delete a logged visit.",
        discussion: "Examples:\n  places spots visits rm 7c1d\n  places spots visits rm 7c1d --json")

    @Argument(help: "The visit's id or its first 4+ characters (spots visits lists them).")
    var id: String

    @Flag(help: "Print the deleted visit as JSON (as SPOT.VISITS.RM replies).")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let service = try state.openSpots()
            let visit = try await service.removeVisit(id)
            if json {
                printData(try await PlacesJSON.visit(visit, spots: service))
                return
            }
            print(TerminalText.safe("deleted \(VisitOutput.shortID(visit))  \(SpotTime.format(visit.time, timeZone: visit.timeZone))  \(visit.note ?? "")"))
        }
    }
}
