/// A request that breaks RESP framing or a limit. The connection answers with ``message`` as an
/// error reply and then closes, as Redis does: after a framing error nothing that follows on the
/// stream can be trusted.
public struct RESPProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The reply text without the leading `-`, e.g. `ERR Protocol error: too big inline request`.
    public let message: String

    public init(_ detail: String) { message = "ERR Protocol error: \(detail)" }

    public var description: String { message }

    public static let tooBigInline = RESPProtocolError("too big inline request")
    public static let tooBigMultibulkCount = RESPProtocolError("too big mbulk count string")
    public static let tooBigBulkCount = RESPProtocolError("too big bulk count string")
    public static let invalidMultibulkLength = RESPProtocolError("invalid multibulk length")
    public static let invalidBulkLength = RESPProtocolError("invalid bulk length")
    public static let unauthenticatedMultibulkLength = RESPProtocolError("unauthenticated multibulk length")
    public static let unauthenticatedBulkLength = RESPProtocolError("unauthenticated bulk length")
    public static let unbalancedQuotes = RESPProtocolError("unbalanced quotes in request")
    public static let missingBulkTerminator = RESPProtocolError("bulk string not terminated by CRLF")
    /// The request's arguments together exceed the per-client query-buffer limit.
    public static func requestTooLarge(limit: Int) -> RESPProtocolError {
        RESPProtocolError("request too large: its arguments exceed the query buffer limit of \(limit) bytes")
    }
    public static func expectedDollar(got byte: UInt8) -> RESPProtocolError {
        let hex = Array("0123456789abcdef")
        let shown = (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : "\\x\(hex[Int(byte >> 4)])\(hex[Int(byte & 0x0F)])"
        return RESPProtocolError("expected '$', got '\(shown)'")
    }
}
