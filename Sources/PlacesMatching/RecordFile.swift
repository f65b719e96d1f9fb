import CSVText
import Foundation
import PlacesCore

/// Records read from a file, with the lines that were skipped and why.
public struct RecordFileContents: Sendable {
    public var records: [MatchRecord]
    /// One message per skipped line (only with `skipBadLines`), each naming the file and line.
    public var skipped: [InputError]
}

/// Reads place records from CSV (with a header) or JSON Lines, the two shapes `places match` accepts.
///
/// Recognised columns or keys: `id` and `name` (required), `address`, `city`, `phone`, `lat`, `lon`,
/// `category`, `country` (also `latitude`, `longitude`, `lng`, `country_code`); others are ignored.
/// Every error names the file and line. A file-level problem (no header, a missing required column,
/// an empty file, UTF-16 text) always fails; a bad line fails too unless `skipBadLines` is set, in
/// which case it is reported in ``RecordFileContents/skipped`` and reading continues.
public enum RecordFile {
    public enum Format: Sendable { case csv, jsonLines }

    public static func read(_ url: URL, skipBadLines: Bool = false) throws(InputError) -> RecordFileContents {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw InputError("\(url.path): cannot read the file (\(error.localizedDescription))")
        }
        return try parse(data, name: url.path, format: format(of: url), skipBadLines: skipBadLines)
    }

    /// The format a file name announces (`.jsonl`, `.ndjson`, `.json` → JSON Lines, `.csv` → CSV);
    /// `nil` means sniff the content.
    public static func format(of url: URL) -> Format? {
        switch url.pathExtension.lowercased() {
        case "jsonl", "ndjson", "json": .jsonLines
        case "csv", "tsv": .csv
        default: nil
        }
    }

    public static func parse(_ data: Data, name: String, format: Format? = nil,
                             skipBadLines: Bool = false) throws(InputError) -> RecordFileContents {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            throw InputError("\(name): the file is UTF-16 encoded; convert it to UTF-8 (iconv -f UTF-16 -t UTF-8)")
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var skipped: [InputError] = []
        var lines: [(number: Int, text: String)] = []
        var number = 0
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            var line = rawLine
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard let text = String(validating: line, as: UTF8.self) else {
                let error = InputError("\(name):\(number): the line is not valid UTF-8 (a Latin-1 file? convert it with iconv -f latin1 -t utf-8)")
                if skipBadLines { skipped.append(error); continue }
                throw error
            }
            if line.contains(0) {
                throw InputError("\(name):\(number): the file contains NUL bytes; is it UTF-16 or binary? Convert it to UTF-8 text")
            }
            lines.append((number, text))
        }
        guard lines.contains(where: { !$0.text.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            throw InputError("\(name): the file is empty; expected a CSV header such as id,name,lat,lon or JSON Lines records")
        }
        let chosen = format ?? (lines.first { !$0.text.trimmingCharacters(in: .whitespaces).isEmpty }!.text
            .trimmingCharacters(in: .whitespaces).hasPrefix("{") ? .jsonLines : .csv)
        var records: [MatchRecord] = []
        func handle(_ number: Int, _ body: () throws(InputError) -> MatchRecord?) throws(InputError) {
            do {
                if let record = try body() { records.append(record) }
            } catch {
                let located = InputError("\(name):\(number): \(error.message)")
                if skipBadLines { skipped.append(located) } else { throw located }
            }
        }
        switch chosen {
        case .jsonLines:
            for (number, text) in lines where !text.trimmingCharacters(in: .whitespaces).isEmpty {
                try handle(number) { () throws(InputError) in try record(json: text, defaultID: nil) }
            }
        case .csv:
            // Leading blank lines are not the header; the rows keep the lines' numbers in the file.
            let content = lines.drop { $0.text.isEmpty }
            let rows = CSVText.rows(content.map(\.text).joined(separator: "\n"),
                                    delimiter: CSVText.delimiter(forHeader: content.first?.text ?? ""),
                                    lineNumbers: content.map(\.number))
            guard let header = rows.first else { throw InputError("\(name): the file is empty") }
            let columns = try columnMap(header.fields, name: name, line: header.line)
            for row in rows.dropFirst() {
                if row.fields.count == 1 && row.fields[0].trimmingCharacters(in: .whitespaces).isEmpty { continue }
                try handle(row.line) { () throws(InputError) in
                    if let problem = row.problem { throw InputError(problem) }
                    guard row.fields.count == header.fields.count else {
                        throw InputError("expected \(header.fields.count) fields as in the header, found \(row.fields.count)")
                    }
                    func value(_ key: String) -> String? {
                        guard let index = columns[key] else { return nil }
                        let text = trimmed(row.fields[index])
                        return text.isEmpty ? nil : text
                    }
                    return try makeRecord(id: value("id"), name: value("name"), address: value("address"),
                                          city: value("city"), phone: value("phone"), lat: value("lat"),
                                          lon: value("lon"), category: value("category"), country: value("country"))
                }
            }
        }
        return RecordFileContents(records: records, skipped: skipped)
    }

    /// One record from a JSON object such as `{"name":"Joe's Pizza","phone":"212-366-1182","lat":40.73,"lon":-74.0}`.
    /// `defaultID` fills a missing `id` (for `places score`); without it an id is required.
    public static func record(json: String, defaultID: String?) throws(InputError) -> MatchRecord {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: Data(json.utf8)) } catch {
            throw InputError("not a JSON object: \(json.prefix(60))")
        }
        guard let dictionary = object as? [String: Any] else { throw InputError("expected a JSON object, found \(json.prefix(60))") }
        var fields: [String: String] = [:]
        for (key, raw) in dictionary {
            guard let canonical = canonicalColumn(key) else { continue }
            switch raw {
            case let text as String: fields[canonical] = text.isEmpty ? nil : text
            case let number as NSNumber: fields[canonical] = number.stringValue
            case is NSNull: break
            default: throw InputError("key '\(key)' must be a string or a number")
            }
        }
        return try makeRecord(id: fields["id"] ?? defaultID, name: fields["name"], address: fields["address"],
                              city: fields["city"], phone: fields["phone"], lat: fields["lat"], lon: fields["lon"],
                              category: fields["category"], country: fields["country"])
    }

    static let required = ["id", "name"]

    /// Spaces and tabs around a field removed; cheaper than Foundation's trimming on every field.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, let last = scalars.last,
              first == " " || first == "\t" || last == " " || last == "\t" else { return text }
        var view = Substring(text).unicodeScalars
        while let head = view.first, head == " " || head == "\t" { view.removeFirst() }
        while let tail = view.last, tail == " " || tail == "\t" { view.removeLast() }
        return String(view)
    }

    static func canonicalColumn(_ raw: String) -> String? {
        let key = raw.trimmingCharacters(in: .whitespaces).lowercased()
        switch key {
        case "id", "name", "address", "city", "phone", "lat", "lon", "category", "country": return key
        case "latitude": return "lat"
        case "longitude", "lng": return "lon"
        case "country_code", "countrycode": return "country"
        default: return nil
        }
    }

    private static func columnMap(_ header: [String], name: String, line: Int) throws(InputError) -> [String: Int] {
        var map: [String: Int] = [:]
        for (index, column) in header.enumerated() {
            if let key = canonicalColumn(column), map[key] == nil { map[key] = index }
        }
        if map.isEmpty {
            throw InputError("\(name):\(line): no header line: the first line must name the columns, such as id,name,address,phone,lat,lon")
        }
        for column in required where map[column] == nil {
            throw InputError("\(name):\(line): the header has no '\(column)' column (found: \(header.joined(separator: ","))); id and name are required")
        }
        return map
    }

    private static func makeRecord(id: String?, name: String?, address: String?, city: String?, phone: String?,
                                   lat: String?, lon: String?, category: String?,
                                   country: String?) throws(InputError) -> MatchRecord {
        guard let id else { throw InputError("missing id") }
        guard let name else { throw InputError("missing name for id '\(id)'") }
        var coordinate: Coordinate?
        switch (lat, lon) {
        case (nil, nil): coordinate = nil
        case let (lat?, lon?):
            guard let latitude = Double(lat), let longitude = Double(lon) else {
                throw InputError("bad coordinate '\(lat),\(lon)' for id '\(id)': lat and lon must be decimal degrees")
            }
            do { coordinate = try Coordinate(validatingLatitude: latitude, longitude: longitude) } catch {
                throw InputError("bad coordinate for id '\(id)': " + error.message.replacingOccurrences(of: "invalid coordinate: ", with: ""))
            }
        default:
            throw InputError("bad coordinate for id '\(id)': give both lat and lon, or neither")
        }
        return MatchRecord(id: id, name: name, address: address, city: city, phone: phone, coordinate: coordinate,
                           category: category, countryCode: country?.uppercased())
    }
}
