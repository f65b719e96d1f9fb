import ArgumentParser
import Foundation
import PlacesApp
import PlacesCore
import PlacesHours

struct DetailsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "details",
        abstract: "Show everything known about one place.",
        discussion: """
            IDs have the form provider:native-id, as printed by search and nearby.

            Examples:
              places details osm:node/1234567
              places details geonames:658225 --json
              places details osm:node/1234567 --at 2026-11-21T20:00   # open Saturday 20:00, its local time?
            """)

    @Argument(help: "The place id, e.g. osm:node/1234 or geonames:658225.")
    var id: String

    @Flag(help: "Print the place as a JSON object.")
    var json = false

    @Option(help: ArgumentHelp(
        "Say whether it is open at this moment instead of now; a time without an offset is the place's local time.",
        valueName: "ISO8601"))
    var at: String?

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let placeID = try PlaceID(parsing: id)
            let app = try state.openApp()
            let place = try await app.details(placeID)
            let moment = try at.map { text throws(InputError) in try HoursReport.moment(text, for: place, fallback: nil) } ?? Date()
            if json {
                printData(try PlacesJSON.place(place, at: moment, pretty: isTerminal(.standardOutput)))
            } else {
                print(DetailsText.render(place, hours: HoursReport.evaluate(place: place, at: moment, timeZone: nil)), terminator: "")
            }
        }
    }
}

/// A key/value listing of one place for people.
enum DetailsText {
    static func render(_ place: Place, hours: HoursReport? = nil) -> String {
        var rows: [[String]] = [["name", place.name], ["id", place.id.description]]
        func add(_ key: String, _ value: String?) { if let value, !value.isEmpty { rows.append([key, value]) } }
        add("category", place.category)
        add("tags", place.categories.joined(separator: ", "))
        add("address", place.formattedAddress ?? place.address?.formatted)
        add("location", "\(place.coordinate)")
        add("phone", place.phone)
        add("website", place.website)
        add("brand", place.brand)
        if let hours { rows += HoursText.detailRows(hours, raw: place.openingHoursText) } else { add("hours", place.openingHoursText) }
        add("time zone", place.timeZone)
        add("rating", place.rating.map { String($0) })
        add("status", place.status?.rawValue)
        add("source", place.attribution)
        return PlaceTable.render(rows: rows, header: false)
    }
}

struct ReverseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse",
        abstract: "Say what is at a point: nearest address or place, city, country and time zone.",
        discussion: """
            Examples:
              places reverse 60.1699,24.9384
              places reverse 60.1699,24.9384 --json
            """)

    /// Collected with `.allUnrecognized` so that a southern or western point (`-33.87,151.21`) is read as
    /// the coordinate it is rather than as an unknown option; `validate()` insists on exactly one. That also
    /// collects `-h`/`--help`, kept as `nil` so `validate()` can show the help they ask for.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The point.", valueName: "LAT,LON"),
              transform: { $0 == "-h" || $0 == "--help" ? nil : try Coordinate.argument($0) })
    var coordinates: [Coordinate?] = []

    @Flag(help: "Print a JSON object.")
    var json = false

    @OptionGroup var state: StateOptions

    func validate() throws {
        if coordinates.contains(nil) { throw CleanExit.helpRequest(self) }
        guard coordinates.count == 1 else { throw ValidationError("give one point as LAT,LON, for example 60.1699,24.9384") }
    }

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            guard let point = coordinates[0] else { return }
            let app = try state.openApp()
            let answer = try await app.reverse(point)
            if json {
                printData(try PlacesJSON.reverse(answer, pretty: isTerminal(.standardOutput)))
                return
            }
            var rows: [[String]] = []
            if let nearest = answer.nearest {
                let distance = answer.nearestDistance.map { " (\(PlaceTable.formatDistance($0)))" } ?? ""
                rows.append(["nearest", nearest.name + distance])
                if let address = nearest.formattedAddress ?? nearest.address?.formatted { rows.append(["address", address]) }
            }
            rows.append(["city", [answer.city, answer.region].compactMap { $0 }.joined(separator: ", ")])
            rows.append(["country", answer.countryCode ?? "unknown"])
            rows.append(["time zone", answer.timeZone ?? "unknown"])
            print(PlaceTable.render(rows: rows, header: false), terminator: "")
        }
    }
}

struct SuggestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",
        abstract: "Complete a place name as it is typed.",
        discussion: """
            Examples:
              places suggest kaf --near 60.17,24.94
              places suggest "blue bot" --near 37.7763,-122.4232 --provider google   # metered, cached
            """)

    @Argument(help: "The beginning of a name.")
    var prefix: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Prefer places near this point.", valueName: "LAT,LON"), transform: Coordinate.argument)
    var near: Coordinate?

    @Option(parsing: .unconditional, help: ArgumentHelp("At most this many suggestions.", valueName: "N"),
            transform: ResultLimit.argument)
    var limit: Int = SuggestQuery.defaultLimit

    @Option(help: ArgumentHelp(
        "Ask this provider instead of the local index (see `places providers`); the call is metered and cached.",
        valueName: "NAME"))
    var provider: String?

    @Flag(help: "Print a JSON array.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let app = try state.openApp()
            let suggestions = try await app.suggest(SuggestQuery(prefix: prefix, near: near, limit: limit), provider: provider)
            if json {
                printData(try PlacesJSON.suggestions(suggestions))
            } else {
                for suggestion in suggestions {
                    print(TerminalText.safe([suggestion.text, suggestion.secondaryText, suggestion.placeID?.description]
                        .compactMap { $0 }.joined(separator: "  ")))
                }
            }
        }
    }
}

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add an OSM extract (.osm.pbf) or a GeoNames dump (.txt, .txt.gz, .zip) to the local index.",
        discussion: """
            The import runs in one transaction: if the file is broken, the index stays exactly as it was.
            Importing the same file again replaces its places instead of duplicating them.

            Examples:
              places import finland-latest.osm.pbf
              places import cities1000.zip
            """)

    @Argument(help: "The file to import.")
    var file: String

    @OptionGroup var state: StateOptions

    /// What the bar says once every byte is read: the import then writes the index, its name index and search
    /// tables in one transaction, the slow last step that used to look like a stall at 100 %.
    static let finishingPhase = "building the name index…"

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let url = URL(fileURLWithPath: file)
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw InputError("cannot read '\(file)': no such file, or no permission")
            }
            let app = try state.openApp()
            let bar = ProgressBar.ifWanted(label: url.lastPathComponent, finishing: Self.finishingPhase)
            var progress: (@Sendable (_ bytesRead: Int64, _ totalBytes: Int64) -> Void)?
            if let bar { progress = { bar.update(done: $0, total: $1) } }
            let summary = try app.importFile(url, progress: progress)
            bar?.finish()
            printError("places: \(summary)")
        }
    }
}
