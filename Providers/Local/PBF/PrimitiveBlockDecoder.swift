/// Decodes one `PrimitiveBlock` (string table, granularity, offsets and primitive groups) into elements.
enum PrimitiveBlockDecoder {
    /// Which tag keys a reader wants: tags under other keys are dropped while decoding, so an importer that
    /// reads a few dozen keys does not build a dictionary entry (two strings hashed and kept) for each of the
    /// others (`highway`, `surface`, `building:levels`…), which are most tags of most objects. Asked once
    /// per distinct key of a block's string table.
    typealias KeyFilter = @Sendable (String) -> Bool

    private struct Context {
        var strings: [String] = []
        /// For each string-table index: whether a tag under that key is kept; `nil` keeps every tag.
        var keptKeys: [Bool]?
        var granularity: Int64 = 100
        var latOffset: Int64 = 0
        var lonOffset: Int64 = 0

        func latitude(_ raw: Int64) -> Double { Double(latOffset &+ granularity &* raw) * 1e-9 }
        func longitude(_ raw: Int64) -> Double { Double(lonOffset &+ granularity &* raw) * 1e-9 }

        func string(_ index: UInt64) throws(ProtobufError) -> String {
            guard index < UInt64(strings.count) else {
                throw ProtobufError("string index \(index) outside the string table of \(strings.count)")
            }
            return strings[Int(index)]
        }

        func tags(keys: [UInt64], values: [UInt64]) throws(ProtobufError) -> [String: String] {
            guard keys.count == values.count else {
                throw ProtobufError("\(keys.count) tag keys but \(values.count) values")
            }
            var tags = keptKeys == nil ? [String: String](minimumCapacity: keys.count) : [:]
            for i in keys.indices {
                if try keeps(key: keys[i], value: values[i]) { tags[try string(keys[i])] = try string(values[i]) }
            }
            return tags
        }

        /// Whether the tag is kept; both indexes are checked against the string table either way, so a
        /// corrupt block is refused whatever the filter.
        func keeps(key: UInt64, value: UInt64) throws(ProtobufError) -> Bool {
            guard key < UInt64(strings.count), value < UInt64(strings.count) else {
                throw ProtobufError("string index \(max(key, value)) outside the string table of \(strings.count)")
            }
            return keptKeys?[Int(key)] ?? true
        }
    }

    /// - Parameter keepingTags: which keys' tags to keep (``KeyFilter``); `nil` keeps them all.
    static func decode(_ raw: UnsafeRawBufferPointer, keepingTags keyFilter: KeyFilter? = nil,
                       _ body: (OSMElement) throws -> Void) throws {
        var cursor = ProtobufCursor(raw)
        var context = Context()
        var groups: [ProtobufCursor] = []
        while !cursor.isAtEnd {
            let key = try cursor.readKey()
            switch (key.field, key.wireType) {
            case (1, 2):
                var table = try cursor.readMessage()
                while !table.isAtEnd {
                    let entry = try table.readKey()
                    if entry.field == 1, entry.wireType == 2 {
                        context.strings.append(try table.readString())
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
        if let keyFilter { context.keptKeys = context.strings.map(keyFilter) }
        for var group in groups {
            while !group.isAtEnd {
                let key = try group.readKey()
                switch (key.field, key.wireType) {
                case (1, 2): try body(.node(try decodeNode(try group.readMessage(), context)))
                case (2, 2): try decodeDense(try group.readMessage(), context, body)
                case (3, 2): try body(.way(try decodeWay(try group.readMessage(), context)))
                case (4, 2): try body(.relation(try decodeRelation(try group.readMessage(), context)))
                default: try group.skip(wireType: key.wireType)
                }
            }
        }
    }

    private static func decodeNode(_ message: ProtobufCursor, _ context: Context) throws(ProtobufError) -> OSMNode {
        var cursor = message
        var id: Int64?, lat: Int64 = 0, lon: Int64 = 0
        var keys: [UInt64] = [], values: [UInt64] = []
        while !cursor.isAtEnd {
            let key = try cursor.readKey()
            switch (key.field, key.wireType) {
            case (1, 0): id = try cursor.readSignedVarint()
            case (2, _): try cursor.appendVarints(wireType: key.wireType, to: &keys)
            case (3, _): try cursor.appendVarints(wireType: key.wireType, to: &values)
            case (8, 0): lat = try cursor.readSignedVarint()
            case (9, 0): lon = try cursor.readSignedVarint()
            default: try cursor.skip(wireType: key.wireType)
            }
        }
        guard let id else { throw ProtobufError("node without id") }
        return OSMNode(id: id, latitude: context.latitude(lat), longitude: context.longitude(lon),
                       tags: try context.tags(keys: keys, values: values))
    }

    private static func decodeDense(_ message: ProtobufCursor, _ context: Context, _ body: (OSMElement) throws -> Void) throws {
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
        var tagPosition = 0
        for i in ids.indices {
            var tags: [String: String] = [:]
            if !keysVals.isEmpty {
                // Each node's pairs end with a 0; a block whose nodes have no tags may omit keys_vals entirely.
                while true {
                    guard tagPosition < keysVals.count else { throw ProtobufError("dense keys_vals ends before node \(ids[i])") }
                    let keyIndex = keysVals[tagPosition]
                    tagPosition += 1
                    if keyIndex == 0 { break }
                    guard tagPosition < keysVals.count else { throw ProtobufError("dense keys_vals ends inside a tag") }
                    let valueIndex = keysVals[tagPosition]
                    if try context.keeps(key: keyIndex, value: valueIndex) {
                        tags[try context.string(keyIndex)] = try context.string(valueIndex)
                    }
                    tagPosition += 1
                }
            }
            try body(.node(OSMNode(id: ids[i], latitude: context.latitude(lats[i]),
                                   longitude: context.longitude(lons[i]), tags: tags)))
        }
    }

    private static func decodeWay(_ message: ProtobufCursor, _ context: Context) throws(ProtobufError) -> OSMWay {
        var cursor = message
        var id: Int64?
        var keys: [UInt64] = [], values: [UInt64] = []
        var refs: [Int64] = []
        while !cursor.isAtEnd {
            let key = try cursor.readKey()
            switch (key.field, key.wireType) {
            case (1, 0): id = Int64(bitPattern: try cursor.readVarint())
            case (2, _): try cursor.appendVarints(wireType: key.wireType, to: &keys)
            case (3, _): try cursor.appendVarints(wireType: key.wireType, to: &values)
            case (8, _): try cursor.appendDeltaCodedSigned(wireType: key.wireType, to: &refs)
            default: try cursor.skip(wireType: key.wireType)
            }
        }
        guard let id else { throw ProtobufError("way without id") }
        return OSMWay(id: id, nodeRefs: refs, tags: try context.tags(keys: keys, values: values))
    }

    private static func decodeRelation(_ message: ProtobufCursor, _ context: Context) throws(ProtobufError) -> OSMRelation {
        var cursor = message
        var id: Int64?
        var keys: [UInt64] = [], values: [UInt64] = []
        var roles: [UInt64] = [], memberIDs: [Int64] = [], types: [UInt64] = []
        while !cursor.isAtEnd {
            let key = try cursor.readKey()
            switch (key.field, key.wireType) {
            case (1, 0): id = Int64(bitPattern: try cursor.readVarint())
            case (2, _): try cursor.appendVarints(wireType: key.wireType, to: &keys)
            case (3, _): try cursor.appendVarints(wireType: key.wireType, to: &values)
            case (8, _): try cursor.appendVarints(wireType: key.wireType, to: &roles)
            case (9, _): try cursor.appendDeltaCodedSigned(wireType: key.wireType, to: &memberIDs)
            case (10, _): try cursor.appendVarints(wireType: key.wireType, to: &types)
            default: try cursor.skip(wireType: key.wireType)
            }
        }
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
        return OSMRelation(id: id, members: members, tags: try context.tags(keys: keys, values: values))
    }
}
