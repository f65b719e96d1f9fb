import Logging
import Synchronization

/// Keeps what a server logs, for tests that check what an operator would read in the log.
final class LogCapture: Sendable {
    private let events = Mutex<[(level: Logger.Level, message: String)]>([])

    /// A logger writing here, at `level` and above.
    func logger(label: String = "places.serve.test", level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    /// The messages logged at exactly `level`, in order.
    func messages(at level: Logger.Level) -> [String] {
        events.withLock { $0.filter { $0.level == level }.map(\.message) }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let message = event.message.description
            capture.events.withLock { $0.append((event.level, message)) }
        }
    }
}
