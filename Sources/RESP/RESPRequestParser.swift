import NIOCore

/// Turns a byte stream into requests, one at a time, without sockets: feed it whatever bytes have
/// arrived and it returns a request once one is complete, keeping what it has parsed of a partial one.
///
/// Two framings share a stream, as in Redis: a request starting with `*` is a multibulk array
/// (`*<n>\r\n` then n × `$<len>\r\n<bytes>\r\n`); anything else is one inline line split by
/// ``InlineTokenizer``. A declared count is never trusted: arguments are collected one at a time
/// and storage grows with what actually arrived.
public struct RESPRequestParser: Sendable {
    public var limits: RESPLimits
    /// Switches between the before-auth limits and the normal ones; the connection sets it after `AUTH`.
    public var isAuthenticated: Bool

    private enum State: Sendable {
        case idle
        case multibulk(expected: Int, arguments: [ByteBuffer])
        case bulk(length: Int, expected: Int, arguments: [ByteBuffer])
    }

    private var state: State = .idle
    /// Bytes the request in progress has declared so far (its bulk lengths), for the query-buffer limit.
    public private(set) var pendingRequestBytes = 0
    /// The largest argument the request in progress may carry, set once its command name is known.
    private var bulkLimit = 0

    public init(limits: RESPLimits = RESPLimits(), isAuthenticated: Bool = true) {
        self.limits = limits
        self.isAuthenticated = isAuthenticated
    }

    /// Whether part of a request has been consumed and the rest is awaited.
    public var isMidRequest: Bool {
        if case .idle = state { return false }
        return true
    }

    /// Consumes the bytes of at most one request from `buffer`.
    /// - Returns: the request, or `nil` when more bytes are needed (everything usable has been consumed).
    /// - Throws: a protocol error; the stream is then unusable and the connection should close.
    public mutating func next(_ buffer: inout ByteBuffer) throws(RESPProtocolError) -> RESPRequest? {
        while true {
            switch state {
            case .idle:
                guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return nil }
                if first == UInt8(ascii: "*") {
                    guard let count = try readHeader(&buffer, tooLong: .tooBigMultibulkCount) else { return nil }
                    guard let count, count <= limits.maxArguments else { throw .invalidMultibulkLength }
                    if !isAuthenticated && count > limits.maxArgumentsBeforeAuth { throw .unauthenticatedMultibulkLength }
                    if count <= 0 { continue }  // `*0` and `*-1` are empty requests; Redis ignores them.
                    var arguments: [ByteBuffer] = []
                    arguments.reserveCapacity(min(count, 16))
                    pendingRequestBytes = 0
                    bulkLimit = limits.maxBulkLength
                    state = .multibulk(expected: count, arguments: arguments)
                } else {
                    guard let line = try readLine(&buffer) else { return nil }
                    let tokens = try InlineTokenizer.split(line)
                    if tokens.isEmpty { continue }  // blank lines (a bare Enter over nc) are skipped
                    let cap = isAuthenticated ? limits.maxArguments : limits.maxArgumentsBeforeAuth
                    if tokens.count > cap {
                        throw isAuthenticated ? .invalidMultibulkLength : .unauthenticatedMultibulkLength
                    }
                    return RESPRequest(arguments: tokens.map { ByteBuffer(bytes: $0) }, isInline: true)
                }

            case .multibulk(let expected, let arguments):
                if arguments.count == expected {
                    state = .idle
                    pendingRequestBytes = 0
                    return RESPRequest(arguments: arguments)
                }
                guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return nil }
                guard first == UInt8(ascii: "$") else { throw .expectedDollar(got: first) }
                guard let length = try readHeader(&buffer, tooLong: .tooBigBulkCount) else { return nil }
                guard let length, length >= 0, length <= bulkLimit else { throw .invalidBulkLength }
                if !isAuthenticated && length > limits.maxBulkLengthBeforeAuth { throw .unauthenticatedBulkLength }
                if pendingRequestBytes + length > limits.maxRequestLength { throw .requestTooLarge(limit: limits.maxRequestLength) }
                pendingRequestBytes += length
                state = .bulk(length: length, expected: expected, arguments: arguments)

            case .bulk(let length, let expected, var arguments):
                guard buffer.readableBytes >= length + 2 else { return nil }
                let end = buffer.readerIndex + length
                guard buffer.getInteger(at: end, as: UInt8.self) == UInt8(ascii: "\r"),
                      buffer.getInteger(at: end + 1, as: UInt8.self) == UInt8(ascii: "\n")
                else { throw .missingBulkTerminator }
                state = .idle  // drop the array's reference before appending, so it is not copied
                arguments.append(buffer.readSlice(length: length)!)
                buffer.moveReaderIndex(forwardBy: 2)
                if arguments.count == 1 { bulkLimit = limits.maxBulkLength(forCommand: arguments[0]) }
                state = .multibulk(expected: expected, arguments: arguments)
            }
        }
    }

    /// Reads a `*<n>\r\n` or `$<n>\r\n` line. Returns `nil` (outer) when the line is incomplete,
    /// `.some(nil)` when the number is malformed. Scans raw bytes: this runs for every argument.
    private func readHeader(_ buffer: inout ByteBuffer, tooLong: RESPProtocolError) throws(RESPProtocolError) -> Int?? {
        let maxLength = limits.maxInlineLength
        let scanned: (consumed: Int, value: Int?)?? = buffer.withUnsafeReadableBytes { bytes in
            guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
                return bytes.count > maxLength ? .some(nil) : nil
            }
            guard newline <= maxLength else { return .some(nil) }
            let lineEnd = newline > 0 && bytes[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
            let digits = UnsafeRawBufferPointer(rebasing: bytes[min(1, lineEnd)..<lineEnd])
            return (newline + 1, Self.parseInteger(digits))
        }
        guard let scanned else { return nil }
        guard let (consumed, value) = scanned else { throw tooLong }
        buffer.moveReaderIndex(forwardBy: consumed)
        return .some(value)
    }

    /// Reads one inline line without its `\r\n` or `\n`.
    private func readLine(_ buffer: inout ByteBuffer) throws(RESPProtocolError) -> ByteBufferView? {
        let view = buffer.readableBytesView
        guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if view.count > limits.maxInlineLength { throw .tooBigInline }
            return nil
        }
        guard newline - view.startIndex <= limits.maxInlineLength else { throw .tooBigInline }
        let lineEnd = newline > view.startIndex && view[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
        let line = view[view.startIndex..<lineEnd]
        buffer.moveReaderIndex(forwardBy: newline - view.startIndex + 1)
        return line
    }

    /// Strict decimal: an optional `-`, then 1…18 digits, nothing else (no `+`, no spaces).
    static func parseInteger<C: Collection>(_ bytes: C) -> Int? where C.Element == UInt8 {
        var value = 0
        var negative = false
        var digits = 0
        for (offset, byte) in bytes.enumerated() {
            if offset == 0 && byte == UInt8(ascii: "-") { negative = true; continue }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 18 else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
        }
        return digits == 0 ? nil : (negative ? -value : value)
    }
}
