import ArgumentParser
import Foundation
import PlacesApp
import PlaceIndex
import PlacesCore
import SpotStore

struct SpotsWatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Proximity alerts: read location fixes, print enter/exit events as JSON Lines.",
        discussion: """
            Fixes come from stdin, one per line: lat,lon[,accuracy_m[,ISO8601 time]], or from a GPX track \
            with --gpx FILE. Each event is one line:
              {"event":"enter","distance_m":61.2,"spot":{"name":"Ateneum",…},"time":"…"}
            Fixes less accurate than --min-accuracy are ignored (fixes without an accuracy are trusted).
            A spot is left only beyond --radius plus --exit-margin, so jitter at the edge does not flap.
            Only the --monitor nearest spots are watched; that set is recomputed after moving \
            --refresh-distance metres. Memory stays constant however long the stream.
            Lines without a time are stamped with the time they were read.

            Besides saved spots (narrowed with --category, --tag and --rating), it can watch places from the \
            local index: every shop of a brand (--brand, punctuation and case ignored, so "roberts coffee" \
            finds Robert's Coffee) and every place of a category (--place-category). Each event carries the \
            spot's or place's name, category, note and rating ("kind":"spot" or "place").

            Examples:
              places spots watch --radius 200 < fixes.csv
              places spots watch --radius 200 --brand Alko --place-category pharmacy --no-spots < fixes.csv
              places spots watch --category cafe --rating like < fixes.csv
              gpsd-to-csv | places spots watch --min-accuracy 30
              places spots watch --gpx morning-walk.gpx
            """)

    @Option(parsing: .unconditional, help: ArgumentHelp("Enter within this many metres (805 m is half a mile).", valueName: "M"),
            transform: Metres.argument)
    var radius: Double = 805

    @Option(parsing: .unconditional, help: "Leave only beyond radius plus this many metres.")
    var exitMargin: Double = 50

    @Option(parsing: .unconditional, help: ArgumentHelp("Ignore fixes whose accuracy (metres) is worse than this.", valueName: "M"),
            transform: Metres.argument)
    var minAccuracy: Double = 20

    @Option(parsing: .unconditional, help: "Watch this many nearest spots at a time.")
    var monitor = 20

    @Option(parsing: .unconditional, help: ArgumentHelp("Recompute the watched spots after moving this many metres.", valueName: "M"),
            transform: Metres.argument)
    var refreshDistance: Double = 1_500

    @Option(help: ArgumentHelp("Read fixes from a GPX track instead of stdin.", valueName: "FILE"))
    var gpx: String?

    @Option(name: .customLong("brand"), help: ArgumentHelp(
        "Also watch every place of this brand in the local index; repeat for several.", valueName: "NAME"))
    var brands: [String] = []

    @Option(name: .customLong("place-category"), help: ArgumentHelp(
        "Also watch every place of this category in the local index (pharmacy, cafe); repeat for several.",
        valueName: "CATEGORY"))
    var placeCategories: [String] = []

    @Option(help: ArgumentHelp("Watch only saved spots in this category.", valueName: "CATEGORY"))
    var category: String?

    @Option(name: .customLong("tag"), help: ArgumentHelp("Watch only saved spots with this tag; repeat to require several.", valueName: "TAG"))
    var tags: [String] = []

    @Option(help: ArgumentHelp("Watch only saved spots rated like, dislike or none.", valueName: "RATING"))
    var rating: String?

    @Flag(help: "Watch no saved spots: only the places --brand and --place-category name.")
    var noSpots = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            guard exitMargin >= 0 else { throw InputError("invalid --exit-margin \(exitMargin): expected 0 or more metres") }
            guard monitor >= 1 else { throw InputError("invalid --monitor \(monitor): expected at least 1") }
            if noSpots && brands.isEmpty && placeCategories.isEmpty {
                throw InputError("--no-spots leaves nothing to watch: add --brand NAME or --place-category CATEGORY")
            }
            let app = try state.openApp()
            var points: [SpotPoint] = []
            if !noSpots {
                let ratingFilter: SpotRating?? = try rating.map { try SpotRating.parse($0) }
                let filter = SpotFilter(category: category.map { PlaceCategory.normalize($0) ?? $0 }, tags: tags, rating: ratingFilter)
                points = try await app.spots.list(filter).map(SpotPoint.init)
                if points.isEmpty && brands.isEmpty && placeCategories.isEmpty {
                    printError("places: no saved spots to watch; add some with `places spots add`")
                }
            }
            if !brands.isEmpty || !placeCategories.isEmpty {
                let places = try await WatchedPlaces.load(brands: brands, categories: placeCategories, app: app)
                if places.isEmpty {
                    printError("places: the local index has no place of that brand or category; import an extract that covers the area")
                }
                points += places
            }
            var watch = ProximityWatch(spots: points, settings: ProximityWatchSettings(
                radius: radius, exitMargin: exitMargin, minAccuracy: minAccuracy, monitorCount: monitor,
                refreshDistance: refreshDistance))
            let encoder = PlacesJSON.encoder()
            let output = FileHandle.standardOutput
            func emit(_ event: ProximityEvent) {
                guard let data = try? encoder.encode(ProximityEventJSON(event)) else { return }
                output.write(data + Data("\n".utf8))
            }
            if let gpx {
                let url = URL(fileURLWithPath: gpx)
                nonisolated(unsafe) var engine = watch
                try GPXTrackReader.read(url) { fix in engine.process(fix, emit: emit) }
                watch = engine
            } else {
                var lineNumber = 0
                while let line = readLine(strippingNewline: true) {
                    lineNumber += 1
                    if line.allSatisfy(\.isWhitespace) || line.hasPrefix("#") { continue }
                    do {
                        var fix = try LocationFix(line: line)
                        if fix.time == nil { fix.time = Date() }
                        watch.process(fix, emit: emit)
                    } catch let error as InputError {
                        printError("places: line \(lineNumber): \(error.message)")
                    }
                }
            }
            if watch.ignoredFixes > 0 {
                printError("places: ignored \(watch.ignoredFixes) of \(watch.ignoredFixes + watch.acceptedFixes) fixes less accurate than \(Int(minAccuracy)) m")
            }
        }
    }
}

/// Places from the local index that `spots watch --brand/--place-category` adds to the saved spots.
enum WatchedPlaces {
    /// Every place in each imported extract that is of one of `brands` (its brand tag, or its name's words, equal
    /// the brand with punctuation and case ignored) or in one of `categories`; each place once.
    static func load(brands: [String], categories: [String], app: PlacesApplication) async throws -> [SpotPoint] {
        let areas = try app.indexedSources().compactMap(\.bounds)
        let keys = Set(brands.map(PlaceIndexStore.brandKey).filter { !$0.isEmpty })
        var seen = Set<PlaceID>()
        var points: [SpotPoint] = []
        for area in areas {
            let center = Coordinate(latitude: (area.minLatitude + area.maxLatitude) / 2,
                                    longitude: (area.minLongitude + area.maxLongitude) / 2)
            let corner = Coordinate(latitude: area.maxLatitude, longitude: area.maxLongitude)
            let radius = min(InputRange.maxRadiusMeters, GeoMath.distance(center, corner) * 1.01 + 100)
            var found: [Place] = []
            for brand in brands {
                let candidates = try await app.nearby(NearbyQuery(center: center, radius: radius, brand: brand, limit: Int(Int32.max)))
                found += candidates.filter { isOfBrand($0, keys: keys) }
            }
            for category in categories {
                found += try await app.nearby(NearbyQuery(center: center, radius: radius, category: category, limit: Int(Int32.max)))
            }
            for place in found where seen.insert(place.id).inserted {
                points.append(SpotPoint(id: UUID(), name: place.name, coordinate: place.coordinate, placeID: place.id.description,
                                        category: place.categoryLabel))
            }
        }
        return points
    }

    /// The index's brand filter also takes names that merely contain the brand ("Valkoinen talo" for "alko"); a
    /// place is of the brand when its brand tag is, or a run of whole words of its name spells it.
    static func isOfBrand(_ place: Place, keys: Set<String>) -> Bool {
        if let brand = place.brand, keys.contains(PlaceIndexStore.brandKey(brand)) { return true }
        let words = TextFolding.fold(place.name).replacingOccurrences(of: "'", with: "")
            .split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
        for start in words.indices {
            var run = ""
            for word in words[start...] {
                run += word
                if keys.contains(run) { return true }
            }
        }
        return false
    }
}

struct SpotsImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import spots from GeoJSON (incl. Google Takeout), GPX, KML or CSV.",
        discussion: """
            The format comes from the file name (.geojson/.json, .gpx, .kml, .csv) unless --format says.
            Google Takeout's "Saved Places.json" is read as it is. The import is one transaction.
            Spots that look already saved (the place matcher, within 150 m) are reported, not added twice.
            --replace restores a backup: it first writes the current spots to spots-backup-<time>.geojson \
            in the data directory, then replaces everything with the file's contents.

            Examples:
              places spots import "Saved Places.json"
              places spots import spots.gpx
              places spots import backup.geojson --replace
            """)

    @Argument(help: "The file to import.")
    var file: String

    @Option(help: ArgumentHelp("geojson, gpx, kml or csv.", valueName: "FORMAT"))
    var format: String?

    @Flag(help: "Replace all spots and visits with the file's (after writing a backup).")
    var replace = false

    @Flag(help: "Print a JSON report.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let url = URL(fileURLWithPath: file)
            let chosen = try format.map { text throws(InputError) in
                guard let value = SpotFormat(rawValue: text.lowercased()) else {
                    throw InputError("invalid --format '\(text)': expected geojson, gpx, kml or csv")
                }
                return value
            } ?? SpotFormat(fileExtension: url)
            guard let chosen else {
                throw InputError("cannot tell the format of '\(file)' from its name: add --format geojson|gpx|kml|csv")
            }
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw InputError("cannot read '\(file)': no such file, or no permission")
            }
            let archive = try SpotFiles.parse(data, format: chosen)
            // Nothing usable is a failed import, not an empty success (and --replace must not wipe the spots for it).
            if archive.spots.isEmpty && archive.visits.isEmpty, let first = archive.skipped.first {
                let count = archive.skipped.count
                throw InputError("nothing imported from '\(file)': \(count == 1 ? "its one entry was" : "all \(count) entries were") skipped (first: \(first))")
            }
            let report = try await state.openSpots().importArchive(archive, replace: replace)
            if json {
                struct Duplicate: Encodable { let name: String; let existingId: String; let existingName: String
                    enum CodingKeys: String, CodingKey { case name; case existingId = "existing_id"; case existingName = "existing_name" } }
                struct Report: Encodable { let added: Int; let visits: Int; let duplicates: [Duplicate]; let skipped: [String]; let backup: String? }
                printData(try PlacesJSON.encode(Report(
                    added: report.added.count, visits: report.visits,
                    duplicates: report.duplicates.map { Duplicate(name: $0.incoming.name, existingId: $0.existing.id.storeKey, existingName: $0.existing.name) },
                    skipped: report.skipped, backup: report.backup?.path)))
                return
            }
            if let backup = report.backup { printError("places: backed up the previous spots to \(backup.path)") }
            for duplicate in report.duplicates {
                printError("places: duplicate: '\(duplicate.incoming.name)' is already saved as '\(duplicate.existing.name)' (\(SpotOutput.shortID(duplicate.existing)))")
            }
            for line in report.skipped { printError("places: skipped \(line)") }
            print("imported \(report.added.count) spots, \(report.visits) visits; \(report.duplicates.count) duplicates, \(report.skipped.count) skipped")
        }
    }
}

struct SpotsExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export every spot as GeoJSON (the backup, with visits), GPX, KML or CSV.",
        discussion: """
            Every field survives export then import; GeoJSON also carries the visits, which makes it the backup.

            Examples:
              places spots export > backup.geojson
              places spots export --format gpx --output spots.gpx
              places spots export --format csv --output spots.csv
            """)

    @Option(help: ArgumentHelp("geojson, gpx, kml or csv.", valueName: "FORMAT"))
    var format: String = "geojson"

    @Option(help: ArgumentHelp("Write to FILE instead of stdout.", valueName: "FILE"))
    var output: String?

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            guard let chosen = SpotFormat(rawValue: format.lowercased()) else {
                throw InputError("invalid --format '\(format)': expected geojson, gpx, kml or csv")
            }
            let data = try await state.openSpots().export(format: chosen)
            if let output {
                do { try data.write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
                    throw InputError("cannot write '\(output)': \(error.localizedDescription)")
                }
            } else {
                FileHandle.standardOutput.write(data)
            }
        }
    }
}
