/// How much a client may send in one request. The defaults are a lookup service's needs, far below
/// Redis's (512 MB bulks), so a hostile or broken client cannot make the server allocate much.
public struct RESPLimits: Sendable, Equatable {
    /// An inline request (or a `*`/`$` header line) longer than this without a newline is refused.
    public var maxInlineLength: Int
    /// The largest single argument of a multibulk request.
    public var maxBulkLength: Int
    /// The most arguments in one multibulk request.
    public var maxArguments: Int
    /// Before `AUTH` succeeds, requests are held to these much smaller limits.
    public var maxArgumentsBeforeAuth: Int
    public var maxBulkLengthBeforeAuth: Int

    public init(maxInlineLength: Int = 64 * 1024, maxBulkLength: Int = 1024 * 1024, maxArguments: Int = 1024,
                maxArgumentsBeforeAuth: Int = 10, maxBulkLengthBeforeAuth: Int = 16 * 1024) {
        self.maxInlineLength = maxInlineLength
        self.maxBulkLength = maxBulkLength
        self.maxArguments = maxArguments
        self.maxArgumentsBeforeAuth = maxArgumentsBeforeAuth
        self.maxBulkLengthBeforeAuth = maxBulkLengthBeforeAuth
    }
}
