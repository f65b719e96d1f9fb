import Foundation
import PlacesCore
import ZIPFoundation

/// One row of the official GeoNames dump (19 tab-separated columns, UTF-8).
public struct GeoNamesRecord: Sendable, Hashable {
    public var geonameID: Int64
    public var name: String
    public var asciiName: String
    public var coordinate: Coordinate
    /// `P` for populated places; other classes (mountains, lakes) appear in `allCountries`.
    public var featureClass: String
    public var featureCode: String
    public var countryCode: String
    public var admin1: String
    public var population: Int64
    public var timeZone: String
    /// Column 4: other names in every language, comma-separated in the dump.
    public var alternateNames: String = ""

    /// The alternate names worth searching: the ASCII name, and other names in Latin script (other
    /// scripts are reached through their Latin transliterations, which GeoNames lists too), each once,
    /// without airport and other codes (short all-capital entries) or anything with a digit.
    public var searchableAlternateNames: [String] {
        var seen: Set<String> = [SearchText.words(name).joined(separator: " ")]
        var names: [String] = []
        for candidate in [Substring(asciiName)] + alternateNames.split(separator: ",") {
            let trimmed = candidate.trimmedOfSpaces
            guard !trimmed.isEmpty, trimmed.unicodeScalars.allSatisfy(Self.isLatinOrPunctuation) else { continue }
            if trimmed.dropFirst(4).isEmpty, trimmed == trimmed.uppercased() { continue }
            let words = SearchText.words(trimmed).joined(separator: " ")
            if !words.isEmpty, seen.insert(words).inserted { names.append(trimmed) }
        }
        return names
    }

    /// Population on a log scale (10 million people → 1), a little more for capitals and regional seats.
    public var importance: Double {
        var importance = log10(Double(max(0, population)) + 1) / 7
        if featureCode == "PPLC" { importance += 0.15 } else if featureCode == "PPLA" { importance += 0.05 }
        return min(1, importance)
    }

    private static func isLatinOrPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20...0x40, 0x41...0x24F, 0x1E00...0x1EFF, 0x2019: return scalar.properties.numericType == nil
        default: return false
        }
    }
}

/// Reads GeoNames dumps as published: plain `.txt`, gzip'd `.txt.gz`, or the `.zip` geonames.org
/// serves (its first `.txt` entry that is not a readme, stored or deflated, read with ZIPFoundation).
///
/// A line that is not GeoNames-shaped throws an ``InputError`` naming the file and line.
public struct GeoNamesReader: Sendable {
    public enum Container: String, Sendable { case text, gzip, zip }

    public let url: URL
    public let container: Container

    public init(url: URL, container: Container) {
        self.url = url
        self.container = container
    }

    /// Calls `body` for every record in file order.
    /// - Parameter progress: (compressed bytes read, total bytes), now and then.
    public func forEachRecord(progress: ((Int, Int) -> Void)? = nil, _ body: (GeoNamesRecord) throws -> Void) throws {
        let fileName = url.lastPathComponent
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw InputError("\(fileName): cannot read the file (\(error.localizedDescription))")
        }
        var lines = LineSplitter()
        var lineNumber = 0
        func handle(_ line: UnsafeRawBufferPointer) throws {
            lineNumber += 1
            if let record = try Self.parse(line, lineNumber: lineNumber, fileName: fileName) { try body(record) }
        }
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            switch container {
            case .text:
                try lines.feed(bytes, handle)
                progress?(bytes.count, bytes.count)
            case .gzip:
                var lastReport = 0
                do {
                    try Inflater.run(bytes, framing: .gzip, stopAtStreamEnd: false) { chunk, consumed in
                        try lines.feed(chunk, handle)
                        if consumed - lastReport >= 1 << 20 { lastReport = consumed; progress?(consumed, bytes.count) }
                    }
                } catch let failure as Inflater.Failure {
                    throw InputError("\(fileName): \(failure) after line \(lineNumber)")
                }
                progress?(bytes.count, bytes.count)
            case .zip:
                try Self.forEachZipEntryByte(in: url, fileName: fileName, progress: progress) { chunk in
                    try lines.feed(chunk, handle)
                }
            }
            try lines.finish(handle)
        }
        if lineNumber == 0 { throw InputError("\(fileName): empty GeoNames dump") }
    }

    /// Parses one line; `nil` for blank lines and `#` comments.
    static func parse(_ line: UnsafeRawBufferPointer, lineNumber: Int, fileName: String) throws -> GeoNamesRecord? {
        var line = line
        if let last = line.last, last == UInt8(ascii: "\r") { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
        if line.isEmpty || line.first == UInt8(ascii: "#") { return nil }
        var fields: [UnsafeRawBufferPointer] = []
        fields.reserveCapacity(19)
        var start = 0
        for i in 0..<line.count where line[i] == 9 {
            fields.append(UnsafeRawBufferPointer(rebasing: line[start..<i]))
            start = i + 1
        }
        fields.append(UnsafeRawBufferPointer(rebasing: line[start..<line.count]))
        let place = "\(fileName): line \(lineNumber) is not in the GeoNames format"
        guard fields.count == 19 else {
            throw InputError("\(place): expected 19 tab-separated columns, found \(fields.count) (places import reads .osm.pbf extracts and GeoNames dumps)")
        }
        func text(_ index: Int) -> String { String(decoding: fields[index], as: UTF8.self) }
        guard let id = Int64(text(0)), id > 0 else { throw InputError("\(place): geonameid '\(text(0))' is not a number") }
        guard let lat = Double(text(4)), let lon = Double(text(5)),
              let coordinate = try? Coordinate(validatingLatitude: lat, longitude: lon)
        else {
            throw InputError("\(place): '\(text(4))', '\(text(5))' is not a latitude and longitude")
        }
        let populationText = text(14)
        guard populationText.isEmpty || Int64(populationText) != nil else {
            throw InputError("\(place): population '\(populationText)' is not a number")
        }
        return GeoNamesRecord(
            geonameID: id, name: text(1), asciiName: text(2), coordinate: coordinate, featureClass: text(6),
            featureCode: text(7), countryCode: text(8).uppercased(), admin1: text(10),
            population: Int64(populationText) ?? 0, timeZone: text(17), alternateNames: text(3))
    }

    /// Streams the bytes of the dump inside a zip: the first `.txt` entry that is not a readme. The archive
    /// is read by ZIPFoundation from its central directory, so entries whose sizes trail their data (data
    /// descriptors) and zip64 archives (allCountries-sized dumps) read like any other.
    private static func forEachZipEntryByte(
        in url: URL, fileName: String, progress: ((Int, Int) -> Void)?,
        _ sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw InputError("\(fileName): not a readable zip archive (\(error))")
        }
        let isDump = { (entry: Entry) in
            let name = entry.path.lowercased()
            return entry.type == .file && name.hasSuffix(".txt") && !(name.split(separator: "/").last ?? "").hasPrefix("readme")
        }
        guard let entry = archive.first(where: isDump) else {
            throw InputError("\(fileName): no GeoNames .txt file inside this zip")
        }
        let total = Int(clamping: entry.uncompressedSize)
        var produced = 0, lastReport = 0
        do {
            _ = try archive.extract(entry, bufferSize: 1 << 20) { chunk in
                try chunk.withUnsafeBytes { try sink($0) }
                produced += chunk.count
                if produced - lastReport >= 1 << 20 { lastReport = produced; progress?(produced, total) }
            }
        } catch let error as InputError {
            throw error
        } catch Archive.ArchiveError.invalidCompressionMethod {
            throw InputError("\(fileName): zip entry \(entry.path) is compressed with a method other than deflate; unzip it first")
        } catch {
            throw InputError("\(fileName): zip entry \(entry.path) is damaged (\(error))")
        }
        progress?(total, total)
    }
}

/// Cuts a byte stream into lines, carrying partial lines across chunk boundaries.
struct LineSplitter {
    private var carry: [UInt8] = []

    mutating func feed(_ chunk: UnsafeRawBufferPointer, _ line: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let base = chunk.baseAddress else { return }
        var start = 0
        while start < chunk.count, let found = memchr(base + start, 10, chunk.count - start) {
            let i = base.distance(to: UnsafeRawPointer(found))
            if carry.isEmpty {
                try line(UnsafeRawBufferPointer(rebasing: chunk[start..<i]))
            } else {
                carry.append(contentsOf: chunk[start..<i])
                try carry.withUnsafeBytes { try line($0) }
                carry.removeAll(keepingCapacity: true)
            }
            start = i + 1
        }
        carry.append(contentsOf: chunk[start..<chunk.count])
        guard carry.count <= 16 << 20 else { throw InputError("a line longer than 16 MB: not a GeoNames dump") }
    }

    mutating func finish(_ line: (UnsafeRawBufferPointer) throws -> Void) throws {
        if !carry.isEmpty {
            try carry.withUnsafeBytes { try line($0) }
            carry.removeAll()
        }
    }
}
