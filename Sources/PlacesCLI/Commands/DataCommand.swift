import ArgumentParser
import Foundation
import PlacesApp
import PlacesConfig
import PlacesCore
import RegionData

/// `places data list|fetch|update`: regions beyond the bundled Helsinki extract and GeoNames cities.
struct DataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "data",
        abstract: "Download, check and import OSM extracts (Geofabrik) and GeoNames dumps by region name.",
        discussion: """
            Region names are Geofabrik's ids (finland, europe, us/california) and GeoNames dumps prefixed \
            'geonames:' (geonames:cities1000, geonames:allCountries, geonames:FI). A download goes to the \
            'regions' folder of the data directory; a dropped connection is resumed where it stopped (also by \
            running the same command again); a Geofabrik extract is checked against the MD5 sum Geofabrik \
            publishes beside it before anything is imported. GeoNames publishes no checksums.

            The sources are configurable: [data] geofabrik_url and geonames_url in config.toml, or \
            PLACES_GEOFABRIK_URL and PLACES_GEONAMES_URL (which win).

            Examples:
              places data list finland
              places data fetch finland
              places data fetch geonames:cities1000
              places data update
            """,
        subcommands: [DataListCommand.self, DataFetchCommand.self, DataUpdateCommand.self])
}

struct DataListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the regions that can be fetched, optionally only those whose id or name contains FILTER.",
        discussion: """
            Reads Geofabrik's region index (one small request) and adds the GeoNames dumps. A region already \
            fetched is marked in the FETCHED column.

            Examples:
              places data list
              places data list europe
              places data list geonames: --json
            """)

    @Argument(help: "Only regions whose id, name or parent contains this text (case and accents ignored).")
    var filter: String = ""

    @Flag(help: "Print a JSON array.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let fetcher = try state.regionFetcher()
            let regions = try await fetcher.catalog(including: filter).matching(filter)
            let fetched = Dictionary(fetcher.fetched().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            if json {
                printData(try PlacesJSON.encode(regions.map { RegionJSON($0, fetched: fetched[$0.id]) }, pretty: isTerminal(.standardOutput)))
                return
            }
            guard !regions.isEmpty else {
                printError("places: no region matches '\(filter)'; `places data list` shows them all")
                throw ExitCode(1)
            }
            var rows: [[String]] = [["REGION", "NAME", "PARENT", "FETCHED"]]
            for region in regions {
                rows.append([region.id, region.name, region.parent ?? "-",
                             fetched[region.id].map { ISO8601DateFormatter().string(from: $0.fetchedAt).prefix(10).description } ?? "-"])
            }
            print(PlaceTable.render(rows: rows), terminator: "")
        }
    }
}

struct DataFetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download a region, check it, and import it into the local index.",
        discussion: """
            The extract is checked against Geofabrik's MD5 sum before the import; a file that does not match is \
            deleted and the index is left exactly as it was. Fetching a region again downloads it again and \
            replaces its places (use `places data update` to download only what changed).

            Examples:
              places data fetch finland
              places data fetch geonames:FI
            """)

    @Argument(help: "The region: a Geofabrik id (finland) or geonames:NAME (geonames:cities1000).")
    var region: String

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let fetcher = try state.regionFetcher()
            let found = try await fetcher.catalog(including: region).region(named: region)
            try await fetchAndImport(found, with: fetcher, state: state)
        }
    }
}

struct DataUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Fetch again the regions whose published file changed since they were fetched.",
        discussion: """
            Without REGION, every region fetched before. A Geofabrik extract is downloaded only when the MD5 sum \
            Geofabrik publishes now differs from the one it was fetched with; a GeoNames dump, which has no \
            published sum, is always downloaded again.

            Examples:
              places data update
              places data update finland
            """)

    @Argument(help: "Only this region (it need not have been fetched before).")
    var region: String?

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let fetcher = try state.regionFetcher()
            let previous = fetcher.fetched()
            let ids = region.map { [$0] } ?? previous.map(\.id)
            guard !ids.isEmpty else {
                printError("places: no region fetched yet; fetch one with `places data fetch REGION` (see `places data list`)")
                return
            }
            let catalog = try await fetcher.catalog(including: ids.allSatisfy { $0.lowercased().hasPrefix("geonames:") } ? ids[0] : nil)
            for id in ids {
                let found = try catalog.region(named: id)
                let before = previous.first { $0.id == found.id }
                if let known = before?.md5, let now = try await fetcher.publishedMD5(of: found), now == known {
                    printError("places: \(found.id) is up to date (MD5 \(known))")
                    continue
                }
                try await fetchAndImport(found, with: fetcher, state: state)
            }
        }
    }
}

/// Downloads (with progress on a terminal), checks and imports one region; says each step on stderr.
private func fetchAndImport(_ region: Region, with fetcher: RegionFetcher, state: StateOptions) async throws {
    let md5 = try await fetcher.publishedMD5(of: region)
    let bar = ProgressBar.ifWanted(label: region.fileName, finishing: "checking the download…")
    var progress: ResumableDownloader.Progress?
    if let bar { progress = { received, expected in bar.update(done: received, total: expected ?? 0) } }
    let (fetched, file) = try await fetcher.fetch(region, md5: md5, progress: progress) { offset in
        bar?.finish()
        printError("places: resuming \(region.fileName) from byte \(offset)")
    }
    bar?.finish()
    let check = fetched.md5.map { "MD5 \($0) matches Geofabrik's" } ?? "GeoNames publishes no checksum"
    printError("places: downloaded \(fetched.file) (\(fetched.bytes) bytes; \(check)); importing…")
    let app = try state.openApp()
    let importBar = ProgressBar.ifWanted(label: "importing \(region.fileName)", finishing: ImportCommand.finishingPhase)
    var importProgress: (@Sendable (_ bytesRead: Int64, _ totalBytes: Int64) -> Void)?
    if let importBar { importProgress = { importBar.update(done: $0, total: $1) } }
    let summary = try app.importFile(file, progress: importProgress)
    importBar?.finish()
    printError("places: \(summary)")
}

extension StateOptions {
    /// The fetcher for this configuration: sources from `[data]` and the environment, files under `regions/`.
    func regionFetcher() throws -> RegionFetcher {
        let environment = self.environment
        let configuration = try PlacesConfiguration.load(environment)
        let settings = try DataSettings(root: configuration.root, environment: environment.variables)
        return RegionFetcher(geofabrikBaseURL: settings.geofabrikURL, geonamesBaseURL: settings.geonamesURL,
                             directory: environment.dataDirectory.appendingPathComponent("regions"),
                             userAgent: PlacesVersion.userAgentProduct)
    }
}

/// One region in `places data list --json`.
struct RegionJSON: Encodable {
    var id: String
    var name: String
    var parent: String?
    var source: String
    var url: String
    var fetchedAt: Date?
    var md5: String?

    init(_ region: Region, fetched: FetchedRegion?) {
        id = region.id
        name = region.name
        parent = region.parent
        source = region.source.rawValue
        url = Redaction.urlPasswords(region.url.absoluteString)
        fetchedAt = fetched?.fetchedAt
        md5 = fetched?.md5
    }

    enum CodingKeys: String, CodingKey { case id, name, parent, source, url, fetchedAt = "fetched_at", md5 }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(parent, forKey: .parent)
        try container.encode(source, forKey: .source)
        try container.encode(url, forKey: .url)
        try container.encode(fetchedAt, forKey: .fetchedAt)
        try container.encode(md5, forKey: .md5)
    }
}
