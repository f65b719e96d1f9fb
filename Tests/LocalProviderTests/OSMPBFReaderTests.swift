import Foundation
import LocalProvider
import PlacesCore
import Testing

@Suite struct OSMPBFReaderTests {
    @Test func readsEveryObjectOfTheHelsinkiExtract() throws {
        let reader = try OSMPBFReader(url: TestData.helsinkiPBF)
        var nodes = 0, ways = 0, relations = 0
        var largestNodeID: Int64 = 0
        var namedPOIs = 0
        let poiKeys = ["amenity", "shop", "tourism", "leisure", "office", "craft"]
        try reader.forEachElement { element in
            switch element {
            case .node(let node):
                nodes += 1
                largestNodeID = max(largestNodeID, node.id)
            case .way: ways += 1
            case .relation: relations += 1
            }
            let tags = element.tags
            if tags["name"] != nil, poiKeys.contains(where: { tags[$0] != nil }) { namedPOIs += 1 }
        }
        #expect(nodes == 24_260)
        #expect(ways == 5_130)
        #expect(relations == 620)
        #expect(largestNodeID == 6_394_671_610)
        // pyosmium counts the same 1,437 named amenity/shop/tourism/leisure/office/craft objects; the
        // data README's 1,533 does not match the file.
        #expect(namedPOIs == 1_437)
    }

    /// Blocks are decoded on several threads; callers still see the file's order, which `osmium fileinfo -e`
    /// reports for this extract as "Objects ordered (by type and id): yes".
    @Test func deliversElementsInFileOrderThoughBlocksDecodeInParallel() throws {
        var previous: (type: Int, id: Int64)?
        var outOfOrder = 0, count = 0
        try OSMPBFReader(url: TestData.helsinkiPBF).forEachElement { element in
            let type = [OSMElementType.node: 0, .way: 1, .relation: 2][element.type]!
            if let previous, (previous.type, previous.id) >= (type, element.id) { outOfOrder += 1 }
            previous = (type, element.id)
            count += 1
        }
        #expect(count == 30_010)
        #expect(outOfOrder == 0)
    }

    /// A reader that wants only some keys gets every object, with exactly the tags under those keys: the
    /// same objects and tags as a full read, filtered afterwards.
    @Test func keepsOnlyTheTagsUnderTheKeysAsked() throws {
        let reader = try OSMPBFReader(url: TestData.helsinkiPBF)
        var full: [String: [String: String]] = [:]
        try reader.forEachElement { element in full["\(element.type)/\(element.id)"] = element.tags }
        let wanted: @Sendable (String) -> Bool = { $0 == "name" || $0.hasPrefix("addr:") }
        var filtered: [String: [String: String]] = [:]
        try reader.forEachElement(keepingTagsWhere: wanted, preparing: { _ in () }) { element, _ in
            filtered["\(element.type)/\(element.id)"] = element.tags
        }
        #expect(filtered.count == 30_010)
        #expect(filtered == full.mapValues { $0.filter { wanted($0.key) } })
        // Something was dropped, and something kept: the check above is not comparing empty dictionaries.
        #expect(full.values.contains { $0["highway"] != nil })
        #expect(filtered.values.filter { $0["name"] != nil }.count == full.values.filter { $0["name"] != nil }.count)
        #expect(filtered.values.contains { $0["addr:street"] != nil })
    }

    /// A reader that takes node positions apart gets every node's position, in file order and before the node
    /// itself when it keeps tags; other elements arrive as a full read gives them, with only the selected tags,
    /// and an object the selection refuses arrives without tags (a node: not at all).
    @Test func deliversNodePositionsApartAndOnlyTheSelectedObjectsTags() throws {
        let reader = try OSMPBFReader(url: TestData.helsinkiPBF)
        let keeps: @Sendable (String) -> Bool = { $0 == "name" || $0.hasPrefix("addr:") }
        var expected: [String] = []
        try reader.forEachElement { element in
            let tags = element.tags.filter { keeps($0.key) }
            let kept = tags["name"] != nil ? tags : [:]
            if case .node(let node) = element {
                expected.append("at \(node.id) \(node.latitude) \(node.longitude)")
                if kept.isEmpty { return }
            }
            expected.append("\(element.type)/\(element.id) \(kept.sorted { $0.key < $1.key })")
        }
        let selection = OSMTagSelection(mark: { $0 == "name" ? 1 : keeps($0) ? 0 : nil }, keepsObject: { $0 == 1 })
        var delivered: [String] = []
        var runs = 0
        try reader.forEachElement(selectingTags: selection, nodePositions: { positions in
            runs += 1
            for i in positions.ids.indices {
                delivered.append("at \(positions.ids[i]) \(positions.latitudes[i]) \(positions.longitudes[i])")
            }
        }, preparing: { _ in () }) { element, _ in
            delivered.append("\(element.type)/\(element.id) \(element.tags.sorted { $0.key < $1.key })")
        }
        #expect(delivered == expected)
        // Positions come in runs, not one by one; and both kinds of node were there.
        #expect(runs < 24_260 / 10)
        #expect(expected.count > 30_010 + 100)
        #expect(expected.contains { $0.hasPrefix("way/") && $0.hasSuffix(" []") })
    }

    /// A broken block ends the read with its error, after every object of the blocks before it.
    @Test func truncatedFileDeliversTheWholeBlocksBeforeTheError() throws {
        let whole = try Data(contentsOf: TestData.helsinkiPBF)
        let url = try TestData.temporaryDirectory().appendingPathComponent("cut-half.osm.pbf")
        try whole.prefix(whole.count / 2).write(to: url)
        var delivered = 0
        #expect(throws: InputError.self) { try OSMPBFReader(url: url).forEachElement { _ in delivered += 1 } }
        // osmium reads 45 of the 90 blocks whole from the first half of the file; each holds hundreds of objects.
        #expect(delivered > 5_000)
        #expect(delivered < 30_010)
    }

    @Test func readsTheHeaderBoundingBox() throws {
        let header = try OSMPBFReader(url: TestData.helsinkiPBF).header
        let box = try #require(header.boundingBox)
        #expect(abs(box.minLongitude - 24.9351762) < 1e-7)
        #expect(abs(box.minLatitude - 60.164155) < 1e-7)
        #expect(abs(box.maxLongitude - 24.9534145) < 1e-7)
        #expect(abs(box.maxLatitude - 60.179113) < 1e-7)
        #expect(header.requiredFeatures.contains("OsmSchema-V0.6"))
    }

    @Test func waysAndRelationsCarryTheirMembers() throws {
        let reader = try OSMPBFReader(url: TestData.helsinkiPBF)
        var longestWay = 0, membersSeen = 0
        try reader.forEachElement { element in
            if case .way(let way) = element { longestWay = max(longestWay, way.nodeRefs.count) }
            if case .relation(let relation) = element { membersSeen += relation.members.count }
        }
        #expect(longestWay > 10)
        #expect(membersSeen > 620)
    }

    @Test func truncatedFileThrowsAnErrorNamingFileAndOffset() throws {
        let whole = try Data(contentsOf: TestData.helsinkiPBF)
        let url = try TestData.temporaryDirectory().appendingPathComponent("cut.osm.pbf")
        try whole.prefix(whole.count / 2).write(to: url)
        let reader = try OSMPBFReader(url: url)
        let error = #expect(throws: InputError.self) { try reader.forEachElement { _ in } }
        #expect(error?.message.hasPrefix("cut.osm.pbf: truncated blob at offset") == true)
    }

    @Test func corruptBlobThrowsInsteadOfCrashing() throws {
        var bytes = [UInt8](try Data(contentsOf: TestData.helsinkiPBF))
        // Scribble over the middle of the compressed data.
        for i in stride(from: bytes.count / 3, to: bytes.count / 3 + 4000, by: 7) { bytes[i] ^= 0x5A }
        let url = try TestData.temporaryDirectory().appendingPathComponent("scribbled.osm.pbf")
        try Data(bytes).write(to: url)
        let error = #expect(throws: InputError.self) {
            let reader = try OSMPBFReader(url: url)
            try reader.forEachElement { _ in }
        }
        #expect(error?.message.hasPrefix("scribbled.osm.pbf: ") == true)
    }

    @Test func nonPBFFileIsRefused() throws {
        let url = try TestData.temporaryDirectory().appendingPathComponent("notes.osm.pbf")
        try Data("hello, this is text\n".utf8).write(to: url)
        let error = #expect(throws: InputError.self) { _ = try OSMPBFReader(url: url) }
        #expect(error?.message.hasPrefix("notes.osm.pbf: ") == true)
    }
}
