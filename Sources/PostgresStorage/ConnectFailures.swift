import Logging
import Synchronization

/// The pools' failed attempts to open a connection, as their background log reports them.
///
/// postgres-nio's pool retries a failed attempt with a backoff and keeps the requests that wait for a connection
/// until they give up, so a server that refuses connections (not running, a wrong port, a wrong password) was known
/// only as "no answer within 5 s", five seconds later. A request that waits for a connection learns of each failed
/// attempt here and asks the server itself why (``SharedDatabase/whyConnectionsFail()``).
final class ConnectFailures: Sendable {
    private struct State {
        var count = 0
        var lastAttemptFailed = false
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var lastWaiter = 0
    }

    private let state = Mutex(State())

    /// How many attempts have failed so far.
    var count: Int { state.withLock { $0.count } }

    /// Whether an attempt has failed since a request last had a connection: a request that starts then asks at once.
    var lastAttemptFailed: Bool { state.withLock { $0.lastAttemptFailed } }

    /// A request has a connection (the pools log a connection opened only below the level watched).
    func connected() {
        state.withLock { $0.lastAttemptFailed = false }
    }

    func record() {
        let woken = state.withLock { state in
            state.count += 1
            state.lastAttemptFailed = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns once more than `seen` attempts have failed (at once if they already have), or when the task is cancelled.
    func failure(after seen: Int) async {
        let id = state.withLock { state in
            state.lastWaiter += 1
            return state.lastWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if state.count > seen || Task.isCancelled { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
        }
    }

    /// `logger` for a pool's background log, with every failed attempt to open a connection recorded here. What
    /// `logger` shows is unchanged: messages below its level are not passed on.
    func watching(_ logger: Logger) -> Logger {
        var watched = logger
        watched.handler = Handler(forward: logger.handler, failures: self)
        watched.logLevel = min(logger.logLevel, Handler.attemptFailedLevel)
        return watched
    }

    private struct Handler: LogHandler {
        /// postgres-nio's words and level for a failed attempt (`PostgresClientMetrics.connectFailed`).
        static let attemptFailed = "Connection creation failed"
        static let attemptFailedLevel = Logger.Level.info

        var forward: any LogHandler
        let failures: ConnectFailures
        var logLevel: Logger.Level = attemptFailedLevel

        var metadata: Logger.Metadata {
            get { forward.metadata }
            set { forward.metadata = newValue }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { forward[metadataKey: key] }
            set { forward[metadataKey: key] = newValue }
        }

        func log(event: LogEvent) {
            if event.message.description == Self.attemptFailed { failures.record() }
            if event.level >= forward.logLevel { forward.log(event: event) }
        }
    }
}
