import ArgumentParser
import Foundation
import PlaceIndex
import PlacesApp
import PlacesCore

struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Show what the local index holds: each imported file, the area it covers, its counts.",
        discussion: """
            One row per imported file: its kind, when it was imported, the bounding box of its objects, \
            how many places, address points, names (alternate names included) and cities it added, and its \
            size and CRC-32 as read. A search with --near outside every extract's box finds only cities; \
            add data with `places import FILE`.

            Examples:
              places index
              places index --json
            """)

    @Flag(help: "Print a JSON array.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors {
            let app = try state.openApp()
            let sources = try app.indexedSources()
            if json {
                printData(try PlacesJSON.encode(sources.map(IndexedSourceJSON.init), pretty: isTerminal(.standardOutput)))
                return
            }
            var rows: [[String]] = [["FILE", "KIND", "IMPORTED", "AREA", "PLACES", "ADDRESSES", "NAMES", "CITIES", "BYTES", "CRC32"]]
            for source in sources {
                rows.append([
                    source.name, source.kind, ISO8601DateFormatter().string(from: source.importedAt),
                    source.bounds?.description ?? "-", String(source.places), String(source.addressPoints),
                    String(source.names), String(source.cities), String(source.bytes), source.checksum.isEmpty ? "-" : source.checksum,
                ])
            }
            print(PlaceTable.render(rows: rows), terminator: "")
        }
    }
}

/// One imported file in `places index --json`.
struct IndexedSourceJSON: Encodable {
    var file: String
    var kind: String
    var importedAt: Date
    var bbox: [Double]?
    var places: Int
    var addressPoints: Int
    var names: Int
    var cities: Int
    var bytes: Int64
    var crc32: String?
    var format: Int

    init(_ source: IndexedSource) {
        file = source.name
        kind = source.kind
        importedAt = source.importedAt
        bbox = source.bounds.map { [$0.minLongitude, $0.minLatitude, $0.maxLongitude, $0.maxLatitude] }
        places = source.places
        addressPoints = source.addressPoints
        names = source.names
        cities = source.cities
        bytes = source.bytes
        crc32 = source.checksum.isEmpty ? nil : source.checksum
        format = source.format
    }
}
