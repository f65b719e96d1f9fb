import Foundation
import NIOCore

/// A RESP2 reply. JSON payloads travel as bulk strings, so any Redis client hands them over untouched.
public enum RESPValue: Equatable, Sendable {
    case simpleString(String)
    /// The full error text without the leading `-`, starting with a code such as `ERR` or `NOAUTH`.
    case error(String)
    case integer(Int)
    case bulkString(ByteBuffer)
    /// `$-1`: how a miss is reported, so clients and `redis-benchmark` treat it as "no value", not a failure.
    case null
    case array([RESPValue])

    public static let ok = RESPValue.simpleString("OK")

    public static func bulk(_ text: String) -> RESPValue { .bulkString(ByteBuffer(string: text)) }
    public static func bulk(_ data: Data) -> RESPValue { .bulkString(ByteBuffer(bytes: data)) }

    /// Writes the wire form. Simple strings and errors cannot carry line breaks, so any are replaced by
    /// spaces rather than letting a message break the framing.
    public func encode(into buffer: inout ByteBuffer) {
        switch self {
        case .simpleString(let text):
            buffer.writeInteger(UInt8(ascii: "+"))
            Self.writeLine(text, into: &buffer)
        case .error(let text):
            buffer.writeInteger(UInt8(ascii: "-"))
            Self.writeLine(text, into: &buffer)
        case .integer(let value):
            buffer.writeInteger(UInt8(ascii: ":"))
            buffer.writeString(String(value))
            buffer.writeStaticString("\r\n")
        case .bulkString(let bytes):
            buffer.writeInteger(UInt8(ascii: "$"))
            buffer.writeString(String(bytes.readableBytes))
            buffer.writeStaticString("\r\n")
            buffer.writeImmutableBuffer(bytes)
            buffer.writeStaticString("\r\n")
        case .null:
            buffer.writeStaticString("$-1\r\n")
        case .array(let elements):
            buffer.writeInteger(UInt8(ascii: "*"))
            buffer.writeString(String(elements.count))
            buffer.writeStaticString("\r\n")
            for element in elements { element.encode(into: &buffer) }
        }
    }

    public var encoded: ByteBuffer {
        var buffer = ByteBuffer()
        encode(into: &buffer)
        return buffer
    }

    private static func writeLine(_ text: String, into buffer: inout ByteBuffer) {
        if text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) {
            buffer.writeBytes(text.utf8.map { $0 == 0x0D || $0 == 0x0A ? 0x20 : $0 })
        } else {
            buffer.writeString(text)
        }
        buffer.writeStaticString("\r\n")
    }
}
