/// A forward-only reader of the protobuf wire format over borrowed bytes.
///
/// Hand-written rather than generated because an `.osm.pbf` needs only a handful of messages and
/// the hot loops (packed delta-coded ids and coordinates) must not allocate. Every read is
/// bounds-checked and throws ``ProtobufError`` instead of trapping, so a corrupt file becomes an error
/// message, never a crash or an endless loop.
struct ProtobufCursor {
    let bytes: UnsafeRawBufferPointer
    private(set) var position: Int
    let end: Int

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        self.position = 0
        self.end = bytes.count
    }

    private init(bytes: UnsafeRawBufferPointer, position: Int, end: Int) {
        self.bytes = bytes
        self.position = position
        self.end = end
    }

    var isAtEnd: Bool { position >= end }

    mutating func readVarint() throws(ProtobufError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw ProtobufError("varint runs past the end of its message") }
            let byte = bytes[position]
            position += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            guard shift < 64 else { throw ProtobufError("varint longer than 10 bytes") }
        }
    }

    @inline(__always)
    mutating func readSignedVarint() throws(ProtobufError) -> Int64 {
        let raw = try readVarint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// The next field's number and wire type.
    mutating func readKey() throws(ProtobufError) -> (field: Int, wireType: Int) {
        let key = try readVarint()
        let field = Int(truncatingIfNeeded: key >> 3)
        guard field > 0 else { throw ProtobufError("field number 0") }
        return (field, Int(key & 7))
    }

    /// A length-delimited field as a sub-cursor over the same bytes.
    mutating func readMessage() throws(ProtobufError) -> ProtobufCursor {
        let length = try readVarint()
        guard length <= UInt64(end - position) else {
            throw ProtobufError("length-delimited field of \(length) bytes runs past the end of its message")
        }
        let sub = ProtobufCursor(bytes: bytes, position: position, end: position + Int(length))
        position += Int(length)
        return sub
    }

    mutating func readBytes() throws(ProtobufError) -> UnsafeRawBufferPointer {
        let sub = try readMessage()
        return UnsafeRawBufferPointer(rebasing: bytes[sub.position..<sub.end])
    }

    mutating func readString() throws(ProtobufError) -> String {
        String(decoding: try readBytes(), as: UTF8.self)
    }

    mutating func skip(wireType: Int) throws(ProtobufError) {
        switch wireType {
        case 0: _ = try readVarint()
        case 1: try advance(8)
        case 2: _ = try readMessage()
        case 5: try advance(4)
        default: throw ProtobufError("unsupported wire type \(wireType)")
        }
    }

    private mutating func advance(_ count: Int) throws(ProtobufError) {
        guard count <= end - position else { throw ProtobufError("fixed-width field runs past the end of its message") }
        position += count
    }

    /// Calls `body` for each varint of a repeated scalar field, packed (wire type 2) or not (wire type 0).
    @inline(__always)
    mutating func forEachVarint(wireType: Int, _ body: (UInt64) throws(ProtobufError) -> Void) throws(ProtobufError) {
        if wireType == 0 {
            try body(try readVarint())
            return
        }
        guard wireType == 2 else { throw ProtobufError("repeated integer field with wire type \(wireType)") }
        var packed = try readMessage()
        while !packed.isAtEnd { try body(try packed.readVarint()) }
    }

    /// Decodes a packed (or single) repeated integer field into `values`.
    mutating func appendVarints(wireType: Int, to values: inout [UInt64]) throws(ProtobufError) {
        guard wireType == 2 else { return try forEachVarint(wireType: wireType) { values.append($0) } }
        var packed = try readMessage()
        packed.reserveRoom(in: &values)
        while !packed.isAtEnd { values.append(try packed.readVarint()) }
    }

    /// Decodes a packed `sint64` field whose values are deltas, appending the running sums.
    mutating func appendDeltaCodedSigned(wireType: Int, to values: inout [Int64]) throws(ProtobufError) {
        var running: Int64 = 0
        func append(_ raw: UInt64) {
            running &+= Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
            values.append(running)
        }
        guard wireType == 2 else { return try forEachVarint(wireType: wireType, append) }
        var packed = try readMessage()
        packed.reserveRoom(in: &values)
        while !packed.isAtEnd { append(try packed.readVarint()) }
    }

    /// Reserves room in an empty `values` for every varint left in this packed field (each ends with a byte
    /// below 0x80), so decoding it allocates the array once: grown by doubling, the arrays of a block's node
    /// ids, way refs and tags were reallocated and copied ~10 times each, a tenth of the decoding threads'
    /// time in `malloc`. An array that holds values already (a field split in several packed runs, which only
    /// an odd writer makes) grows as usual: reserving for each run would copy the array once per run.
    private func reserveRoom<Value>(in values: inout [Value]) {
        guard values.isEmpty, position < end, let base = bytes.baseAddress else { return }
        var count = 0
        var offset = position
        // Eight bytes at a time: the bytes whose top bit is clear, counted in one word.
        while end - offset >= 8 {
            count += (~base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080).nonzeroBitCount
            offset += 8
        }
        while offset < end {
            if base.load(fromByteOffset: offset, as: UInt8.self) < 0x80 { count += 1 }
            offset += 1
        }
        values.reserveCapacity(count)
    }
}

/// What broke inside a protobuf message; the PBF reader adds the file name and offset.
struct ProtobufError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
