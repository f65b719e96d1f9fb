import Foundation
import PlacesCore

/// The `[data]` section: where `places data` downloads regions from. The publishers' real sites are the
/// defaults; a mirror, or a fake server in tests, goes here or in the environment (which wins).
///
/// ```toml
/// [data]
/// geofabrik_url = "https://download.geofabrik.de"          # holds index-v1-nogeom.json
/// geonames_url = "https://download.geonames.org/export/dump" # holds cities1000.zip, FI.zip, …
/// ```
public struct DataSettings: Sendable, Hashable {
    public static let keys = ["geofabrik_url", "geonames_url"]
    public static let geofabrikVariable = "PLACES_GEOFABRIK_URL"
    public static let geonamesVariable = "PLACES_GEONAMES_URL"

    public var geofabrikURL = URL(string: "https://download.geofabrik.de")!
    public var geonamesURL = URL(string: "https://download.geonames.org/export/dump")!

    public init() {}

    /// Reads `[data]` from the parsed file, then lets `PLACES_GEOFABRIK_URL` and `PLACES_GEONAMES_URL` override it.
    public init(root: [String: ConfigValue], environment: [String: String]) throws(InputError) {
        self.init()
        if let value = root["data"] {
            guard let section = value.table else { throw InputError("config 'data' must be a [data] section, not a single value") }
            try ConfigNames.requireKnown(section, known: Self.keys, in: "config [data]")
            if let value = section["geofabrik_url"] { geofabrikURL = try Self.url(value.string, "config [data] geofabrik_url") }
            if let value = section["geonames_url"] { geonamesURL = try Self.url(value.string, "config [data] geonames_url") }
        }
        if let text = environment[Self.geofabrikVariable], !text.isEmpty { geofabrikURL = try Self.url(text, Self.geofabrikVariable) }
        if let text = environment[Self.geonamesVariable], !text.isEmpty { geonamesURL = try Self.url(text, Self.geonamesVariable) }
    }

    static func url(_ text: String?, _ name: String) throws(InputError) -> URL {
        guard let text, let url = URL(string: text.trimmingCharacters(in: .whitespaces)),
              url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw InputError("\(name) must be an http:// or https:// URL in quotes, e.g. \"https://download.geofabrik.de\"")
        }
        return url
    }
}
