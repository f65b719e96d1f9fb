import CSVText
import Foundation
import PlacesCore

/// The file formats spots travel in. GeoJSON is the backup format: it also carries visits.
/// GPX (waypoints), KML (placemarks) and CSV carry spots, with every field, so other apps can read them.
public enum SpotFormat: String, CaseIterable, Sendable {
    case geojson, gpx, kml, csv

    /// The format a file name implies (`.json` counts as GeoJSON: Google Takeout's "Saved Places.json").
    public init?(fileExtension url: URL) {
        switch url.pathExtension.lowercased() {
        case "geojson", "json": self = .geojson
        case "gpx": self = .gpx
        case "kml": self = .kml
        case "csv": self = .csv
        default: return nil
        }
    }
}

/// What an import read, or an export writes.
public struct SpotArchive: Hashable, Sendable {
    public var spots: [Spot]
    public var visits: [Visit]
    /// Entries that could not become spots (no coordinates, …), one human line each.
    public var skipped: [String]

    public init(spots: [Spot] = [], visits: [Visit] = [], skipped: [String] = []) {
        self.spots = spots
        self.visits = visits
        self.skipped = skipped
    }
}

extension Date {
    /// Whole milliseconds: the precision of every timestamp spots store and export, so exports round-trip exactly.
    public var roundedToMilliseconds: Date {
        Date(timeIntervalSinceReferenceDate: (timeIntervalSinceReferenceDate * 1000).rounded() / 1000)
    }
}

/// Reading and writing ``SpotArchive``s in each ``SpotFormat``.
public enum SpotFiles {
    static let fieldOrder = [
        "id", "name", "lat", "lon", "category", "tags", "notes", "rating", "address", "url", "created_at", "updated_at",
        "place_ids", "snapshot", "snapshot_fetched_at", "snapshot_source",
    ]

    public static func export(_ archive: SpotArchive, format: SpotFormat) throws -> Data {
        switch format {
        case .geojson: try geoJSON(archive)
        case .gpx: Data(gpx(archive.spots).utf8)
        case .kml: Data(kml(archive.spots).utf8)
        case .csv: Data(try csv(archive.spots).utf8)
        }
    }

    public static func parse(_ data: Data, format: SpotFormat, now: Date = Date()) throws -> SpotArchive {
        switch format {
        case .geojson: try parseGeoJSON(data, now: now)
        case .gpx: try parseGPX(data, now: now)
        case .kml: try parseKML(data, now: now)
        case .csv: try parseCSV(data, now: now)
        }
    }

    // MARK: Timestamps

    /// `2026-05-01T09:30:00.123Z`, exact to the millisecond (no floating-point truncation).
    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = Int64((Double(milliseconds) / 1000).rounded(.down))
        let fraction = milliseconds - seconds * 1000
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(fraction))
    }

    static func date(_ text: String?, field: String) throws -> Date? {
        guard let text, !text.isEmpty else { return nil }
        guard let date = SpotTime.parseDate(text) else {
            throw InputError("invalid \(field) '\(text)': expected an ISO 8601 time such as 2026-05-01T09:30:00Z")
        }
        return date.roundedToMilliseconds
    }

    // MARK: Flat records (GPX, KML, CSV)

    /// Every field of a spot as text; structured values are JSON so they survive any container.
    static func flat(_ spot: Spot) throws -> [String: String] {
        var fields: [String: String] = [
            "id": spot.id.storeKey, "name": spot.name, "lat": "\(spot.coordinate.latitude)",
            "lon": "\(spot.coordinate.longitude)", "created_at": timestamp(spot.createdAt),
            "updated_at": timestamp(spot.updatedAt),
        ]
        fields["category"] = spot.category
        if !spot.tags.isEmpty { fields["tags"] = try SpotCoding.jsonText(spot.tags) }
        fields["notes"] = spot.notes
        fields["rating"] = spot.rating?.rawValue
        fields["address"] = spot.address
        fields["url"] = spot.url
        if !spot.placeIDs.isEmpty { fields["place_ids"] = try SpotCoding.jsonText(spot.placeIDs) }
        if let snapshot = spot.snapshot {
            fields["snapshot"] = try SpotCoding.jsonText(snapshot.place)
            fields["snapshot_fetched_at"] = timestamp(snapshot.fetchedAt)
            fields["snapshot_source"] = snapshot.source
        }
        return fields
    }

    /// A spot from text fields. Lists may be JSON arrays or `;`-separated, so hand-made CSVs work too.
    static func spot(flat fields: [String: String], now: Date) throws -> Spot {
        func value(_ key: String) -> String? {
            guard let text = fields[key]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return text
        }
        guard let name = value("name") ?? value("title") else { throw InputError("an entry has no name") }
        guard let lat = (value("lat") ?? value("latitude")).flatMap(Double.init),
              let lon = (value("lon") ?? value("lng") ?? value("longitude")).flatMap(Double.init) else {
            throw InputError("'\(name)' has no coordinates")
        }
        let coordinate = try Coordinate(validatingLatitude: lat, longitude: lon)
        func list(_ key: String) throws -> [String] {
            guard let text = value(key) else { return [] }
            if text.hasPrefix("[") { return try SpotCoding.decode([String].self, text) }
            return text.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let rating = try value("rating").map { try SpotRating.parse($0) } ?? nil
        var snapshot: SpotSnapshot?
        if let text = value("snapshot") {
            snapshot = SpotSnapshot(place: try SpotCoding.decode(Place.self, text),
                                    fetchedAt: try date(value("snapshot_fetched_at"), field: "snapshot_fetched_at") ?? now,
                                    source: value("snapshot_source") ?? "import")
        }
        let created = try date(value("created_at"), field: "created_at") ?? now.roundedToMilliseconds
        return Spot(
            id: value("id").flatMap(UUID.init(uuidString:)) ?? UUID(), name: name, coordinate: coordinate,
            category: value("category"), tags: try list("tags"), notes: value("notes"), rating: rating,
            address: value("address"), url: value("url"), createdAt: created,
            updatedAt: try date(value("updated_at"), field: "updated_at") ?? created,
            placeIDs: try list("place_ids").map { text throws(InputError) in try PlaceID(parsing: text) }, snapshot: snapshot)
    }

    // MARK: GeoJSON

    static func geoJSON(_ archive: SpotArchive) throws -> Data {
        var features: [[String: Any]] = []
        for spot in archive.spots {
            var properties: [String: Any] = ["places_kind": "spot"]
            for (key, text) in try flat(spot) where !["lat", "lon"].contains(key) {
                switch key {
                case "tags", "place_ids", "snapshot": properties[key] = try JSONSerialization.jsonObject(with: Data(text.utf8))
                default: properties[key] = text
                }
            }
            features.append(["type": "Feature", "id": spot.id.storeKey, "properties": properties,
                             "geometry": ["type": "Point", "coordinates": [spot.coordinate.longitude, spot.coordinate.latitude]]])
        }
        for visit in archive.visits {
            var properties: [String: Any] = [
                "places_kind": "visit", "id": visit.id.storeKey, "time": timestamp(visit.time), "time_zone": visit.timeZone,
            ]
            properties["spot_id"] = visit.spotID?.storeKey
            properties["note"] = visit.note
            properties["photo_path"] = visit.photoPath
            properties["street"] = visit.address?.street
            properties["house_number"] = visit.address?.houseNumber
            properties["city"] = visit.address?.city
            properties["country"] = visit.address?.country
            features.append(["type": "Feature", "id": visit.id.storeKey, "properties": properties,
                             "geometry": ["type": "Point", "coordinates": [visit.coordinate.longitude, visit.coordinate.latitude]]])
        }
        let collection: [String: Any] = ["type": "FeatureCollection", "features": features]
        return try JSONSerialization.data(withJSONObject: collection, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    static func parseGeoJSON(_ data: Data, now: Date) throws -> SpotArchive {
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw InputError("cannot read the GeoJSON file: it is not valid JSON")
        }
        let features: [[String: Any]]
        if let object = root as? [String: Any], let list = object["features"] as? [[String: Any]] {
            features = list
        } else if let object = root as? [String: Any], object["type"] as? String == "Feature" {
            features = [object]
        } else {
            throw InputError("cannot read the GeoJSON file: expected a FeatureCollection with a \"features\" array")
        }
        var archive = SpotArchive()
        for (n, feature) in features.enumerated() {
            let properties = feature["properties"] as? [String: Any] ?? [:]
            let geometry = (feature["geometry"] as? [String: Any])?["coordinates"] as? [Any]
            let point = geometry.flatMap { coordinates -> (Double, Double)? in
                guard coordinates.count >= 2, let lon = number(coordinates[0]), let lat = number(coordinates[1]) else { return nil }
                return (lat, lon)
            }
            do {
                if properties["places_kind"] as? String == "visit" {
                    archive.visits.append(try visit(properties, point: point))
                } else if isTakeout(properties) {
                    guard let spot = try takeoutSpot(properties, point: point, now: now) else {
                        let title = properties["Title"] as? String ?? (properties["location"] as? [String: Any])?["name"] as? String ?? ""
                        archive.skipped.append("feature \(n + 1) '\(title)': no coordinates")
                        continue
                    }
                    archive.spots.append(spot)
                } else {
                    var fields: [String: String] = [:]
                    for (key, value) in properties {
                        if let text = value as? String { fields[key] = text }
                        else if value is NSNull { continue }
                        else if let number = value as? NSNumber { fields[key] = number.stringValue }
                        else { fields[key] = String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.withoutEscapingSlashes]), as: UTF8.self) }
                    }
                    if fields["name"] == nil { fields["name"] = fields["Name"] ?? fields["title"] }
                    if fields["id"] == nil, let id = feature["id"] as? String { fields["id"] = id }
                    if let point { fields["lat"] = "\(point.0)"; fields["lon"] = "\(point.1)" }
                    archive.spots.append(try spot(flat: fields, now: now))
                }
            } catch let error as InputError {
                archive.skipped.append("feature \(n + 1): \(error.message)")
            }
        }
        return archive
    }

    private static func number(_ value: Any?) -> Double? {
        if let number = value as? NSNumber { return number.doubleValue }
        if let text = value as? String { return Double(text.trimmingCharacters(in: .whitespaces)) }
        return nil
    }

    /// Whether a feature's properties are a Google Takeout "Saved Places" entry: the older export's capitalised
    /// `Title`/`Location`/`Google Maps URL`, or the newer one's lower-case `location` object and `google_maps_url`.
    static func isTakeout(_ properties: [String: Any]) -> Bool {
        properties["Title"] != nil || properties["Location"] != nil || properties["Google Maps URL"] != nil
            || properties["location"] is [String: Any] || properties["google_maps_url"] != nil
    }

    /// One entry of Google Takeout's "Saved Places.json", in either shape Google has exported:
    ///
    /// - older: `Title`, `Published`, `Updated`, `Google Maps URL`, and `Location` with `Business Name`, `Address`
    ///   and `Geo Coordinates` (`Latitude`/`Longitude`);
    /// - newer (2024 on): `date`, `google_maps_url`, and `location` with `name`, `address` and `country_code`; the
    ///   position only in the feature's geometry.
    ///
    /// Entries without a position come with `[0, 0]` geometry in real exports (the newer shape adds a `Comment`
    /// saying so); those are skipped rather than saved off the coast of Africa.
    static func takeoutSpot(_ properties: [String: Any], point: (Double, Double)?, now: Date) throws -> Spot? {
        func text(_ value: Any?) -> String? {
            (value as? String).flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        }
        let location = properties["Location"] as? [String: Any] ?? properties["location"] as? [String: Any] ?? [:]
        let geo = location["Geo Coordinates"] as? [String: Any]
        var lat = number(geo?["Latitude"]), lon = number(geo?["Longitude"])
        if lat == nil || lon == nil, let point { (lat, lon) = point }
        guard let lat, let lon, !(lat == 0 && lon == 0) else { return nil }
        let address = text(location["Address"]) ?? text(location["address"])
        guard let name = text(location["Business Name"]) ?? text(location["name"]) ?? text(properties["Title"]) ?? address else {
            return nil
        }
        let created = try date(properties["Published"] as? String, field: "Published")
            ?? date(properties["date"] as? String, field: "date") ?? now.roundedToMilliseconds
        return Spot(
            name: name, coordinate: try Coordinate(validatingLatitude: lat, longitude: lon), address: address,
            url: text(properties["Google Maps URL"]) ?? text(properties["google_maps_url"]), createdAt: created,
            updatedAt: try date(properties["Updated"] as? String, field: "Updated") ?? created)
    }

    private static func visit(_ properties: [String: Any], point: (Double, Double)?) throws -> Visit {
        guard let point else { throw InputError("a visit has no coordinates") }
        guard let time = try date(properties["time"] as? String, field: "time") else { throw InputError("a visit has no time") }
        return Visit(
            id: (properties["id"] as? String).flatMap(UUID.init(uuidString:)) ?? UUID(),
            spotID: (properties["spot_id"] as? String).flatMap(UUID.init(uuidString:)), time: time,
            timeZone: properties["time_zone"] as? String ?? "GMT",
            coordinate: try Coordinate(validatingLatitude: point.0, longitude: point.1),
            note: properties["note"] as? String, photoPath: properties["photo_path"] as? String,
            address: VisitAddress(street: properties["street"] as? String, houseNumber: properties["house_number"] as? String,
                                  city: properties["city"] as? String, country: properties["country"] as? String))
    }

    // MARK: GPX

    static let extensionNamespace = "urn:places:spots:1"

    static func gpx(_ spots: [Spot]) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="places" xmlns="http://www.topografix.com/GPX/1/1" xmlns:places="\(extensionNamespace)">

            """
        for spot in spots {
            guard let fields = try? flat(spot) else { continue }
            out += "  <wpt lat=\"\(fields["lat"]!)\" lon=\"\(fields["lon"]!)\">\n"
            out += "    <time>\(fields["created_at"]!)</time>\n    <name>\(xmlEscaped(spot.name))</name>\n"
            if let notes = spot.notes { out += "    <desc>\(xmlEscaped(notes))</desc>\n" }
            if let category = spot.category { out += "    <type>\(xmlEscaped(category))</type>\n" }
            out += "    <extensions>\n"
            for key in fieldOrder where !["lat", "lon", "name", "notes", "category", "created_at"].contains(key) {
                if let value = fields[key] { out += "      <places:\(key)>\(xmlEscaped(value))</places:\(key)>\n" }
            }
            out += "    </extensions>\n  </wpt>\n"
        }
        return out + "</gpx>\n"
    }

    static func parseGPX(_ data: Data, now: Date) throws -> SpotArchive {
        let root = try XMLElementNode.parse(data, what: "GPX")
        guard root.name == "gpx" else { throw InputError("cannot read the GPX file: its root element is <\(root.name)>, not <gpx>") }
        var archive = SpotArchive()
        for (n, waypoint) in root.children.filter({ $0.name == "wpt" }).enumerated() {
            var fields: [String: String] = ["lat": waypoint.attributes["lat"] ?? "", "lon": waypoint.attributes["lon"] ?? ""]
            fields["name"] = waypoint.childText("name")
            fields["notes"] = waypoint.childText("desc") ?? waypoint.childText("cmt")
            fields["category"] = waypoint.childText("type")
            fields["created_at"] = waypoint.childText("time")
            for field in waypoint.child("extensions")?.children ?? [] where fieldOrder.contains(field.name) {
                fields[field.name] = field.text
            }
            do { archive.spots.append(try spot(flat: fields, now: now)) } catch let error as InputError {
                archive.skipped.append("waypoint \(n + 1): \(error.message)")
            }
        }
        return archive
    }

    // MARK: KML

    static func kml(_ spots: [Spot]) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2">
            <Document>
              <name>places spots</name>

            """
        for spot in spots {
            guard let fields = try? flat(spot) else { continue }
            out += "  <Placemark id=\"\(spot.id.storeKey)\">\n    <name>\(xmlEscaped(spot.name))</name>\n"
            if let notes = spot.notes { out += "    <description>\(xmlEscaped(notes))</description>\n" }
            out += "    <ExtendedData>\n"
            for key in fieldOrder where !["lat", "lon", "name", "notes"].contains(key) {
                if let value = fields[key] {
                    out += "      <Data name=\"\(key)\"><value>\(xmlEscaped(value))</value></Data>\n"
                }
            }
            out += "    </ExtendedData>\n"
            out += "    <Point><coordinates>\(fields["lon"]!),\(fields["lat"]!)</coordinates></Point>\n  </Placemark>\n"
        }
        return out + "</Document>\n</kml>\n"
    }

    static func parseKML(_ data: Data, now: Date) throws -> SpotArchive {
        let root = try XMLElementNode.parse(data, what: "KML")
        guard root.name == "kml" else { throw InputError("cannot read the KML file: its root element is <\(root.name)>, not <kml>") }
        var archive = SpotArchive()
        for (n, placemark) in root.descendants("Placemark").enumerated() {
            guard let point = placemark.child("Point"), let text = point.childText("coordinates") else {
                archive.skipped.append("placemark \(n + 1) '\(placemark.childText("name") ?? "")': not a point")
                continue
            }
            let numbers = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            var fields: [String: String] = ["lon": numbers.first ?? "", "lat": numbers.count > 1 ? numbers[1] : ""]
            fields["name"] = placemark.childText("name")
            fields["notes"] = placemark.childText("description")
            for data in placemark.child("ExtendedData")?.children ?? [] where data.name == "Data" {
                if let key = data.attributes["name"] { fields[key] = data.child("value")?.text ?? "" }
            }
            if fields["id"] == nil { fields["id"] = placemark.attributes["id"] }
            do { archive.spots.append(try spot(flat: fields, now: now)) } catch let error as InputError {
                archive.skipped.append("placemark \(n + 1): \(error.message)")
            }
        }
        return archive
    }

    // MARK: CSV (RFC 4180)

    static func csv(_ spots: [Spot]) throws -> String {
        var rows = [fieldOrder]
        for spot in spots {
            guard let fields = try? flat(spot) else { continue }
            rows.append(fieldOrder.map { fields[$0] ?? "" })
        }
        return try CSVText.text(rows, newline: .crlf)
    }

    static func parseCSV(_ data: Data, now: Date) throws -> SpotArchive {
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }  // the byte order mark spreadsheet apps write
        let rows = CSVText.rows(text).drop { $0.isBlank }
        guard let header = rows.first?.fields.map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) else { return SpotArchive() }
        guard header.contains("name") || header.contains("title") else {
            throw InputError("cannot read the CSV file: its first line must name the columns, including name, lat and lon")
        }
        var archive = SpotArchive()
        for row in rows.dropFirst() where !row.isBlank {
            if let problem = row.problem {
                archive.skipped.append("line \(row.line): \(problem)")
                continue
            }
            var fields: [String: String] = [:]
            for (column, key) in header.enumerated() where column < row.fields.count { fields[key] = row.fields[column] }
            do { archive.spots.append(try spot(flat: fields, now: now)) } catch let error as InputError {
                archive.skipped.append("line \(row.line): \(error.message)")
            }
        }
        return archive
    }
}
