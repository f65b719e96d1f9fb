/// Which tags of an extract a reader wants, decided once per distinct key of a block (a block's string table
/// holds each key once): most of an extract's tags (`highway`, `surface`, `building:levels`…) are then never
/// turned into strings. An object can also be refused as a whole from its keys alone: it then arrives without
/// tags, and none of its values is turned into a string either.
public struct OSMTagSelection: Sendable {
    /// For a key: `nil` drops its tags; otherwise they are kept, and the key adds these bits to its object's mark.
    public let mark: @Sendable (String) -> UInt8?
    /// Whether an object whose kept keys' marks add up (bitwise or) to this keeps its tags.
    public let keepsObject: @Sendable (UInt8) -> Bool

    public init(mark: @escaping @Sendable (String) -> UInt8?, keepsObject: @escaping @Sendable (UInt8) -> Bool) {
        self.mark = mark
        self.keepsObject = keepsObject
    }

    /// Keeps the tags under the keys `keepsTag` accepts, on every object.
    public init(keepingTagsWhere keepsTag: @escaping @Sendable (String) -> Bool) {
        self.init(mark: { keepsTag($0) ? 0 : nil }, keepsObject: { _ in true })
    }
}

/// The positions of a run of nodes, in file order, as ``OSMNode`` has them (degrees).
public struct OSMNodePositions: Sendable {
    public var ids: ArraySlice<Int64>
    public var latitudes: ArraySlice<Double>
    public var longitudes: ArraySlice<Double>
}

/// Decodes one `PrimitiveBlock` (string table, granularity, offsets and primitive groups) into elements.
enum PrimitiveBlockDecoder {
    /// Every node's position of a block, when a reader takes them apart from the elements
    /// (``OSMPBFReader/forEachElement(progress:selectingTags:nodePositions:preparing:_:)``).
    struct NodeColumns: Sendable {
        var ids: [Int64] = []
        var latitudes: [Double] = []
        var longitudes: [Double] = []

        mutating func append(id: Int64, latitude: Double, longitude: Double) {
            ids.append(id)
            latitudes.append(latitude)
            longitudes.append(longitude)
        }

        /// Makes room for `count` more positions in columns that hold none yet (see
        /// ``ProtobufCursor/appendVarints(wireType:to:)`` for why only then).
        mutating func reserve(_ count: Int) {
            guard ids.isEmpty else { return }
            ids.reserveCapacity(count)
            latitudes.reserveCapacity(count)
            longitudes.reserveCapacity(count)
        }
    }

    /// The fields an object is decoded from before it is made an element (its tags' string indexes, a relation's
    /// member columns), kept for the next object of the block: arrays made afresh for each way and relation were
    /// allocated, grown and freed millions of times on an extract.
    private struct Scratch {
        var keys: [UInt64] = []
        var values: [UInt64] = []
        var roles: [UInt64] = []
        var memberIDs: [Int64] = []
        var types: [UInt64] = []

        /// Empties every array, keeping its room.
        mutating func clear() {
            keys.removeAll(keepingCapacity: true)
            values.removeAll(keepingCapacity: true)
            roles.removeAll(keepingCapacity: true)
            memberIDs.removeAll(keepingCapacity: true)
            types.removeAll(keepingCapacity: true)
        }
    }

    /// The block's string table as byte ranges of the inflated block (valid while it is), each turned into a
    /// `String` the first time a kept tag or a relation role uses it; and what the selection makes of each
    /// string used as a key, worked out the first time. A struct handed down `inout`: a class's properties were
    /// checked for exclusive access at run time on every tag, 3 % of an import's instructions (callgrind).
    private struct Context {
        var table: [UnsafeRawBufferPointer] = []
        private var strings: [String?] = []
        /// Per string index: 0 not classified yet, 1 tags under it are dropped, 2 + its mark otherwise.
        private var keyUses: [UInt16] = []
        let selection: OSMTagSelection?
        var granularity: Int64 = 100
        var latOffset: Int64 = 0
        var lonOffset: Int64 = 0

        init(selection: OSMTagSelection?) { self.selection = selection }

        mutating func tableComplete() {
            strings = Array(repeating: nil, count: table.count)
            keyUses = Array(repeating: 0, count: table.count)
        }

        func latitude(_ raw: Int64) -> Double { Double(latOffset &+ granularity &* raw) * 1e-9 }
        func longitude(_ raw: Int64) -> Double { Double(lonOffset &+ granularity &* raw) * 1e-9 }

        mutating func string(_ index: UInt64) throws(ProtobufError) -> String {
            guard index < UInt64(table.count) else {
                throw ProtobufError("string index \(index) outside the string table of \(table.count)")
            }
            return string(at: Int(index))
        }

        private mutating func string(at index: Int) -> String {
            if let known = strings[index] { return known }
            let made = String(decoding: table[index], as: UTF8.self)
            strings[index] = made
            return made
        }

        /// The key's mark when tags under it are kept, `nil` when they are dropped; both indexes are checked
        /// against the string table either way, so a corrupt block is refused whatever the selection.
        mutating func mark(key: UInt64, value: UInt64) throws(ProtobufError) -> UInt8? {
            guard key < UInt64(table.count), value < UInt64(table.count) else {
                throw ProtobufError("string index \(max(key, value)) outside the string table of \(table.count)")
            }
            guard let selection else { return 0 }
            var use = keyUses[Int(key)]
            if use == 0 {
                use = selection.mark(string(at: Int(key))).map { 2 + UInt16($0) } ?? 1
                keyUses[Int(key)] = use
            }
            return use == 1 ? nil : UInt8(use - 2)
        }

        /// Whether an object whose kept tags' marks add up to `mark` keeps them (any kept at all, for a selection).
        func keepsObject(anyKept: Bool, mark: UInt8) -> Bool {
            guard let selection else { return true }
            return anyKept && selection.keepsObject(mark)
        }

        mutating func tags(keys: [UInt64], values: [UInt64]) throws(ProtobufError) -> [String: String] {
            guard keys.count == values.count else {
                throw ProtobufError("\(keys.count) tag keys but \(values.count) values")
            }
            var marks: UInt8 = 0
            var kept = 0
            for i in keys.indices {
                if let mark = try mark(key: keys[i], value: values[i]) { marks |= mark; kept += 1 }
            }
            guard keepsObject(anyKept: kept > 0, mark: marks) else { return [:] }
            var tags = [String: String](minimumCapacity: kept)
            for i in keys.indices where try mark(key: keys[i], value: values[i]) != nil {
                tags[string(at: Int(keys[i]))] = string(at: Int(values[i]))
            }
            return tags
        }
    }

    /// - Parameters:
    ///   - selection: which tags to keep (``OSMTagSelection``); `nil` keeps them all.
    ///   - nodes: when not `nil`, every node's position is appended here, and a node reaches `body` (after its
    ///     position) only when it keeps tags.
    ///   - body: receives each element and how many positions `nodes` holds by then.
    static func decode(_ raw: UnsafeRawBufferPointer, selecting selection: OSMTagSelection? = nil,
                       nodes: inout NodeColumns?, _ body: (OSMElement, _ positionsSoFar: Int) throws -> Void) throws {
        var cursor = ProtobufCursor(raw)
        var context = Context(selection: selection)
        var groups: [ProtobufCursor] = []
        while !cursor.isAtEnd {
            let key = try cursor.readKey()
            switch (key.field, key.wireType) {
            case (1, 2):
                var table = try cursor.readMessage()
                while !table.isAtEnd {
                    let entry = try table.readKey()
                    if entry.field == 1, entry.wireType == 2 {
                        context.table.append(try table.readBytes())
                    } else {
                        try table.skip(wireType: entry.wireType)
                    }
                }
            case (2, 2): groups.append(try cursor.readMessage())
            case (17, 0):
                context.granularity = Int64(truncatingIfNeeded: try cursor.readVarint())
                guard context.granularity > 0 else { throw ProtobufError("granularity \(context.granularity)") }
            case (19, 0): context.latOffset = Int64(bitPattern: try cursor.readVarint())
            case (20, 0): context.lonOffset = Int64(bitPattern: try cursor.readVarint())
            default: try cursor.skip(wireType: key.wireType)
            }
        }
        context.tableComplete()
        var scratch = Scratch()
        for var group in groups {
            while !group.isAtEnd {
                let key = try group.readKey()
                switch (key.field, key.wireType) {
                case (1, 2):
                    let node = try decodeNode(try group.readMessage(), &context, &scratch)
                    if nodes != nil {
                        nodes!.append(id: node.id, latitude: node.latitude, longitude: node.longitude)
                        if node.tags.isEmpty { continue }
                    }
                    try body(.node(node), nodes?.ids.count ?? 0)
                case (2, 2): try decodeDense(try group.readMessage(), &context, &nodes, body)
                case (3, 2): try body(.way(try decodeWay(try group.readMessage(), &context, &scratch)), nodes?.ids.count ?? 0)
                case (4, 2): try body(.relation(try decodeRelation(try group.readMessage(), &context, &scratch)), nodes?.ids.count ?? 0)
                default: try group.skip(wireType: key.wireType)
                }
            }
        }
    }

    private static func decodeNode(_ message: ProtobufCursor, _ context: inout Context,
                                   _ scratch: inout Scratch) throws(ProtobufError) -> OSMNode {
        var cursor = message
        var id: Int64?, lat: Int64 = 0, lon: Int64 = 0
        scratch.clear()
        while !cursor.isAtEnd {
            let key = try cursor.readKey()
            switch (key.field, key.wireType) {
            case (1, 0): id = try cursor.readSignedVarint()
            case (2, _): try cursor.appendVarints(wireType: key.wireType, to: &scratch.keys)
            case (3, _): try cursor.appendVarints(wireType: key.wireType, to: &scratch.values)
            case (8, 0): lat = try cursor.readSignedVarint()
            case (9, 0): lon = try cursor.readSignedVarint()
            default: try cursor.skip(wireType: key.wireType)
            }
        }
        guard let id else { throw ProtobufError("node without id") }
        return OSMNode(id: id, latitude: context.latitude(lat), longitude: context.longitude(lon),
                       tags: try context.tags(keys: scratch.keys, values: scratch.values))
    }

    private static func decodeDense(_ message: ProtobufCursor, _ context: inout Context, _ nodes: inout NodeColumns?,
                                    _ body: (OSMElement, Int) throws -> Void) throws {
        var cursor = message
        var ids: [Int64] = [], lats: [Int64] = [], lons: [Int64] = []
        var keysVals: [UInt64] = []
        while !cursor.isAtEnd {
            let key = try cursor.readKey()
            switch key.field {
            case 1: try cursor.appendDeltaCodedSigned(wireType: key.wireType, to: &ids)
            case 8: try cursor.appendDeltaCodedSigned(wireType: key.wireType, to: &lats)
            case 9: try cursor.appendDeltaCodedSigned(wireType: key.wireType, to: &lons)
            case 10: try cursor.appendVarints(wireType: key.wireType, to: &keysVals)
            default: try cursor.skip(wireType: key.wireType)
            }
        }
        guard ids.count == lats.count, ids.count == lons.count else {
            throw ProtobufError("dense nodes with \(ids.count) ids, \(lats.count) latitudes and \(lons.count) longitudes")
        }
        nodes?.reserve(ids.count)
        var tagPosition = 0
        for i in ids.indices {
            let latitude = context.latitude(lats[i]), longitude = context.longitude(lons[i])
            if nodes != nil { nodes!.append(id: ids[i], latitude: latitude, longitude: longitude) }
            var tags: [String: String] = [:]
            if !keysVals.isEmpty {
                // Each node's pairs end with a 0; a block whose nodes have no tags may omit keys_vals entirely.
                // The first pass finds the end and what the selection makes of the keys, the second keeps tags.
                let first = tagPosition
                var marks: UInt8 = 0
                var kept = 0
                while true {
                    guard tagPosition < keysVals.count else { throw ProtobufError("dense keys_vals ends before node \(ids[i])") }
                    let keyIndex = keysVals[tagPosition]
                    tagPosition += 1
                    if keyIndex == 0 { break }
                    guard tagPosition < keysVals.count else { throw ProtobufError("dense keys_vals ends inside a tag") }
                    if let mark = try context.mark(key: keyIndex, value: keysVals[tagPosition]) { marks |= mark; kept += 1 }
                    tagPosition += 1
                }
                if context.keepsObject(anyKept: kept > 0, mark: marks) {
                    tags.reserveCapacity(kept)
                    var pair = first
                    while pair + 1 < tagPosition {
                        if try context.mark(key: keysVals[pair], value: keysVals[pair + 1]) != nil {
                            tags[try context.string(keysVals[pair])] = try context.string(keysVals[pair + 1])
                        }
                        pair += 2
                    }
                }
            }
            if nodes != nil, tags.isEmpty { continue }
            try body(.node(OSMNode(id: ids[i], latitude: latitude, longitude: longitude, tags: tags)), nodes?.ids.count ?? 0)
        }
    }

    private static func decodeWay(_ message: ProtobufCursor, _ context: inout Context,
                                  _ scratch: inout Scratch) throws(ProtobufError) -> OSMWay {
        var cursor = message
        var id: Int64?
        scratch.clear()
        var refs: [Int64] = []
        while !cursor.isAtEnd {
            let key = try cursor.readKey()
            switch (key.field, key.wireType) {
            case (1, 0): id = Int64(bitPattern: try cursor.readVarint())
            case (2, _): try cursor.appendVarints(wireType: key.wireType, to: &scratch.keys)
            case (3, _): try cursor.appendVarints(wireType: key.wireType, to: &scratch.values)
            case (8, _): try cursor.appendDeltaCodedSigned(wireType: key.wireType, to: &refs)
            default: try cursor.skip(wireType: key.wireType)
            }
        }
        guard let id else { throw ProtobufError("way without id") }
        return OSMWay(id: id, nodeRefs: refs, tags: try context.tags(keys: scratch.keys, values: scratch.values))
    }

    private static func decodeRelation(_ message: ProtobufCursor, _ context: inout Context,
                                       _ scratch: inout Scratch) throws(ProtobufError) -> OSMRelation {
        var cursor = message
        var id: Int64?
        scratch.clear()
        while !cursor.isAtEnd {
            let key = try cursor.readKey()
            switch (key.field, key.wireType) {
            case (1, 0): id = Int64(bitPattern: try cursor.readVarint())
            case (2, _): try cursor.appendVarints(wireType: key.wireType, to: &scratch.keys)
            case (3, _): try cursor.appendVarints(wireType: key.wireType, to: &scratch.values)
            case (8, _): try cursor.appendVarints(wireType: key.wireType, to: &scratch.roles)
            case (9, _): try cursor.appendDeltaCodedSigned(wireType: key.wireType, to: &scratch.memberIDs)
            case (10, _): try cursor.appendVarints(wireType: key.wireType, to: &scratch.types)
            default: try cursor.skip(wireType: key.wireType)
            }
        }
        let roles = scratch.roles, memberIDs = scratch.memberIDs, types = scratch.types
        guard let id else { throw ProtobufError("relation without id") }
        guard roles.count == memberIDs.count, types.count == memberIDs.count else {
            throw ProtobufError("relation \(id) with \(memberIDs.count) members, \(roles.count) roles and \(types.count) types")
        }
        var members: [OSMRelationMember] = []
        members.reserveCapacity(memberIDs.count)
        for i in memberIDs.indices {
            let type: OSMElementType
            switch types[i] {
            case 0: type = .node
            case 1: type = .way
            case 2: type = .relation
            default: throw ProtobufError("relation \(id) has a member of unknown type \(types[i])")
            }
            members.append(OSMRelationMember(type: type, ref: memberIDs[i], role: try context.string(roles[i])))
        }
        return OSMRelation(id: id, members: members, tags: try context.tags(keys: scratch.keys, values: scratch.values))
    }
}

