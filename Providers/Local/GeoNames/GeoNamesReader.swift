import Foundation
import CSystemZlib
import PlaceIndex
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
    /// Each with its words, which telling them apart cuts anyway.
    public var searchableAlternates: [PreparedPlace.AlternateName] {
        var seen: Set<String> = [SearchText.words(name).joined(separator: " ")]
        var names: [PreparedPlace.AlternateName] = []
        func keep(_ trimmed: String) {
            let alternate = PreparedPlace.AlternateName(trimmed, words: SearchText.words(trimmed))
            if !alternate.words.isEmpty, seen.insert(alternate.searchWords).inserted { names.append(alternate) }
        }
        for candidate in [Substring(asciiName)] + alternateNameCandidates {
            if let ascii = Self.asciiCandidate(candidate) {
                if let trimmed = ascii { keep(trimmed) }
                continue
            }
            guard let trimmed = Self.latinCandidate(candidate) else { continue }
            if trimmed.dropFirst(4).isEmpty, trimmed == trimmed.uppercased() { continue }
            keep(trimmed)
        }
        return names
    }

    /// A candidate that is not all ASCII, trimmed of whitespace Characters, when what is left is Latin
    /// (``isLatinOrPunctuation(_:)``); `nil` when it is not, or when nothing is left.
    ///
    /// Most are decided without reading them as Characters (cities1000: 291,000 of its 378,000 non-ASCII names are not
    /// Latin from their first scalar on): a Character is
    /// whitespace when its first scalar is, so a first scalar that is neither Latin nor whitespace begins a Character that
    /// trimming keeps (a Cyrillic, Han or Arabic name: dropped); and no Latin scalar joins the scalar before it into a
    /// Character (none is a combining or spacing mark or a joiner), so a candidate that begins with a scalar that is not
    /// whitespace and ends with a Latin one that is not has nothing to trim. The rest (whitespace at either end, a mark
    /// at the end) are trimmed as Characters.
    static func latinCandidate(_ candidate: Substring) -> String? {
        let scalars = candidate.unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return nil }
        let firstIsLatin = isLatinOrPunctuation(first)
        if !firstIsLatin, !first.properties.isWhitespace { return nil }
        if firstIsLatin, isLatinOrPunctuation(last), !first.properties.isWhitespace, !last.properties.isWhitespace {
            return scalars.allSatisfy(isLatinOrPunctuation) ? String(candidate) : nil
        }
        // Trimmed by hand: Foundation's trimming bridged every name through NSString.
        let start = candidate.drop(while: \.isWhitespace)
        let trimmed = String(start[..<(start.lastIndex { !$0.isWhitespace }.map(start.index(after:)) ?? start.startIndex)])
        guard !trimmed.isEmpty, trimmed.unicodeScalars.allSatisfy(isLatinOrPunctuation) else { return nil }
        return trimmed
    }

    /// Column 4 cut at its commas into non-empty pieces, as `alternateNames.split(separator: ",")` cuts it as
    /// Characters, but byte by byte (cutting cities1000's 920,000 names as Characters cost a quarter of a second).
    /// The two differ only where a comma makes one Character with a neighbour (a combining mark right after it, a
    /// prepended mark before it): such a text is cut as Characters.
    var alternateNameCandidates: [Substring] {
        let text = alternateNames
        let bytes = text.utf8
        var pieces: [Substring] = []
        var start = bytes.startIndex
        var index = start
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: ",") {
                guard Self.isCharacterOfItsOwn(commaAt: index, in: text) else { return text.split(separator: ",") }
                if start < index { pieces.append(Substring(text.unicodeScalars[start..<index])) }
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        if start < bytes.endIndex { pieces.append(Substring(text.unicodeScalars[start..<bytes.endIndex])) }
        return pieces
    }

    /// Whether the comma at `index` is a Character of its own: always between ASCII neighbours; otherwise as Swift
    /// reads the comma and its neighbouring scalars (only the scalars next to a comma can join it into one Character).
    private static func isCharacterOfItsOwn(commaAt index: String.Index, in text: String) -> Bool {
        let bytes = text.utf8
        let after = bytes.index(after: index)
        let nextIsASCII = after == bytes.endIndex || bytes[after] < 0x80
        let previousIsASCII = index == bytes.startIndex || bytes[bytes.index(before: index)] < 0x80
        if nextIsASCII, previousIsASCII { return true }
        let scalars = text.unicodeScalars
        var neighbourhood = String.UnicodeScalarView()
        if index > scalars.startIndex { neighbourhood.append(scalars[scalars.index(before: index)]) }
        neighbourhood.append(",")
        if after < scalars.endIndex { neighbourhood.append(scalars[after]) }
        return String(neighbourhood).count == neighbourhood.count
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

    /// Whether a scalar may be part of a searchable alternate name: Basic Latin from the space on, Latin-1, Latin
    /// Extended-A and -B, Latin Extended Additional and the right single quotation mark, but no digit or other number.
    static func isLatinOrPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x250 { return latinOrPunctuation[Int(value)] }
        if (0x1E00...0x1EFF).contains(value) { return latinExtendedAdditional[Int(value - 0x1E00)] }
        return value == 0x2019
    }

    /// ``isLatinOrPunctuation(_:)`` below U+0250 and in Latin Extended Additional, from Unicode's properties once: a
    /// numeric-type lookup for every scalar of the ~400,000 non-ASCII names cities1000 holds was a tenth of their cost.
    private static let latinOrPunctuation: [Bool] = (0..<0x250).map { $0 >= 0x20 && Unicode.Scalar(UInt32($0))!.properties.numericType == nil }
    private static let latinExtendedAdditional: [Bool] = (0x1E00...0x1EFF).map { Unicode.Scalar(UInt32($0))!.properties.numericType == nil }
}

/// Reads GeoNames dumps as published: plain `.txt`, gzip'd `.txt.gz`, or the `.zip` geonames.org
/// serves (its first `.txt` entry that is not a readme, stored or deflated). Zips are read with
/// ZIPFoundation from their central directory, so data descriptors and zip64 archives read like any other.
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
                try Self.forEachZipEntryByte(in: url, bytes: bytes, fileName: fileName, progress: progress) { chunk in
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
    ///
    /// ZIPFoundation reads the central directory: entry names, zip64 sizes, sizes that trail their data in a data
    /// descriptor, CRCs. Its `Archive.extract` does not inflate here: in 0.9.20 it spins forever when a deflate
    /// stream runs to the end of the file without its end marker (the geonames fuzzer's seed
    /// `zip-deflate-without-end-of-stream`), and its `Data.decompress` hands zlib a full buffer's length even for
    /// a shorter last chunk. The entry's exact compressed bytes, from the mapped file, go through the same zlib
    /// inflater as `.txt.gz` dumps, which stops at the entry's end and says when the stream is cut short.
    private static func forEachZipEntryByte(
        in url: URL, bytes: UnsafeRawBufferPointer, fileName: String, progress: ((Int, Int) -> Void)?,
        _ sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw InputError("\(fileName): not a complete zip archive (no readable central directory: a truncated or damaged download?)")
        }
        let isDump = { (entry: Entry) in
            let name = entry.path.lowercased()
            return entry.type == .file && name.hasSuffix(".txt") && !(name.split(separator: "/").last ?? "").hasPrefix("readme")
        }
        guard let entry = archive.first(where: isDump) else {
            let names = archive.prefix(5).map(\.path).joined(separator: ", ")
            throw InputError("\(fileName): no GeoNames .txt file inside this zip (it holds: \(names.isEmpty ? "nothing" : names))")
        }
        let name = entry.path
        guard let header = localHeader(of: entry, in: bytes) else {
            throw InputError("\(fileName): zip entry \(name) has no local header that matches the central directory; the zip is damaged")
        }
        guard entry.compressedSize <= UInt64(bytes.count - header.dataOffset) else {
            throw InputError("\(fileName): zip entry \(name) is truncated (\(entry.compressedSize) compressed bytes expected)")
        }
        let dataStart = header.dataOffset, dataEnd = dataStart + Int(entry.compressedSize)
        let damaged = "\(fileName): zip entry \(name) is damaged"
        var checksum: UInt32 = 0
        switch header.method {
        case 0:
            let entryBytes = UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataEnd])
            try sink(entryBytes)
            checksum = crc32(entryBytes, checksum)
        case 8:
            var lastReport = 0
            do {
                try Inflater.run(UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataEnd]), framing: .rawDeflate,
                                 stopAtStreamEnd: true) { chunk, consumed in
                    try sink(chunk)
                    checksum = crc32(chunk, checksum)
                    if consumed - lastReport >= 1 << 20 { lastReport = consumed; progress?(dataStart + consumed, bytes.count) }
                }
            } catch let failure as Inflater.Failure {
                throw InputError("\(damaged): \(failure)")
            }
        default:
            throw InputError("\(fileName): zip entry \(name) uses compression method \(header.method); only stored and deflate are supported")
        }
        guard checksum == entry.checksum else {
            throw InputError("\(damaged): its CRC-32 does not match the central directory (a corrupted download?)")
        }
        progress?(bytes.count, bytes.count)
    }

    /// zlib's CRC-32 of `bytes` continued from `checksum`, to compare with the one the central directory records.
    private static func crc32(_ bytes: UnsafeRawBufferPointer, _ checksum: UInt32) -> UInt32 {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return checksum }
        return UInt32(CSystemZlib.crc32(UInt(checksum), base, UInt32(bytes.count)))
    }

    /// Where `entry`'s data starts, and its compression method, from its local file header. ZIPFoundation does not
    /// say where an entry's data starts, so the local header is found by its signature and the entry's name: the
    /// first such header in the file (the central directory, which ZIPFoundation has read, comes after them all).
    private static func localHeader(of entry: Entry, in bytes: UnsafeRawBufferPointer) -> (dataOffset: Int, method: Int)? {
        guard let base = bytes.baseAddress else { return nil }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        let name = Array(entry.path.utf8)
        var offset = 0
        while offset + 30 <= bytes.count, let found = memchr(base + offset, 0x50, bytes.count - offset - 29) {
            let at = base.distance(to: UnsafeRawPointer(found))
            offset = at + 1
            guard bytes[at + 1] == 0x4B, bytes[at + 2] == 0x03, bytes[at + 3] == 0x04 else { continue }
            let nameLength = u16(at + 26), extraLength = u16(at + 28)
            guard nameLength == name.count, at + 30 + nameLength + extraLength <= bytes.count,
                  bytes[(at + 30)..<(at + 30 + nameLength)].elementsEqual(name) else { continue }
            return (at + 30 + nameLength + extraLength, u16(at + 8))
        }
        return nil
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
