import Foundation

/// Reads Geofabrik's region index (`index-v1-nogeom.json`): a GeoJSON FeatureCollection whose features'
/// `properties` carry `id`, `name`, optional `parent`, and `urls.pbf`. Geofabrik publishes each extract's MD5 sum
/// beside it as `<pbf URL>.md5`; a feature may also carry it inline as `urls.md5` (or `md5`), which wins.
///
/// ```json
/// {"type":"FeatureCollection","features":[{"type":"Feature","properties":{
///   "id":"finland","parent":"europe","name":"Finland",
///   "urls":{"pbf":"https://download.geofabrik.de/europe/finland-latest.osm.pbf"}}}]}
/// ```
///
/// Features without a `.pbf` URL (a few umbrella regions) are left out. Pure: parses bytes, fetches nothing.
public enum GeofabrikIndex {
    /// The index file under the configured Geofabrik base URL.
    public static let indexPath = "index-v1-nogeom.json"

    public static func parse(_ data: Data) throws(RegionDataError) -> [Region] {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let features = root["features"] as? [Any] else {
            throw .badIndex("it is not a GeoJSON FeatureCollection with a \"features\" array")
        }
        var regions: [Region] = []
        for feature in features {
            guard let properties = (feature as? [String: Any])?["properties"] as? [String: Any],
                  let id = properties["id"] as? String, !id.isEmpty,
                  let urls = properties["urls"] as? [String: Any],
                  let pbfText = urls["pbf"] as? String,
                  let pbf = URL(string: pbfText), pbf.scheme == "http" || pbf.scheme == "https" else { continue }
            let checksum = (urls["md5"] as? String ?? properties["md5"] as? String).flatMap(URL.init(string:))
                ?? URL(string: pbfText + ".md5")
            regions.append(Region(id: id, name: properties["name"] as? String ?? id, parent: properties["parent"] as? String,
                                  source: .geofabrik, url: pbf, checksumURL: checksum))
        }
        guard !regions.isEmpty else { throw .badIndex("it names no region with a .osm.pbf download") }
        return regions
    }
}

/// The GeoNames dumps (`https://download.geonames.org/export/dump/`): the city lists, the whole gazetteer and
/// one zip per country. GeoNames publishes no checksums.
public enum GeoNamesDumps {
    /// The city lists and the whole gazetteer, with what each holds.
    public static let named: [(file: String, description: String)] = [
        ("cities15000", "GeoNames cities with population ≥ 15000 (bundled)"),
        ("cities5000", "GeoNames cities with population ≥ 5000"),
        ("cities1000", "GeoNames cities with population ≥ 1000"),
        ("cities500", "GeoNames cities with population ≥ 500"),
        ("allCountries", "GeoNames: every place in every country (≈ 400 MB zipped)"),
    ]

    /// ISO 3166-1 alpha-2 codes GeoNames has a per-country dump for.
    public static let countries: [String] = """
        AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ \
        CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR \
        GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO \
        JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR \
        MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO \
        RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV \
        TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)

    /// Every dump under `baseURL` (the folder that holds `cities1000.zip`).
    public static func regions(baseURL: URL) -> [Region] {
        let named = Self.named.map { dump in
            Region(id: "geonames:\(dump.file)", name: dump.description, source: .geonames,
                   url: baseURL.appendingPathComponent("\(dump.file).zip"))
        }
        let perCountry = countries.map { code in
            Region(id: "geonames:\(code)", name: "GeoNames: every place in \(code)", source: .geonames,
                   url: baseURL.appendingPathComponent("\(code).zip"))
        }
        return named + perCountry
    }
}
