import Foundation
import PlacesCore

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
            if let ascii = Self.asciiCandidate(candidate) {
                guard let trimmed = ascii else { continue }
                let words = SearchText.words(trimmed).joined(separator: " ")
                if !words.isEmpty, seen.insert(words).inserted { names.append(trimmed) }
                continue
            }
            // Trimmed by hand: Foundation's trimming bridged every name through NSString.
            let start = candidate.drop(while: \.isWhitespace)
            let trimmed = String(start[..<(start.lastIndex { !$0.isWhitespace }.map(start.index(after:)) ?? start.startIndex)])
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

    /// The checks above for a candidate that is all ASCII (most are), byte by byte: `.some(nil)` when it is
    /// dropped (empty, a digit or a control character, a code of up to four capitals), `.some(name)` trimmed
    /// when kept, `nil` when it is not ASCII.
    private static func asciiCandidate(_ candidate: Substring) -> String?? {
        let bytes = candidate.utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return .some(nil)
        }
        let trimmed = bytes[first...last]
        guard trimmed.allSatisfy({ $0 >= 0x20 && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return .some(nil) }
        if trimmed.count <= 4, !trimmed.contains(where: { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) { return .some(nil) }
        return .some(String(Substring(trimmed)))
    }

    private static func isLatinOrPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20...0x40, 0x41...0x24F, 0x1E00...0x1EFF, 0x2019: return scalar.properties.numericType == nil
        default: return false
        }
    }
}

/// Reads GeoNames dumps as published: plain `.txt`, gzip'd `.txt.gz`, or the `.zip` geonames.org
/// serves (its first `.txt` entry, stored or deflated). No external tools: the zip's local file
/// header is parsed here and its raw deflate stream inflated with zlib.
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
        try forEachLine(progress: progress) { line, lineNumber in
            if let record = try Self.parse(line, lineNumber: lineNumber, fileName: fileName) { try body(record) }
        }
    }

    /// Calls `body` for every line of the dump in file order, with its 1-based number, unparsed: an import
    /// parses lines with ``parse(_:lineNumber:fileName:)`` on every core rather than on the thread that reads.
    /// The buffer is only valid during the call.
    /// - Parameter progress: (compressed bytes read, total bytes), now and then.
    public func forEachLine(progress: ((Int, Int) -> Void)? = nil,
                            _ body: (_ line: UnsafeRawBufferPointer, _ lineNumber: Int) throws -> Void) throws {
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
            try body(line, lineNumber)
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
                try Self.forEachZipEntryByte(in: bytes, fileName: fileName, progress: progress) { chunk in
                    try lines.feed(chunk, handle)
                }
            }
            try lines.finish(handle)
        }
        if lineNumber == 0 { throw InputError("\(fileName): empty GeoNames dump") }
    }

    /// Parses one line; `nil` for blank lines and `#` comments.
    public static func parse(_ line: UnsafeRawBufferPointer, lineNumber: Int, fileName: String) throws(InputError) -> GeoNamesRecord? {
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

    /// Streams the bytes of the dump inside a zip: the first `.txt` entry that is not a readme.
    private static func forEachZipEntryByte(
        in bytes: UnsafeRawBufferPointer, fileName: String, progress: ((Int, Int) -> Void)?,
        _ sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        var offset = 0
        while offset + 30 <= bytes.count, u32(offset) == 0x0403_4B50 {
            let flags = u16(offset + 6), method = u16(offset + 8)
            let compressedSize = u32(offset + 18)
            let nameLength = u16(offset + 26), extraLength = u16(offset + 28)
            let dataStart = offset + 30 + nameLength + extraLength
            guard dataStart <= bytes.count else { throw InputError("\(fileName): truncated zip entry header at offset \(offset)") }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(offset + 30)..<(offset + 30 + nameLength)]), as: UTF8.self)
            let sizeKnown = flags & 0x08 == 0 || compressedSize > 0
            let isDump = name.lowercased().hasSuffix(".txt") && !name.lowercased().hasPrefix("readme") && !name.hasSuffix("/")
            if isDump {
                let end = sizeKnown ? dataStart + compressedSize : bytes.count
                guard end <= bytes.count else { throw InputError("\(fileName): zip entry \(name) is truncated") }
                let entry = UnsafeRawBufferPointer(rebasing: bytes[dataStart..<end])
                switch method {
                case 0:
                    try sink(entry)
                case 8:
                    var lastReport = 0
                    do {
                        try Inflater.run(entry, framing: .rawDeflate, stopAtStreamEnd: true) { chunk, consumed in
                            try sink(chunk)
                            if consumed - lastReport >= 1 << 20 { lastReport = consumed; progress?(dataStart + consumed, bytes.count) }
                        }
                    } catch let failure as Inflater.Failure {
                        throw InputError("\(fileName): zip entry \(name): \(failure)")
                    }
                default:
                    throw InputError("\(fileName): zip entry \(name) uses compression method \(method); only stored and deflate are supported")
                }
                progress?(bytes.count, bytes.count)
                return
            }
            guard sizeKnown else {
                throw InputError("\(fileName): cannot skip zip entry \(name) (its size is only in a trailing descriptor); unzip the file first")
            }
            offset = dataStart + compressedSize
        }
        throw InputError("\(fileName): no GeoNames .txt file inside this zip")
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
