import Foundation

/// A one-line progress bar on stderr with percentage and ETA. Only drawn when stderr is a terminal,
/// so logs and pipes never fill with carriage returns.
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let started = Date()
    private let lock = NSLock()
    private var lastDrawn = Date.distantPast

    init(label: String) { self.label = label }

    func update(done: Int64, total: Int64) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(lastDrawn) >= 0.1 || done >= total else { return }
        lastDrawn = now
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let elapsed = now.timeIntervalSince(started)
        let eta = fraction > 0.01 ? elapsed / fraction - elapsed : 0
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        let line = String(format: "\r%@ [%@] %3.0f%%  ETA %@", label, bar, fraction * 100, Self.format(eta))
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    private static func format(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 60 ? "\(s / 60)m\(String(format: "%02d", s % 60))s" : "\(s)s"
    }
}
