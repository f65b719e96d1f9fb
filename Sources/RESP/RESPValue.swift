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
    /// RESP3 `%`: alternating keys and values. Sent only as the answer to `HELLO 3`; every other reply
    /// keeps its RESP2 form, which RESP3 clients read unchanged (RESP3 is a superset of RESP2's frames).
    case map([RESPValue])

    public static let ok = RESPValue.simpleString("OK")

    public static func bulk(_ text: String) -> RESPValue { .bulkString(ByteBuffer(string: text)) }

    /// Writes the wire form. Simple strings and errors cannot carry line breaks, so any are replaced by
    /// spaces rather than letting a message break the framing.
    /// - Parameter resp3: after `HELLO 3`, a miss is RESP3's `_` (RESP3 parsers such as redis-py's do not
    ///   read `$-1`); every other frame is the same in both protocols.
    public func encode(into buffer: inout ByteBuffer, resp3: Bool = false) {
        switch self {
        case .simpleString(let text):
            buffer.writeInteger(UInt8(ascii: "+"))
            Self.writeLine(text, into: &buffer)
        case .error(let text):
            buffer.writeInteger(UInt8(ascii: "-"))
            Self.writeLine(text, into: &buffer)
        case .integer(let value):
            buffer.writeInteger(UInt8(ascii: ":"))
            Self.writeDecimal(value, into: &buffer)
            buffer.writeStaticString("\r\n")
        case .bulkString(let bytes):
            buffer.writeInteger(UInt8(ascii: "$"))
            Self.writeDecimal(bytes.readableBytes, into: &buffer)
            buffer.writeStaticString("\r\n")
            buffer.writeImmutableBuffer(bytes)
            buffer.writeStaticString("\r\n")
        case .null:
            if resp3 { buffer.writeStaticString("_\r\n") } else { buffer.writeStaticString("$-1\r\n") }
        case .array(let elements):
            buffer.writeInteger(UInt8(ascii: "*"))
            Self.writeDecimal(elements.count, into: &buffer)
            buffer.writeStaticString("\r\n")
            for element in elements { element.encode(into: &buffer, resp3: resp3) }
        case .map(let keysAndValues):
            buffer.writeInteger(UInt8(ascii: "%"))
            Self.writeDecimal(keysAndValues.count / 2, into: &buffer)
            buffer.writeStaticString("\r\n")
            for element in keysAndValues { element.encode(into: &buffer, resp3: resp3) }
        }
    }

    public var encoded: ByteBuffer {
        var buffer = ByteBuffer()
        encode(into: &buffer)
        return buffer
    }

    /// Every reply has a length to write; formatting it through `String` showed up in profiles.
    private static func writeDecimal(_ value: Int, into buffer: inout ByteBuffer) {
        if value < 0 { buffer.writeInteger(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes hold any Int's 20 digits
        let firstDigit = withUnsafeMutableBytes(of: &digits) { scratch in
            var start = scratch.count
            repeat {
                start -= 1
                scratch[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            return start
        }
        _ = withUnsafeBytes(of: &digits) { buffer.writeBytes(UnsafeRawBufferPointer(rebasing: $0[firstDigit...])) }
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
