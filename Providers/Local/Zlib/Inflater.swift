import CSystemZlib

/// zlib's inflate over in-memory input, in the three framings places meets: zlib (PBF blobs),
/// gzip (`.txt.gz`) and raw deflate (`.zip` entries).
enum Inflater {
    enum Framing {
        case zlib, gzip, rawDeflate

        var windowBits: Int32 {
            switch self {
            case .zlib: 15
            case .gzip: 16 + 15
            case .rawDeflate: -15
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Inflates a whole buffer whose uncompressed size is known (a PBF blob's `raw_size`), in one call straight
    /// into the array returned: no zero-filled array, no copy from a chunk (and zlib needs no window of its own).
    static func inflate(_ input: UnsafeRawBufferPointer, framing: Framing, expectedSize: Int) throws -> [UInt8] {
        guard expectedSize >= 0, expectedSize <= 64 << 20 else {
            throw Failure(description: "implausible uncompressed size \(expectedSize)")
        }
        guard let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count > 0 else {
            throw Failure(description: "compressed data is empty")
        }
        // zlib counts input in UInt32 (a PBF blob is at most 64 MB).
        guard input.count <= Int(UInt32.max >> 1) else { throw Failure(description: "\(input.count) bytes of compressed data in one piece") }
        var stream = z_stream()
        guard inflateInit2_(&stream, framing.windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(description: "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var status: Int32 = Z_OK
        // One byte more than declared: data that inflates to more fills it instead of stopping exactly at the end.
        let room = expectedSize + 1
        let output = [UInt8](unsafeUninitializedCapacity: room) { buffer, initialized in
            stream.next_in = UnsafeMutablePointer(mutating: base)
            stream.avail_in = UInt32(input.count)
            stream.next_out = buffer.baseAddress
            stream.avail_out = UInt32(room)
            status = CSystemZlib.inflate(&stream, Z_FINISH)
            initialized = room - Int(stream.avail_out)
        }
        switch status {
        case Z_STREAM_END:
            guard output.count <= expectedSize else {
                throw Failure(description: "inflates to more than the declared \(expectedSize) bytes")
            }
            guard output.count == expectedSize else {
                throw Failure(description: "inflates to \(output.count) bytes, not the declared \(expectedSize)")
            }
            return output
        case Z_OK, Z_BUF_ERROR:
            if stream.avail_out == 0 { throw Failure(description: "inflates to more than the declared \(expectedSize) bytes") }
            throw Failure(description: "compressed data ends early (truncated?)")
        default:
            throw failure(status, stream)
        }
    }

    /// What zlib's `status` means when it is neither progress nor the end: corrupt data, no memory, or another error.
    private static func failure(_ status: Int32, _ stream: z_stream) -> Failure {
        switch status {
        case Z_DATA_ERROR:
            let message = stream.msg.map { String(cString: $0) } ?? "invalid data"
            return Failure(description: "corrupt compressed data (\(message))")
        case Z_MEM_ERROR:
            return Failure(description: "zlib ran out of memory")
        default:
            return Failure(description: "zlib error \(status)")
        }
    }

    /// Streams the inflated bytes to `sink` in chunks. With `stopAtStreamEnd` false, concatenated
    /// gzip members (what `cat a.gz b.gz` makes) are read one after another.
    /// `sink` also receives how many input bytes are consumed so far (for progress bars); errors it
    /// throws end the inflation and propagate.
    /// - Returns: how many input bytes were consumed.
    @discardableResult
    static func run(
        _ input: UnsafeRawBufferPointer, framing: Framing, stopAtStreamEnd: Bool,
        sink: (UnsafeRawBufferPointer, Int) throws -> Void
    ) throws -> Int {
        var stream = z_stream()
        guard inflateInit2_(&stream, framing.windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(description: "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        let chunkSize = 256 << 10
        let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: chunkSize)
        defer { chunk.deallocate() }
        guard let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count > 0 else {
            throw Failure(description: "compressed data is empty")
        }
        var consumed = 0
        stream.next_in = UnsafeMutablePointer(mutating: base)
        // zlib counts input in UInt32; feed huge inputs in slices.
        func refill() {
            let remaining = input.count - consumed
            let slice = min(remaining, Int(UInt32.max >> 1))
            stream.next_in = UnsafeMutablePointer(mutating: base + consumed)
            stream.avail_in = UInt32(slice)
        }
        refill()
        while true {
            stream.next_out = chunk
            stream.avail_out = UInt32(chunkSize)
            let before = stream.avail_in
            let status = CSystemZlib.inflate(&stream, Z_NO_FLUSH)
            consumed += Int(before - stream.avail_in)
            let produced = chunkSize - Int(stream.avail_out)
            if produced > 0 { try sink(UnsafeRawBufferPointer(start: chunk, count: produced), consumed) }
            switch status {
            case Z_OK:
                if stream.avail_in == 0 {
                    if consumed >= input.count {
                        if produced == 0 { throw Failure(description: "compressed data ends early (truncated?)") }
                    } else {
                        refill()
                    }
                }
            case Z_STREAM_END:
                if stopAtStreamEnd || consumed >= input.count { return consumed }
                // Another gzip member follows, unless the rest is padding.
                if input[consumed...].allSatisfy({ $0 == 0 }) { return input.count }
                guard inflateReset(&stream) == Z_OK else { throw Failure(description: "zlib could not restart") }
                refill()
            case Z_BUF_ERROR:
                if stream.avail_in == 0, consumed >= input.count {
                    throw Failure(description: "compressed data ends early (truncated?)")
                }
                if produced == 0 { throw Failure(description: "zlib made no progress") }
            default:
                throw failure(status, stream)
            }
        }
    }
}
