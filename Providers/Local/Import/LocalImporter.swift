import CSystemZlib
import Foundation
import PlaceIndex
import PlacesCore

/// How far an import has got, for the progress bar the CLI draws.
public struct ImportProgress: Sendable, Hashable {
    public var file: String
    public var bytesRead: Int64
    public var totalBytes: Int64

    public var fraction: Double { totalBytes > 0 ? min(1, Double(bytesRead) / Double(totalBytes)) : 0 }
}

/// What one import did.
public struct ImportSummary: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case osmPBF = "osm.pbf"
        case geoNames = "geonames"
    }

    public var file: String
    public var kind: Kind
    public var nodesRead = 0
    public var waysRead = 0
    public var relationsRead = 0
    /// GeoNames rows read (every feature class).
    public var rowsRead = 0
    /// Searchable places written: OSM POIs, or GeoNames cities (which are searchable too).
    public var placesIndexed = 0
    /// Named streets and parts of a city (one per name within a street's reach, however many ways map it), and the
    /// postcodes addresses name.
    public var streetsAndAreasIndexed = 0
    /// Addressed OSM objects without a POI tag, kept for reverse geocoding.
    public var addressPointsIndexed = 0
    public var citiesIndexed = 0
    public var elapsedSeconds: Double = 0

    /// Objects read from the file: OSM nodes, ways and relations, or GeoNames rows.
    public var objectsRead: Int { kind == .osmPBF ? nodesRead + waysRead + relationsRead : rowsRead }

    public var objectsPerSecond: Double { elapsedSeconds > 0 ? Double(objectsRead) / elapsedSeconds : 0 }

    /// One line for humans: "imported helsinki.osm.pbf: 30,010 objects … in 0.4 s".
    public var line: String {
        let time = String(format: "%.1f s", elapsedSeconds)
        switch kind {
        case .osmPBF:
            return "imported \(file): \(grouped(objectsRead)) objects (\(grouped(nodesRead)) nodes, \(grouped(waysRead)) ways, "
                + "\(grouped(relationsRead)) relations) → \(grouped(placesIndexed)) places, "
                + "\(grouped(streetsAndAreasIndexed)) streets and areas, and \(grouped(addressPointsIndexed)) address points in \(time)"
        case .geoNames:
            return "imported \(file): \(grouped(rowsRead)) GeoNames rows → \(grouped(citiesIndexed)) cities in \(time)"
        }
    }

    private func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }
}

/// Imports an `.osm.pbf` extract or a GeoNames dump into the local index.
///
/// The format is sniffed from the content, not the name: PBF files start with an `OSMHeader` block,
/// gzip and zip have their magic numbers, anything else must be GeoNames text. Each import runs in
/// one transaction and first removes what an earlier import of the same file name added, so
/// re-importing a fresher extract replaces it and a failed import changes nothing.
public struct LocalImporter: Sendable {
    public let index: PlaceIndexStore

    public init(index: PlaceIndexStore) { self.index = index }

    public func importFile(_ url: URL, progress: (@Sendable (ImportProgress) -> Void)? = nil) throws -> ImportSummary {
        try importFiles([url], progress: progress)[0]
    }

    /// Imports several files in **one** transaction: either all of them are in the index afterwards, or
    /// (on any error, a full disk included) none of them is and the index is exactly as it was. This is
    /// how the first-run build avoids leaving half an index behind.
    /// - Parameter afterEach: runs inside the transaction after each file; throwing from it undoes everything.
    public func importFiles(_ urls: [URL], progress: (@Sendable (ImportProgress) -> Void)? = nil,
                            afterEach: (ImportSummary) throws -> Void = { _ in }) throws -> [ImportSummary] {
        let heads = try urls.map(Self.head(of:))
        // GeoNames dumps are bounded (allCountries: ~12 M rows); extracts can be any size, and the large one
        // must import in < 1 GB.
        let bounded = !heads.contains(where: Self.looksLikePBF)
        return try index.write(statementJournalsInMemory: bounded) { writer in
            try zip(urls, heads).map { url, head in
                let started = Date()
                var summary = try importFile(url, head: head, into: writer, progress: progress)
                summary.elapsedSeconds = Date().timeIntervalSince(started)
                try afterEach(summary)
                return summary
            }
        }
    }

    private func importFile(_ url: URL, head: [UInt8], into writer: PlaceIndexWriter,
                            progress: (@Sendable (ImportProgress) -> Void)?) throws -> ImportSummary {
        if Self.looksLikePBF(head) { return try importPBF(url, into: writer, progress: progress) }
        if head.starts(with: [0x1F, 0x8B]) { return try importGeoNames(url, container: .gzip, into: writer, progress: progress) }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            return try importGeoNames(url, container: .zip, into: writer, progress: progress)
        }
        if head.contains(0) {
            throw InputError("\(url.lastPathComponent): not an .osm.pbf extract or a GeoNames dump (.txt, .txt.gz, .zip)")
        }
        return try importGeoNames(url, container: .text, into: writer, progress: progress)
    }

    /// The file's size and CRC-32, recorded with the import so a later run can tell which data it holds.
    public static func fingerprint(of url: URL) throws -> SourceFingerprint {
        let file = try MappedFile(url: url)
        let bytes = file.bytes
        var crc = crc32(0, nil, 0)
        var offset = 0
        while offset < bytes.count {
            // 64 MB at a time, each handed back once summed: a country extract is not held in memory.
            let length = min(64 << 20, bytes.count - offset)
            crc = crc32(crc, bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: Bytef.self), uInt(length))
            offset += length
            file.release(before: offset)
        }
        return SourceFingerprint(bytes: Int64(bytes.count), checksum: String(format: "%08x", UInt(crc)))
    }

    private static func head(of url: URL) throws -> [UInt8] {
        let fileName = url.lastPathComponent
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw InputError(exists ? "\(fileName): cannot open the file for reading" : "\(url.path): no such file")
        }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 64)) ?? Data())
        guard !head.isEmpty else { throw InputError("\(fileName): the file is empty") }
        return head
    }

    /// A 4-byte big-endian length, then a BlobHeader whose first field is the string "OSMHeader".
    private static func looksLikePBF(_ head: [UInt8]) -> Bool {
        guard head.count >= 15, head[0] == 0, head[1] == 0 else { return false }
        let marker = Array("OSMHeader".utf8)
        return head.count >= 6 + marker.count && Array(head[6..<(6 + marker.count)]) == marker
    }

    private func importPBF(_ url: URL, into writer: PlaceIndexWriter,
                           progress: (@Sendable (ImportProgress) -> Void)?) throws -> ImportSummary {
        let fileName = url.lastPathComponent
        let reader = try OSMPBFReader(url: url)
        var summary = ImportSummary(file: fileName, kind: .osmPBF)
        do {
            writer.markPhase("start")
            try writer.removeSource(fileName)
            writer.markPhase("remove")
            // Each place is inserted as soon as it is read (its row and words prepared on every core, a batch
            // ahead of the inserts), so memory does not grow with the extract. A phone number without a country
            // prefix needs a region: the object's own addr:country, else the country of the GeoNames city it
            // lies in, else the country the file's addresses name most, known only at the end: those few
            // numbers are written as found and replaced once the import has its rows.
            var inserts = PipelinedInsert<OSMPlaceExtractor.Candidate, PreparedPlace> { candidate in
                switch candidate.kind {
                case .poi, .street, .area:
                    PreparedPlace(candidate.place, kind: candidate.kind.indexed, source: fileName, keywords: candidate.keywords,
                                  alternateNames: candidate.alternateNames, importance: candidate.importance)
                case .address:
                    PreparedPlace(candidate.place, kind: .address, source: fileName)
                }
            }
            var phonesAwaitingFileCountry: [(placeID: String, raw: String)] = []
            // The extract is read, and its objects placed, on a thread of its own (``readCandidates``); this
            // one, which owns the SQLite connection, inserts what that thread hands over until it has read the whole extract.
            let read = try BatchHandoff<OSMPlaceExtractor.Candidate, ExtractRead>.consume(
                capacity: 16, readingOnAThreadOfItsOwn: { Self.readCandidates(reader, into: $0, progress: progress) }
            ) { batch in
                for var candidate in batch {
                    if let raw = candidate.rawPhone {
                        var region = candidate.place.address?.countryCode
                        if region == nil { region = try writer.city(near: candidate.place.coordinate)?.countryCode }
                        if let region {
                            candidate.place.phone = PhoneNumber.e164(raw, defaultRegion: region) ?? raw
                        } else {
                            phonesAwaitingFileCountry.append((candidate.place.id.description, raw))
                        }
                    }
                    switch candidate.kind {
                    case .poi: summary.placesIndexed += 1
                    case .street, .area: summary.streetsAndAreasIndexed += 1
                    case .address: summary.addressPointsIndexed += 1
                    }
                    try inserts.add(candidate) { try writer.insert($0) }
                }
            }
            summary.nodesRead = read.nodes
            summary.waysRead = read.ways
            summary.relationsRead = read.relations
            try inserts.finish { try writer.insert($0) }
            try writer.finishSource(fileName, kind: ImportSummary.Kind.osmPBF.rawValue, places: summary.placesIndexed, cities: 0,
                                    addressPoints: summary.addressPointsIndexed, fingerprint: try Self.fingerprint(of: url))
            for (placeID, raw) in phonesAwaitingFileCountry {
                if let phone = PhoneNumber.e164(raw, defaultRegion: read.fileCountry), phone != raw {
                    try writer.replacePhone(ofPlace: placeID, with: phone)
                }
            }
        }
        return summary
    }

    /// What reading an extract found besides its candidates.
    struct ExtractRead: Sendable {
        var nodes = 0
        var ways = 0
        var relations = 0
        /// The country the file's addresses name most (``OSMPlaceExtractor/fileCountry``).
        var fileCountry: String?
    }

    /// Reads the extract on the calling thread, places each object (``OSMPlaceExtractor``) and hands the candidates
    /// to `handoff` in batches, in file order; then ends it with what the read found, or the error that stopped it.
    /// What each object's tags make of it is worked out on the decoding threads. Node positions arrive in runs:
    /// only nodes whose tags may make something are elements.
    private static func readCandidates(_ reader: OSMPBFReader, into handoff: BatchHandoff<OSMPlaceExtractor.Candidate, ExtractRead>,
                                       progress: (@Sendable (ImportProgress) -> Void)?) {
        let fileName = reader.url.lastPathComponent
        var extractor = OSMPlaceExtractor(fileSize: reader.fileSize)
        var read = ExtractRead()
        let batchSize = 1_024
        var batch: [OSMPlaceExtractor.Candidate] = []
        do {
            try reader.forEachElement(progress: { done, total in
                progress?(ImportProgress(file: fileName, bytesRead: Int64(done), totalBytes: Int64(total)))
            }, selectingTags: OSMPlaceExtractor.tagSelection, nodePositions: { positions in
                read.nodes += positions.ids.count
                extractor.record(positions)
            }, preparing: OSMPlaceExtractor.tagged) { element, tagged in
                switch element {
                case .node: break  // counted with the positions
                case .way: read.ways += 1
                case .relation: read.relations += 1
                }
                guard let candidate = extractor.consume(element, tagged: tagged) else { return }
                batch.append(candidate)
                if batch.count >= batchSize {
                    try handoff.put(batch)
                    batch = []
                }
            }
            batch += extractor.postcodeCandidates()
            if !batch.isEmpty { try handoff.put(batch) }
            read.fileCountry = extractor.fileCountry
            handoff.finish(.success(read))
        } catch {
            handoff.finish(.failure(error))
        }
    }

    static let geoNamesAttribution = "© GeoNames (geonames.org), CC BY 4.0"

    /// Populated places (feature class `P`) become cities; other rows are read and skipped.
    private func importGeoNames(_ url: URL, container: GeoNamesReader.Container, into writer: PlaceIndexWriter,
                                progress: (@Sendable (ImportProgress) -> Void)?) throws -> ImportSummary {
        let fileName = url.lastPathComponent
        var summary = ImportSummary(file: fileName, kind: .geoNames)
        writer.markPhase("start")
        try writer.removeSource(fileName)
        writer.markPhase("remove")
        // The dump is inflated, cut into lines, parsed, and each city's row and words prepared (folding its alternate
        // names is most of the work) and its typo words counted on other threads (``readGeoNamesRows``): this one,
        // which owns the SQLite connection, only inserts, and the whole import takes about as long as its inserts.
        let reader = GeoNamesReader(url: url, container: container)
        let typoTerms = try BatchHandoff<Result<GeoNamesRow, InputError>, TypoTermCounts>.consume(
            capacity: 8, readingOnAThreadOfItsOwn: { Self.readGeoNamesRows(reader, into: $0, progress: progress) }
        ) { batch in
            for row in batch {
                switch try row.get() {
                case .blank: break
                case .skipped: summary.rowsRead += 1
                case .city(let city, let place):
                    summary.rowsRead += 1
                    summary.citiesIndexed += 1
                    try writer.insert(city, source: fileName)
                    try writer.insert(counted: place)
                }
            }
        }
        writer.addTypoTerms(typoTerms)
        summary.placesIndexed = summary.citiesIndexed
        try writer.finishSource(fileName, kind: ImportSummary.Kind.geoNames.rawValue, places: summary.citiesIndexed,
                                cities: summary.citiesIndexed, fingerprint: try Self.fingerprint(of: url))
        return summary
    }

    /// Reads the dump on the calling thread and hands its rows, parsed and prepared, to `handoff` in batches in file
    /// order (a line that is not GeoNames-shaped as its error, for the inserting thread to throw in turn); then ends it
    /// with the typo words of every city, or the error that stopped the reading. Lines are prepared on every core.
    private static func readGeoNamesRows(_ reader: GeoNamesReader, into handoff: BatchHandoff<Result<GeoNamesRow, InputError>, TypoTermCounts>,
                                         progress: (@Sendable (ImportProgress) -> Void)?) {
        let fileName = reader.url.lastPathComponent
        var prepared = PipelinedInsert<GeoNamesLine, Result<GeoNamesRow, InputError>> { line in
            line.bytes.withUnsafeBytes { bytes in
                Result { () throws(InputError) in try Self.geoNamesRow(bytes, lineNumber: line.number, fileName: fileName) }
            }
        }
        var typoTerms = TypoTermCounts()
        let handOver = { (batch: [Result<GeoNamesRow, InputError>]) throws in
            for case .success(.city(_, let place)) in batch { typoTerms.add(place) }
            try handoff.put(batch)
        }
        do {
            try reader.forEachLine(progress: { read, total in
                progress?(ImportProgress(file: fileName, bytesRead: Int64(read), totalBytes: Int64(total)))
            }) { line, lineNumber in
                try prepared.add(GeoNamesLine(bytes: [UInt8](line), number: lineNumber), handOver: handOver)
            }
            try prepared.finish(handOver: handOver)
            handoff.finish(.success(typoTerms))
        } catch {
            handoff.finish(.failure(error))
        }
    }

    /// One line of a GeoNames dump as read, to be parsed on another thread.
    struct GeoNamesLine: Sendable {
        var bytes: [UInt8]
        var number: Int
    }

    /// What one line of a GeoNames dump adds to the index.
    enum GeoNamesRow: Sendable {
        /// A blank line or a comment: not a row.
        case blank
        /// A row of another feature class than populated places (`P`).
        case skipped
        case city(IndexedCity, PreparedPlace)
    }

    /// Parses one line and, for a populated place, prepares its city row and its searchable place.
    private static func geoNamesRow(_ line: UnsafeRawBufferPointer, lineNumber: Int, fileName: String) throws(InputError) -> GeoNamesRow {
        guard let record = try GeoNamesReader.parse(line, lineNumber: lineNumber, fileName: fileName) else { return .blank }
        guard record.featureClass == "P" else { return .skipped }
        let city = IndexedCity(
            geonameID: record.geonameID, name: record.name, asciiName: record.asciiName,
            coordinate: record.coordinate, featureCode: record.featureCode.isEmpty ? nil : record.featureCode,
            countryCode: record.countryCode.isEmpty ? nil : record.countryCode,
            admin1: record.admin1.isEmpty ? nil : record.admin1, population: record.population,
            timeZone: record.timeZone.isEmpty ? nil : record.timeZone)
        let place = Place(
            id: city.placeID, name: record.name, coordinate: record.coordinate,
            address: PostalAddress(city: record.name, countryCode: city.countryCode),
            formattedAddress: [record.name, city.countryCode].compactMap { $0 }.joined(separator: ", "),
            categories: ["geonames=\(record.featureCode.isEmpty ? "P" : record.featureCode)"], category: "city",
            timeZone: city.timeZone, attribution: geoNamesAttribution)
        // No "city" keyword: on every GeoNames row it made a 170,000-entry word that bm25 counted through
        // whenever a query held "city" ("city bike station": 7 ms); `--category city` reads the column.
        return .city(city, PreparedPlace(place, kind: .city, source: fileName, alternates: record.searchableAlternates,
                                         importance: record.importance))
    }
}

/// Items fed in one by one are prepared on every core in batches while this thread inserts the batch
/// before, in the order they came: one thread owns the SQLite connection, the others do the text work.
struct PipelinedInsert<Item: Sendable, Prepared: Sendable> {
    static var batchSize: Int { 4_096 }
    let prepare: @Sendable (Item) -> Prepared
    private var waiting: [Item] = []
    private var inFlight: ParallelBatch<Prepared>?

    init(prepare: @escaping @Sendable (Item) -> Prepared) { self.prepare = prepare }

    mutating func add(_ item: Item, insert: (Prepared) throws -> Void) throws {
        try add(item) { batch in for prepared in batch { try insert(prepared) } }
    }

    /// ``add(_:insert:)`` for a caller that takes each prepared batch whole.
    mutating func add(_ item: Item, handOver: ([Prepared]) throws -> Void) throws {
        waiting.append(item)
        if waiting.count >= Self.batchSize { try flush(handOver: handOver) }
    }

    /// Inserts everything added so far.
    mutating func finish(insert: (Prepared) throws -> Void) throws {
        try finish { batch in for prepared in batch { try insert(prepared) } }
    }

    /// ``finish(insert:)`` for a caller that takes each prepared batch whole.
    mutating func finish(handOver: ([Prepared]) throws -> Void) throws {
        try flush(handOver: handOver)
        try flush(handOver: handOver)
    }

    /// Starts preparing the waiting items, then hands over the batch prepared before them.
    private mutating func flush(handOver: ([Prepared]) throws -> Void) throws {
        let previous = inFlight
        inFlight = waiting.isEmpty ? nil : ParallelBatch.start(waiting, prepare)
        waiting.removeAll(keepingCapacity: true)
        if let previous { try handOver(previous.wait()) }
    }
}

extension OSMPlaceExtractor.IndexedKind {
    /// The row's kind in the index.
    var indexed: IndexedPlaceKind {
        switch self {
        case .poi: .poi
        case .street: .street
        case .area: .area
        case .address: .address
        }
    }
}
