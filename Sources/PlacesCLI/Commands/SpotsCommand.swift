import ArgumentParser
import Foundation
import PlacesApp
import PlacesCore
import SpotStore

struct SpotsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spots",
        abstract: "Keep your own places: save, rate, log visits, get proximity alerts, import and export.",
        discussion: """
            Spots live in their own database (spots.sqlite in the data directory); no cache command touches it.
            Each spot can keep the place lookup it came from, so `refresh` can update phone, hours or status.
            Spot ids are UUIDs; any unambiguous prefix of 4 or more characters works.

            Examples:
              places spots add --lookup "Löyly" --near 60.1521,24.9417 --category sauna --tag sea
              places spots add --at 60.1699,24.9384 --name "Meeting point" --rating like
              places spots near --at 60.1700,24.9410
              places spots log --spot 3f2a --note "Lunch: salmon soup"
              places spots watch --radius 200 < fixes.csv
              places spots export --format gpx --output spots.gpx
            """,
        subcommands: [
            SpotsAddCommand.self, SpotsListCommand.self, SpotsShowCommand.self, SpotsEditCommand.self, SpotsRemoveCommand.self,
            SpotsCategoriesCommand.self, SpotsNearCommand.self, SpotsNearestCommand.self, SpotsRefreshCommand.self,
            SpotsLogCommand.self, SpotsVisitsCommand.self, SpotsWatchCommand.self, SpotsImportCommand.self,
            SpotsExportCommand.self,
        ])
}

extension StateOptions {
    func openSpots() throws -> SpotsService { try openApp().spots }
}

/// `--category --tag --note --rating`, shared by every form of `add`.
struct SpotAttributeOptions: ParsableArguments {
    @Option(help: "A category such as cafe, restaurant, museum (normalised like search categories).")
    var category: String?

    @Option(name: .customLong("tag"), help: ArgumentHelp("A tag; repeat for more.", valueName: "TAG"))
    var tags: [String] = []

    @Option(help: "A note to keep with the spot.")
    var note: String?

    @Option(help: ArgumentHelp("like, dislike or none.", valueName: "RATING"))
    var rating: String?

    func attributes(name: String?) throws -> SpotAttributes {
        SpotAttributes(name: name, category: category, tags: tags, notes: note, rating: try rating.map { try SpotRating.parse($0) } ?? nil)
    }
}

/// Prints spots for people or programs.
enum SpotOutput {
    static func shortID(_ spot: Spot) -> String { String(spot.id.storeKey.prefix(8)) }

    /// A note in a table shows its first line, at most this many characters (the full note: `spots show`).
    static let noteWidth = 24

    static func truncated(_ text: String, to width: Int) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.count > width || line.count < text.count ? String(line.prefix(width - 1)) + "…" : line
    }

    static func table(_ spots: [Spot], reference: Coordinate? = nil) -> String {
        var rows: [[String]] = [["ID", "NAME", "CATEGORY"] + (reference == nil ? [] : ["DIST", "DIR"]) + ["RATING", "TAGS", "NOTE"]]
        for spot in spots {
            var row = [shortID(spot), spot.name, PlaceTable.words(spot.category ?? "")]
            if let reference {
                row.append(PlaceTable.formatDistance(GeoMath.distance(reference, spot.coordinate)))
                row.append(GeoMath.compassPoint(GeoMath.bearing(from: reference, to: spot.coordinate)))
            }
            row += [spot.rating?.rawValue ?? "", spot.tags.joined(separator: ", "), truncated(spot.notes ?? "", to: noteWidth)]
            rows.append(row)
        }
        return PlaceTable.render(rows: rows)
    }

    static func details(_ spot: Spot) -> String {
        var rows: [[String]] = [["name", spot.name], ["id", spot.id.storeKey]]
        func add(_ key: String, _ value: String?) { if let value, !value.isEmpty { rows.append([key, value]) } }
        add("category", spot.category)
        add("tags", spot.tags.joined(separator: ", "))
        add("rating", spot.rating?.rawValue)
        add("notes", spot.notes?.replacingOccurrences(of: "\n", with: " / "))
        add("address", spot.address)
        add("location", "\(spot.coordinate)")
        add("url", spot.url)
        add("places", spot.placeIDs.map(\.description).joined(separator: ", "))
        if let snapshot = spot.snapshot {
            add("phone", snapshot.place.phone)
            add("website", snapshot.place.website)
            add("hours", snapshot.place.openingHoursText)
            add("status", snapshot.place.status?.rawValue)
            add("snapshot", "\(snapshot.source), \(snapshot.fetchedAt.formatted(.iso8601))")
        }
        add("created", spot.createdAt.formatted(.iso8601))
        add("updated", spot.updatedAt.formatted(.iso8601))
        return PlaceTable.render(rows: rows, header: false)
    }

    static func printSpot(_ spot: Spot, json: Bool) throws {
        if json { printData(try PlacesJSON.spot(spot, pretty: isTerminal(.standardOutput))) } else { print(details(spot), terminator: "") }
    }
}

struct SpotsAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Save a spot: an existing place, a looked-up place, or a raw point.",
        discussion: """
            Exactly one of the three forms:
              --from ID: a place found with search or nearby, saved with its details.
              --lookup NAME --near LAT,LON: the place of that name near a point; the match is shown, then saved.
              --at LAT,LON [--name NAME]: a raw point. Its address comes from a reverse geocode, and without \
            --name so does its name: the nearest place within 30 m, else the street address (it says which).
            A spot that looks already saved (same attached place, or the matcher says same place within 150 m) \
            is refused; add --allow-duplicate to save it anyway.

            Examples:
              places spots add --from osm:node/2385473 --tag coffee --rating like
              places spots add --lookup "Cafe Regatta" --near 60.1830,24.9096 --note "Cinnamon buns"
              places spots add --at 60.1699,24.9384 --name "Meeting point" --category meeting
              places spots add --at 60.16961,24.93816 --note "window seat"
            """)

    @Option(help: ArgumentHelp("Save this place id (osm:node/1234, geonames:658225).", valueName: "ID"))
    var from: String?

    @Option(help: ArgumentHelp("Find a place by this name (with --near).", valueName: "NAME"))
    var lookup: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Where to look for --lookup.", valueName: "LAT,LON"), transform: Coordinate.argument)
    var near: Coordinate?

    @Option(parsing: .unconditional, help: ArgumentHelp("Save this raw point (with --name).", valueName: "LAT,LON"), transform: Coordinate.argument)
    var at: Coordinate?

    @Option(help: "The spot's name (with --at, otherwise named after the nearest place or the address; renames the place otherwise).")
    var name: String?

    @OptionGroup var attributes: SpotAttributeOptions

    @Flag(help: "With --at: do not reverse geocode the point for its address.")
    var noAddress = false

    @Flag(help: "Save even if the spot looks already saved.")
    var allowDuplicate = false

    @Flag(help: "Print the saved spot as JSON.")
    var json = false

    @OptionGroup var state: StateOptions

    static let oneForm = "choose exactly one of --from ID, --lookup NAME --near LAT,LON, --at LAT,LON [--name NAME]"

    func validate() throws {
        let forms = [from != nil, lookup != nil, at != nil].filter { $0 }.count
        guard forms == 1 else { throw ValidationError(Self.oneForm) }
        if lookup != nil && near == nil { throw ValidationError("--lookup needs --near LAT,LON") }
        if at != nil && name == nil && noAddress {
            throw ValidationError("--at without --name names the spot from the point's place or address: drop --no-address, or add --name NAME")
        }
        if let name, name.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--name needs a name that is not blank") }
    }

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let app = try state.openApp()
            let spots = try app.spots
            let attributes = try attributes.attributes(name: name)
            let spot: Spot
            if let from {
                let id = try PlaceID(parsing: from)
                spot = try await spots.spot(from: id, attributes: attributes, app: app)
            } else if let lookup, let point = near {
                let match: SpotLookupMatch
                switch try await spots.lookup(name: lookup, near: point, app: app) {
                case .success(let found): match = found
                case .failure(let miss):
                    let note = miss.budgetNote.map { " (\($0))" } ?? ""
                    throw InputError("no place named '\(miss.name)' found near \(miss.near)\(note); try another spelling, or save the point with --at LAT,LON --name NAME")
                }
                let distance = PlaceTable.formatDistance(GeoMath.distance(point, match.place.coordinate))
                printError("places: matched '\(match.place.name)' (\(match.place.id), \(distance) away, score \(String(format: "%.2f", match.score)), \(match.verdict), from \(match.source), cost \(match.cost))")
                var saved = Spot(saving: match.place, fetchedFrom: match.source)
                attributes.apply(to: &saved)
                spot = saved
            } else if let point = at {
                let (named, naming) = await spots.spot(at: point, attributes: attributes, app: noAddress ? nil : app)
                switch naming {
                case .place(let id, let distance):
                    printError("places: named it '\(named.name)' after the nearest place (\(id), \(PlaceTable.formatDistance(distance)) away)")
                case .address:
                    printError("places: named it '\(named.name)' after its address (no place within \(Int(SpotsService.namingRadius)) m)")
                case nil where name == nil:
                    throw InputError("nothing is known near \(point) to name the spot after: add --name NAME")
                case nil:
                    break
                }
                spot = named
            } else {
                throw InputError(Self.oneForm)
            }
            let saved: Spot
            do {
                saved = try await spots.add(spot, allowDuplicate: allowDuplicate)
            } catch let duplicate as DuplicateSpot {
                throw InputError("\(duplicate); add --allow-duplicate to save it anyway")
            }
            if json { try SpotOutput.printSpot(saved, json: true) } else {
                print(TerminalText.safe("saved \(SpotOutput.shortID(saved))  \(saved.name)  \(saved.address ?? "\(saved.coordinate)")"))
            }
        }
    }
}

struct SpotsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List saved spots, filtered and sorted.",
        discussion: """
            Examples:
              places spots list --category cafe --rating like
              places spots list --tag sauna --sort distance --at 60.17,24.94
              places spots list --group-by category --json
              places spots list --sort visited
            """)

    @Option(help: "Only spots in this category.")
    var category: String?

    @Option(name: .customLong("tag"), help: ArgumentHelp("Only spots with this tag; repeat to require several.", valueName: "TAG"))
    var tags: [String] = []

    @Option(help: ArgumentHelp("Only spots rated like, dislike or none.", valueName: "RATING"))
    var rating: String?

    @Option(help: ArgumentHelp(
        "name, recent (last edited first), added (newest first), visited (last visited first) or distance (needs --at).",
        valueName: "ORDER"))
    var sort: SpotFilter.Sort = .name

    @Option(parsing: .unconditional, help: ArgumentHelp("Reference point for distances.", valueName: "LAT,LON"), transform: Coordinate.argument)
    var at: Coordinate?

    @Option(help: ArgumentHelp("Group the list; only 'category' is supported.", valueName: "FIELD"))
    var groupBy: String?

    @Flag(help: "Print a JSON array (an object of arrays with --group-by).")
    var json = false

    @OptionGroup var state: StateOptions

    func validate() throws {
        if sort == .distance && at == nil { throw ValidationError("--sort distance needs --at LAT,LON") }
        if let groupBy, groupBy != "category" { throw ValidationError("invalid --group-by '\(groupBy)': only 'category' is supported") }
    }

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let reference = at
            let ratingFilter: SpotRating?? = try rating.map { try SpotRating.parse($0) }
            let category = category.map { PlaceCategory.normalize($0) ?? $0 }
            let spots = try await state.openSpots().list(
                SpotFilter(category: category, tags: tags, rating: ratingFilter, sort: sort, reference: reference))
            if groupBy != nil {
                var groups: [String: [Spot]] = [:]
                for spot in spots { groups[spot.category ?? "uncategorized", default: []].append(spot) }
                if json {
                    let object = groups.mapValues { $0.map { SpotJSON($0, reference: reference) } }
                    printData(try PlacesJSON.encode(object, pretty: isTerminal(.standardOutput)))
                } else {
                    for key in groups.keys.sorted() {
                        print(TerminalText.safe("\(key) (\(groups[key]!.count))"))
                        print(SpotOutput.table(groups[key]!, reference: reference), terminator: "")
                        print("")
                    }
                }
            } else if json {
                printData(try PlacesJSON.spots(spots, reference: reference, pretty: isTerminal(.standardOutput)))
            } else if spots.isEmpty {
                printError("no saved spots match")
            } else {
                print(SpotOutput.table(spots, reference: reference), terminator: "")
            }
        }
    }
}

struct SpotsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one spot with its attached place snapshot.",
        discussion: "Example:\n  places spots show 3f2a --json")

    @Argument(help: "The spot id or a prefix of it.")
    var id: String

    @Flag(help: "Print a JSON object.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            try SpotOutput.printSpot(try await state.openSpots().spot(id), json: json)
        }
    }
}

struct SpotsEditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Change a spot's name, category, tags, note, rating or position.",
        discussion: """
            Examples:
              places spots edit 3f2a --rating dislike --note "Too loud on Fridays"
              places spots edit 3f2a --add-tag terrace --remove-tag winter
            """)

    @Argument(help: "The spot id or a prefix of it.")
    var id: String

    @Option(help: "A new name.") var name: String?
    @Option(help: "A new category (empty to clear).") var category: String?
    @Option(help: ArgumentHelp("Add a tag; repeat for more.", valueName: "TAG")) var addTag: [String] = []
    @Option(help: ArgumentHelp("Remove a tag; repeat for more.", valueName: "TAG")) var removeTag: [String] = []
    @Option(help: "Replace the note (empty to clear).") var note: String?
    @Option(help: ArgumentHelp("like, dislike or none.", valueName: "RATING")) var rating: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Move the spot.", valueName: "LAT,LON"), transform: Coordinate.argument) var at: Coordinate?

    @Flag(help: "Print the edited spot as JSON.")
    var json = false

    @OptionGroup var state: StateOptions

    /// The options read into the one change value SPOT.EDIT reads its keywords into.
    func change() throws -> SpotsService.SpotChange {
        SpotsService.SpotChange(name: name, category: category, addTags: addTag, removeTags: removeTag, note: note,
                                rating: try rating.map { try SpotRating.parse($0) }, coordinate: at)
    }

    func validate() throws {
        // The rating's text is checked when the command runs, where a bad value is one line and exit 2.
        if rating == nil, SpotsService.SpotChange(name: name, category: category, addTags: addTag, removeTags: removeTag,
                                                   note: note, coordinate: at).isEmpty {
            throw ValidationError("say what to change: --name, --category, --add-tag, --remove-tag, --note, --rating or --at")
        }
    }

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let spot = try await state.openSpots().edit(id, try change())
            if json { try SpotOutput.printSpot(spot, json: true) } else { print(TerminalText.safe("updated \(SpotOutput.shortID(spot))  \(spot.name)")) }
        }
    }
}

struct SpotsRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Delete a spot (its visits stay, detached).",
        discussion: """
            Asks for confirmation on a terminal. In scripts (stdin not a terminal) pass --yes.

            Example:
              places spots rm 3f2a --yes
              places spots rm 3f2a --yes --json
            """)

    @Argument(help: "The spot id or a prefix of it.")
    var id: String

    @Flag(name: [.short, .long], help: "Delete without asking.")
    var yes = false

    @Flag(help: "Print the deleted spot as JSON (as SPOT.RM replies).")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let spots = try state.openSpots()
            let spot = try await spots.spot(id)
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw InputError("refusing to delete '\(spot.name)' without confirmation: stdin is not a terminal; add --yes")
                }
                FileHandle.standardError.write(Data("Delete '\(spot.name)' (\(SpotOutput.shortID(spot)))? [y/N] ".utf8))
                let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
                guard answer == "y" || answer == "yes" else {
                    printError("places: kept '\(spot.name)'")
                    return
                }
            }
            let removed = try await spots.remove(spot.id.storeKey)
            if json { try SpotOutput.printSpot(removed, json: true) } else {
                print(TerminalText.safe("deleted \(SpotOutput.shortID(removed))  \(removed.name)"))
            }
        }
    }
}

struct SpotsCategoriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "categories", abstract: "Count saved spots per category.",
        discussion: "Example:\n  places spots categories --json")

    @Flag(help: "Print a JSON array of {category, count}.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let counts = try await state.openSpots().categories()
            if json {
                struct Entry: Encodable { let category: String?; let count: Int
                    func encode(to encoder: any Encoder) throws {
                        var c = encoder.container(keyedBy: CodingKeys.self)
                        try c.encode(category, forKey: .category)
                        try c.encode(count, forKey: .count)
                    }
                    enum CodingKeys: String, CodingKey { case category, count }
                }
                printData(try PlacesJSON.encode(counts.map { Entry(category: $0.category, count: $0.count) }))
            } else {
                print(PlaceTable.render(rows: [["CATEGORY", "SPOTS"]] + counts.map { [$0.category ?? "(none)", String($0.count)] }), terminator: "")
            }
        }
    }
}

/// `--sort` takes the store's orders by name; a wrong one is refused with the valid ones listed.
extension SpotFilter.Sort: ExpressibleByArgument {}
