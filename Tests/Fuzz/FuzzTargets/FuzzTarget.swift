import Foundation

/// One input kind the fuzzers feed, named as `run.sh`, the corpus folders and `PLACES_FUZZ_TARGET` name it.
///
/// Each target hands arbitrary bytes to a reader or parser the way the program would (a file on disk, a
/// socket's bytes, a config file's text) and then uses what came back the way a user would see it.
/// An input passes when it returns: a thrown error is the clean "one line and a non-zero exit" path.
/// A trap, an address-sanitizer report or a broken invariant (``FuzzTarget/check(_:_:)``) is a finding.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `RESPRequestParser`: the same bytes fed whole and in chunks must give the same requests.
    case resp
    /// The server's command table on every request of a RESP stream, and `SPOT.*` through its handlers.
    case command
    /// `OSMPBFReader` on a `.osm.pbf` file.
    case pbf
    /// `LocalImporter` on a `.osm.pbf` file, into an index in memory.
    case pbfImport = "pbf-import"
    /// `GeoNamesReader`; the first byte picks the container (text, gzip, zip).
    case geonames
    /// Spot imports (`SpotFiles.parse`) in each format, then the export of what was read.
    case geojson, takeout, gpx, kml, csv
    /// `RecordFile.parse` (the `places match` / `lookup --batch` CSV and JSON Lines inputs).
    case records
    /// `OpeningHours(osm:)`, then evaluation and the week's table.
    case hours
    /// `config.toml`: `PlacesConfiguration.parse`, the pipeline's settings and every provider's.
    case config

    /// Runs one input. Returns normally for accepted and cleanly refused input alike.
    public func run(_ data: Data) {
        switch self {
        case .resp: RESPFuzzing.parser(data)
        case .command: RESPFuzzing.commands(data)
        case .pbf: FileFuzzing.pbf(data)
        case .pbfImport: FileFuzzing.pbfImport(data)
        case .geonames: FileFuzzing.geoNames(data)
        case .geojson, .takeout: FileFuzzing.spots(data, format: .geojson)
        case .gpx: FileFuzzing.spots(data, format: .gpx)
        case .kml: FileFuzzing.spots(data, format: .kml)
        case .csv: FileFuzzing.spots(data, format: .csv)
        case .records: FileFuzzing.records(data)
        case .hours: TextFuzzing.hours(data)
        case .config: TextFuzzing.config(data)
        }
    }

    /// A broken invariant: stops the process so libFuzzer saves the input, with a line saying which rule broke.
    static func check(_ condition: @autoclosure () -> Bool, _ rule: @autoclosure () -> String) {
        if !condition() { fatalError("fuzz invariant broken: \(rule())") }
    }
}
