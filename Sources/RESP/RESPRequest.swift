import NIOCore

/// One client request: a command name and its arguments, as raw bytes (arguments may be binary).
public struct RESPRequest: Equatable, Sendable {
    public var arguments: [ByteBuffer]
    /// Inline requests are what a person types over `nc`; HTTP probes arrive this way too.
    public var isInline: Bool

    public init(arguments: [ByteBuffer], isInline: Bool = false) {
        self.arguments = arguments
        self.isInline = isInline
    }

    public init(_ strings: [String], isInline: Bool = false) {
        self.init(arguments: strings.map { ByteBuffer(string: $0) }, isInline: isInline)
    }

    /// The arguments as text; bytes that are not UTF-8 are repaired, which only matters for passwords,
    /// and those are compared as bytes.
    public var strings: [String] { arguments.map { String(buffer: $0) } }
}
