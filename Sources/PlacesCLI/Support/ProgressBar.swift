import Foundation

/// A one-line progress bar on stderr with percentage and ETA. Drawn only when stderr is a terminal or the user
/// asked for it (`--progress`), so logs and pipes never fill with carriage returns, and never on stdout.
///
/// Each redraw is padded with spaces to the longest line drawn so far, so a shorter line ("99%  ETA 0s" after
/// "12%  ETA 1m05s") leaves no characters of the last one behind, on any terminal (no escape codes needed); `finish()`
/// blanks the whole line. At 100 % the bar says what still runs (`finishing`: "building the name index…") instead
/// of sitting at 100 % while the slow last step goes on.
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let finishing: String?
    private let started = Date()
    private let lock = NSLock()
    private var lastDrawn = Date.distantPast
    private var widest = 0
    private var finishingShown = false

    init(label: String, finishing: String? = nil) {
        self.label = label
        self.finishing = finishing
    }

    /// A bar when stderr is a terminal or `forced` (`--progress`), else nil: callers write `bar?.update(…)`.
    static func ifWanted(label: String, finishing: String? = nil, forced: Bool = false) -> ProgressBar? {
        forced || isTerminal(.standardError) ? ProgressBar(label: label, finishing: finishing) : nil
    }

    func update(done: Int64, total: Int64) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        let complete = total > 0 && done >= total
        guard !finishingShown, now.timeIntervalSince(lastDrawn) >= 0.1 || complete else { return }
        lastDrawn = now
        if complete, let finishing {
            finishingShown = true
            draw("\(label) \(finishing)")
            return
        }
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let elapsed = now.timeIntervalSince(started)
        let eta = fraction > 0.01 ? elapsed / fraction - elapsed : 0
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        draw(String(format: "%@ [%@] %3.0f%%  ETA %@", label, bar, fraction * 100, Self.format(eta)))
    }

    /// Blanks the line the bar used and returns the cursor to its start, so the next message starts clean.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        guard widest > 0 else { return }
        FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: widest) + "\r").utf8))
        widest = 0
    }

    private func draw(_ line: String) {
        let padding = String(repeating: " ", count: max(0, widest - line.count))
        widest = max(widest, line.count)
        FileHandle.standardError.write(Data(("\r" + line + padding).utf8))
    }

    private static func format(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 60 ? "\(s / 60)m\(String(format: "%02d", s % 60))s" : "\(s)s"
    }
}
