import Foundation
import PlacesCore

/// A native reader of OpenStreetMap `.osm.pbf` extracts (the Geofabrik download format).
///
/// The file is memory-mapped (``MappedFile``) and read block by block: 4-byte big-endian `BlobHeader` length, the
/// `BlobHeader`, then a `Blob` holding raw or zlib-compressed data. The first block is the
/// `OSMHeader`; the rest are `OSMData` primitive blocks with dense nodes, ways and relations.
///
/// ```swift
/// let reader = try OSMPBFReader(url: URL(fileURLWithPath: "helsinki.osm.pbf"))
/// try reader.forEachElement { element in
///     if let hours = element.tags["opening_hours"] { print(element.type, element.id, hours) }
/// }
/// ```
///
/// Broken input throws an ``InputError`` naming the file and what broke
/// ("helsinki.osm.pbf: truncated blob at offset 123456"); it never traps or loops.
public struct OSMPBFReader: Sendable {
    public let url: URL
    public let header: OSMHeader
    private let file: MappedFile
    /// Where the first `OSMData` block starts.
    private let dataStart: Int

    /// Features this reader implements; a file requiring anything else is refused up front.
    public static let supportedFeatures: Set<String> = ["OsmSchema-V0.6", "DenseNodes", "HistoricalInformation"]

    public init(url: URL) throws {
        self.url = url
        let file = try MappedFile(url: url)
        self.file = file
        let fileName = url.lastPathComponent
        let parsed: (OSMHeader, Int) = try { (bytes: UnsafeRawBufferPointer) throws in
            var offset = 0
            guard let block = try Self.nextBlock(in: bytes, at: &offset, fileName: fileName) else {
                throw InputError("\(fileName): empty file, not an .osm.pbf extract")
            }
            guard block.type == "OSMHeader" else {
                throw InputError("\(fileName): first block is '\(block.type)', not OSMHeader; is this an .osm.pbf extract?")
            }
            let payload = try Self.payload(of: block, in: bytes, fileName: fileName)
            let header: OSMHeader
            do {
                header = try payload.withUnsafeBytes { raw in try Self.parseHeader(raw) }
            } catch let error as ProtobufError {
                throw InputError("\(fileName): corrupt OSMHeader block at offset \(block.offset): \(error)")
            }
            let unsupported = header.requiredFeatures.filter { !Self.supportedFeatures.contains($0) }
            guard unsupported.isEmpty else {
                throw InputError("\(fileName): requires features this reader does not support: \(unsupported.joined(separator: ", "))")
            }
            return (header, offset)
        }(file.bytes)
        self.header = parsed.0
        self.dataStart = parsed.1
    }

    public var fileSize: Int { file.bytes.count }

    /// Calls `body` for every node, way and relation in file order.
    ///
    /// Blocks are inflated and decoded on every core, a window of them at a time, while `body` runs on the
    /// calling thread over the window before (in file order, so callers see exactly what a one-thread read
    /// gives them). A corrupt block throws after every element of the blocks before it was delivered.
    /// - Parameter progress: receives (bytes read, total bytes) after each block.
    public func forEachElement(
        progress: ((Int, Int) -> Void)? = nil,
        _ body: (OSMElement) throws -> Void
    ) throws {
        try forEachElement(progress: progress, preparing: { _ in () }) { element, _ in try body(element) }
    }

    /// Like ``forEachElement(progress:_:)``, and `prepare` runs on the decoding threads over each element, so
    /// work that needs nothing from the elements before it (what an object's tags make of it) is done on every
    /// core; `body` receives each element with what `prepare` made of it, in file order.
    /// - Parameter keepsTag: whether a tag key matters to the caller; elements arrive without the tags it
    ///   refuses (most of an extract's tags, for an importer), which are then never turned into strings.
    public func forEachElement<Prepared: Sendable>(
        progress: ((Int, Int) -> Void)? = nil,
        keepingTagsWhere keepsTag: (@Sendable (String) -> Bool)? = nil,
        preparing prepare: @escaping @Sendable (OSMElement) -> Prepared,
        _ body: (OSMElement, Prepared) throws -> Void
    ) throws {
        try read(progress: progress, selection: keepsTag.map(OSMTagSelection.init(keepingTagsWhere:)), nodePositions: nil,
                 preparing: prepare, body)
    }

    /// Like ``forEachElement(progress:keepingTagsWhere:preparing:_:)``, for a reader that needs every node's
    /// position but few nodes' tags (an importer): positions arrive in runs through `nodePositions`, and a node
    /// reaches `body` (after its position) only when it keeps tags under `selection`. The calls to both come in
    /// file order. Most nodes of an extract have no tags: they are never made into elements, and `prepare`
    /// and `body` are not called for each.
    public func forEachElement<Prepared: Sendable>(
        progress: ((Int, Int) -> Void)? = nil,
        selectingTags selection: OSMTagSelection,
        nodePositions: (OSMNodePositions) throws -> Void,
        preparing prepare: @escaping @Sendable (OSMElement) -> Prepared,
        _ body: (OSMElement, Prepared) throws -> Void
    ) throws {
        try withoutActuallyEscaping(nodePositions) { nodePositions in
            try read(progress: progress, selection: selection, nodePositions: nodePositions, preparing: prepare, body)
        }
    }

    private func read<Prepared: Sendable>(
        progress: ((Int, Int) -> Void)?,
        selection: OSMTagSelection?,
        nodePositions: ((OSMNodePositions) throws -> Void)?,
        preparing prepare: @escaping @Sendable (OSMElement) -> Prepared,
        _ body: (OSMElement, Prepared) throws -> Void
    ) throws {
        let fileName = url.lastPathComponent
        let windowSize = max(2, ProcessInfo.processInfo.activeProcessorCount) * 4
        let mapped = file
        let separateNodes = nodePositions != nil
        typealias Decoded = Result<DecodedBlock<Prepared>, InputError>
        try { (bytes: UnsafeRawBufferPointer) in
            var offset = dataStart
            var framingError: InputError?
            /// The next window's `OSMData` blocks; a framing error ends the file after them.
            func nextWindow() -> [Block] {
                var window: [Block] = []
                while window.count < windowSize, framingError == nil {
                    do {
                        guard let block = try Self.nextBlock(in: bytes, at: &offset, fileName: fileName) else { break }
                        if block.type == "OSMData" { window.append(block) }  // Unknown blocks are skippable by spec.
                    } catch {
                        framingError = error
                    }
                }
                return window
            }
            func decoding(_ blocks: [Block]) -> ParallelBatch<Decoded> {
                ParallelBatch.start(blocks) { block in
                    Result { () throws(InputError) in
                        try Self.decode(block, in: mapped.bytes, fileName: fileName, selecting: selection,
                                        separateNodes: separateNodes, preparing: prepare)
                    }
                }
            }
            var window = nextWindow()
            var decoded = decoding(window)
            var ahead: ParallelBatch<Decoded>?
            // However this ends (`body` may throw), no decoding thread may outlive the file's bytes.
            defer {
                _ = ahead?.wait()
                _ = decoded.wait()
            }
            while !window.isEmpty {
                let next = nextWindow()
                // Decode the next window while this thread hands the current one to `body`.
                ahead = next.isEmpty ? nil : decoding(next)
                for (block, result) in zip(window, decoded.wait()) {
                    let blockElements = try result.get()
                    if let nodePositions, let nodes = blockElements.nodes {
                        var delivered = 0
                        func deliverNodes(upTo end: Int) throws {
                            guard end > delivered else { return }
                            try nodePositions(OSMNodePositions(ids: nodes.ids[delivered..<end], latitudes: nodes.latitudes[delivered..<end],
                                                               longitudes: nodes.longitudes[delivered..<end]))
                            delivered = end
                        }
                        for i in blockElements.elements.indices {
                            try deliverNodes(upTo: blockElements.nodesBefore[i])
                            try body(blockElements.elements[i], blockElements.prepared[i])
                        }
                        try deliverNodes(upTo: nodes.ids.count)
                    } else {
                        for i in blockElements.elements.indices { try body(blockElements.elements[i], blockElements.prepared[i]) }
                    }
                    progress?(block.blobRange.upperBound, bytes.count)
                }
                if let end = window.last?.blobRange.upperBound { mapped.release(before: end) }
                window = next
                if let ahead { decoded = ahead }
            }
            if let framingError { throw framingError }
        }(mapped.bytes)
    }

    /// Inflates and decodes one `OSMData` block into its elements, in file order, each with what `prepare`
    /// makes of it.
    /// - Parameter separateNodes: every node's position goes to the block's `nodes` columns, and only nodes
    ///   that keep tags become elements.
    private static func decode<Prepared>(_ block: Block, in bytes: UnsafeRawBufferPointer, fileName: String,
                                         selecting selection: OSMTagSelection?, separateNodes: Bool,
                                         preparing prepare: (OSMElement) -> Prepared) throws(InputError) -> DecodedBlock<Prepared> {
        let payload = try payload(of: block, in: bytes, fileName: fileName)
        var decoded = DecodedBlock<Prepared>()
        var nodes = separateNodes ? PrimitiveBlockDecoder.NodeColumns() : nil
        do {
            try payload.withUnsafeBytes { raw in
                try PrimitiveBlockDecoder.decode(raw, selecting: selection, nodes: &nodes) { element, positionsSoFar in
                    decoded.elements.append(element)
                    decoded.prepared.append(prepare(element))
                    if separateNodes { decoded.nodesBefore.append(positionsSoFar) }
                }
            }
        } catch let error as ProtobufError {
            throw InputError("\(fileName): corrupt OSMData block at offset \(block.offset): \(error)")
        } catch {
            throw InputError("\(fileName): corrupt OSMData block at offset \(block.offset): \(error)")
        }
        decoded.nodes = nodes
        return decoded
    }

    /// One block's elements and what `prepare` made of each, in two arrays: an array of (element, prepared)
    /// pairs was freed through the runtime's generic tuple code, element by element, a second of CPU on
    /// the generated 5-million-object extract.
    private struct DecodedBlock<Prepared: Sendable>: Sendable {
        var elements: [OSMElement] = []
        var prepared: [Prepared] = []
        /// When nodes are read apart (``forEachElement(progress:selectingTags:nodePositions:preparing:_:)``): every
        /// node's position, and for each element how many of them come before it in the block.
        var nodes: PrimitiveBlockDecoder.NodeColumns?
        var nodesBefore: [Int] = []
    }

    // MARK: Framing

    private struct Block: Sendable {
        var type: String
        /// Offset of the block's 4-byte length prefix, for error messages.
        var offset: Int
        var blobRange: Range<Int>
    }

    private static func nextBlock(in bytes: UnsafeRawBufferPointer, at offset: inout Int, fileName: String) throws(InputError) -> Block? {
        let start = offset
        guard start < bytes.count else { return nil }
        guard bytes.count - start >= 4 else { throw InputError("\(fileName): truncated block header at offset \(start)") }
        let headerLength = Int(bytes[start]) << 24 | Int(bytes[start + 1]) << 16 | Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
        guard headerLength > 0, headerLength <= 64 << 10 else {
            throw InputError("\(fileName): corrupt block header length \(headerLength) at offset \(start)")
        }
        guard bytes.count - start - 4 >= headerLength else {
            throw InputError("\(fileName): truncated block header at offset \(start)")
        }
        var cursor = ProtobufCursor(UnsafeRawBufferPointer(rebasing: bytes[(start + 4)..<(start + 4 + headerLength)]))
        var type: String?
        var dataSize: Int?
        do {
            while !cursor.isAtEnd {
                let key = try cursor.readKey()
                switch (key.field, key.wireType) {
                case (1, 2): type = try cursor.readString()
                case (3, 0): dataSize = Int(truncatingIfNeeded: try cursor.readVarint())
                default: try cursor.skip(wireType: key.wireType)
                }
            }
        } catch {
            throw InputError("\(fileName): corrupt block header at offset \(start): \(error)")
        }
        guard let type, let dataSize, dataSize >= 0, dataSize <= 64 << 20 else {
            throw InputError("\(fileName): corrupt block header at offset \(start): missing type or size")
        }
        let blobStart = start + 4 + headerLength
        guard bytes.count - blobStart >= dataSize else {
            throw InputError("\(fileName): truncated blob at offset \(blobStart) (needs \(dataSize) bytes, \(bytes.count - blobStart) left)")
        }
        offset = blobStart + dataSize
        return Block(type: type, offset: start, blobRange: blobStart..<(blobStart + dataSize))
    }

    /// The blob's uncompressed content.
    private static func payload(of block: Block, in bytes: UnsafeRawBufferPointer, fileName: String) throws(InputError) -> [UInt8] {
        var cursor = ProtobufCursor(UnsafeRawBufferPointer(rebasing: bytes[block.blobRange]))
        var raw: UnsafeRawBufferPointer?
        var zlib: UnsafeRawBufferPointer?
        var rawSize: Int?
        var otherCompression: String?
        do {
            while !cursor.isAtEnd {
                let key = try cursor.readKey()
                switch (key.field, key.wireType) {
                case (1, 2): raw = try cursor.readBytes()
                case (2, 0): rawSize = Int(truncatingIfNeeded: try cursor.readVarint())
                case (3, 2): zlib = try cursor.readBytes()
                case (4, 2), (5, 2), (6, 2), (7, 2):
                    otherCompression = [4: "lzma", 5: "bzip2", 6: "lz4", 7: "zstd"][key.field]
                    try cursor.skip(wireType: key.wireType)
                default: try cursor.skip(wireType: key.wireType)
                }
            }
        } catch {
            throw InputError("\(fileName): corrupt blob at offset \(block.blobRange.lowerBound): \(error)")
        }
        if let raw { return Array(raw) }
        if let zlib {
            guard let rawSize else {
                throw InputError("\(fileName): corrupt blob at offset \(block.blobRange.lowerBound): compressed data without raw_size")
            }
            do {
                return try Inflater.inflate(zlib, framing: .zlib, expectedSize: rawSize)
            } catch {
                throw InputError("\(fileName): corrupt blob at offset \(block.blobRange.lowerBound): \(error)")
            }
        }
        if let otherCompression {
            throw InputError("\(fileName): blob at offset \(block.blobRange.lowerBound) uses \(otherCompression) compression; only raw and zlib are supported")
        }
        throw InputError("\(fileName): corrupt blob at offset \(block.blobRange.lowerBound): no data")
    }

    private static func parseHeader(_ raw: UnsafeRawBufferPointer) throws(ProtobufError) -> OSMHeader {
        var cursor = ProtobufCursor(raw)
        var header = OSMHeader(boundingBox: nil, requiredFeatures: [], optionalFeatures: [], writingProgram: nil)
        while !cursor.isAtEnd {
            let key = try cursor.readKey()
            switch (key.field, key.wireType) {
            case (1, 2):
                var box = try cursor.readMessage()
                var values = [Int64](repeating: 0, count: 5)
                while !box.isAtEnd {
                    let boxKey = try box.readKey()
                    if (1...4).contains(boxKey.field), boxKey.wireType == 0 {
                        values[boxKey.field] = try box.readSignedVarint()
                    } else {
                        try box.skip(wireType: boxKey.wireType)
                    }
                }
                header.boundingBox = OSMBoundingBox(
                    minLongitude: Double(values[1]) * 1e-9, minLatitude: Double(values[4]) * 1e-9,
                    maxLongitude: Double(values[2]) * 1e-9, maxLatitude: Double(values[3]) * 1e-9)
            case (4, 2): header.requiredFeatures.append(try cursor.readString())
            case (5, 2): header.optionalFeatures.append(try cursor.readString())
            case (16, 2): header.writingProgram = try cursor.readString()
            default: try cursor.skip(wireType: key.wireType)
            }
        }
        return header
    }
}
