import NIOCore

/// The bytes one connection has received but not yet parsed.
///
/// A large request grows the storage to its size; once it is parsed, only the unparsed tail is kept,
/// copied into storage of ordinary size, so an idle connection does not go on holding the
/// megabytes its biggest request needed (the storage itself is freed when the request's arguments,
/// which are slices of it, are done with).
struct ReceiveBuffer {
    /// Storage kept as it is up to this capacity; beyond it, a small tail is moved to a fresh buffer.
    static let retainedCapacity = 64 * 1024
    /// Parsed bytes at the front are dropped before appending once there are more than this.
    static let discardThreshold = 16 * 1024

    private var bytes: ByteBuffer?

    /// The storage currently held, in bytes (0 when nothing is buffered).
    var capacity: Int { bytes?.capacity ?? 0 }
    var readableBytes: Int { bytes?.readableBytes ?? 0 }

    mutating func append(_ incoming: ByteBuffer) {
        guard var held = bytes, held.readableBytes > 0 else {
            bytes = incoming
            return
        }
        bytes = nil  // one reference, so writing into it does not copy the storage
        // Keep only the unparsed tail, so a long stream of reads that end mid-request cannot grow the buffer.
        if held.readerIndex > Self.discardThreshold { held.discardReadBytes() }
        var incoming = incoming
        held.writeBuffer(&incoming)
        bytes = held
    }

    /// Hands the bytes to the parse loop; give back what is left with ``keep(_:)``.
    mutating func take() -> ByteBuffer? {
        defer { bytes = nil }
        return bytes
    }

    /// Stores the unparsed rest, in small storage when the rest is small but its storage is large.
    mutating func keep(_ rest: ByteBuffer) {
        guard rest.readableBytes > 0 else {
            bytes = nil
            return
        }
        if rest.capacity > Self.retainedCapacity && rest.readableBytes <= Self.retainedCapacity / 2 {
            var small = ByteBufferAllocator().buffer(capacity: max(rest.readableBytes, 1024))
            var rest = rest
            small.writeBuffer(&rest)
            bytes = small
        } else {
            bytes = rest
        }
    }
}
