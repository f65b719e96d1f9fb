import NIOCore

/// Where a complete multibulk request lies at the front of received bytes, found without parsing it into
/// arguments: a server looks a repeated request up by these bytes (its reply memo) before handing them to
/// ``RESPRequestParser``, which a request that is not found still goes through.
///
/// Only a request written plainly is located: `*<n>\r\n`, then `$<length>\r\n<bytes>\r\n` for each argument,
/// with 1…``maxArguments`` arguments, lengths of at most ``maxLength`` in decimal digits and nothing else on
/// the header lines. Anything else (an inline request, a request not yet complete, a header written another
/// way) gives `nil`, and the parser, with its limits and errors, decides what it is.
public struct RESPFrame: Sendable, Equatable {
    /// A range of bytes, counted from the frame's first byte.
    public struct Span: Sendable, Hashable {
        public var start: Int
        public var length: Int
        public var end: Int { start + length }

        public init(start: Int, length: Int) {
            self.start = start
            self.length = length
        }
    }

    /// The request's bytes, `*` to the last `\r\n`.
    public var length: Int
    /// The first argument, the command name.
    public var command: Span

    /// More arguments than this and the parser reads the request: the memo holds short queries.
    public static let maxArguments = 32
    /// A longer argument and the parser reads the request.
    public static let maxLength = 64 * 1024

    /// The complete plainly written request at the front of `buffer`'s readable bytes, if there is one.
    public static func atFront(of buffer: ByteBuffer) -> RESPFrame? {
        buffer.withUnsafeReadableBytes { bytes in
            var position = 0
            guard let count = header(in: bytes, marker: UInt8(ascii: "*"), at: &position),
                  (1...maxArguments).contains(count) else { return nil }
            var command = Span(start: 0, length: 0)
            for index in 0..<count {
                guard let length = header(in: bytes, marker: UInt8(ascii: "$"), at: &position),
                      length <= maxLength, bytes.count - position >= length + 2,
                      bytes[position + length] == UInt8(ascii: "\r"), bytes[position + length + 1] == UInt8(ascii: "\n")
                else { return nil }
                if index == 0 { command = Span(start: position, length: length) }
                position += length + 2
            }
            return RESPFrame(length: position, command: command)
        }
    }

    /// Reads `<marker><digits>\r\n` at `position` and moves past it; `nil` for anything else or when incomplete.
    private static func header(in bytes: UnsafeRawBufferPointer, marker: UInt8, at position: inout Int) -> Int? {
        guard position < bytes.count, bytes[position] == marker else { return nil }
        var index = position + 1
        var value = 0
        // Six digits hold maxLength and maxArguments; a longer number is not a plain request's.
        while index < bytes.count, index - position <= 7, bytes[index] &- UInt8(ascii: "0") < 10 {
            value = value * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
            index += 1
        }
        // Written as a server writes it: no leading zero (`$07` is read by the parser, and never found in a memo).
        guard index > position + 1, index == position + 2 || bytes[position + 1] != UInt8(ascii: "0"),
              index + 1 < bytes.count,
              bytes[index] == UInt8(ascii: "\r"), bytes[index + 1] == UInt8(ascii: "\n") else { return nil }
        position = index + 2
        return value
    }
}
