import NIOCore

/// How much a client may send in one request. The defaults are a lookup service's needs, far below
/// Redis's (512 MB bulks, a 1 GB query buffer), so a hostile or broken client cannot make the server
/// allocate much.
///
/// No command of this server needs a large argument: names, queries, ids and coordinates are short,
/// a `SPOT.ADD` note or a `SCORE` JSON record is a few hundred bytes. 64 KiB per argument leaves room
/// for a long note. `PING` and `ECHO` alone take up to 1 MiB: their argument is an opaque marker that
/// clients echo back (`redis-cli --pipe`), and `redis-cli -x ECHO` is how people check the limit.
public struct RESPLimits: Sendable, Equatable {
    /// An inline request (or a `*`/`$` header line) longer than this without a newline is refused.
    public var maxInlineLength: Int
    /// The largest single argument of a multibulk request, for every command but the payload commands.
    public var maxBulkLength: Int
    /// The largest argument of ``payloadCommands`` (`PING`, `ECHO`).
    public var maxPayloadBulkLength: Int
    /// Commands whose argument is opaque bytes sent back unchanged, allowed ``maxPayloadBulkLength``.
    public var payloadCommands: [String]
    /// The most bytes one request may declare, all its arguments together: the per-client query-buffer
    /// limit. What one connection holds is at most this plus one read's worth of pipelined requests.
    public var maxRequestLength: Int
    /// The most arguments in one multibulk request.
    public var maxArguments: Int
    /// Before `AUTH` succeeds, requests are held to these much smaller limits.
    public var maxArgumentsBeforeAuth: Int
    public var maxBulkLengthBeforeAuth: Int

    public init(maxInlineLength: Int = 64 * 1024, maxBulkLength: Int = 64 * 1024,
                maxPayloadBulkLength: Int = 1024 * 1024, payloadCommands: [String] = ["PING", "ECHO"],
                maxRequestLength: Int = 2 * 1024 * 1024, maxArguments: Int = 1024,
                maxArgumentsBeforeAuth: Int = 10, maxBulkLengthBeforeAuth: Int = 16 * 1024) {
        self.maxInlineLength = maxInlineLength
        self.maxBulkLength = maxBulkLength
        self.maxPayloadBulkLength = maxPayloadBulkLength
        self.payloadCommands = payloadCommands
        self.maxRequestLength = maxRequestLength
        self.maxArguments = maxArguments
        self.maxArgumentsBeforeAuth = maxArgumentsBeforeAuth
        self.maxBulkLengthBeforeAuth = maxBulkLengthBeforeAuth
    }

    /// The largest argument a request starting with `command` may carry.
    func maxBulkLength(forCommand command: ByteBuffer) -> Int {
        let isPayloadCommand = payloadCommands.contains { name in
            name.utf8.count == command.readableBytes
                && command.readableBytesView.elementsEqual(name.utf8) { $0 & 0xDF == $1 & 0xDF }
        }
        return isPayloadCommand ? max(maxBulkLength, maxPayloadBulkLength) : maxBulkLength
    }
}
