import Foundation
import ScratchDirectory

/// A clock tests move by hand, so expiry and day/month windows are checked without sleeping.
public final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    public init(start: Date = Date(timeIntervalSince1970: 1_790_000_000)) { current = start }
    public var now: Date { lock.withLock { current } }
    public func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
    public func set(_ date: Date) { lock.withLock { current = date } }
}

/// A database path in a fresh temporary folder of its own, so tests running in parallel never share a file;
/// the folder is removed when the test process exits.
public func temporaryDatabase(_ name: String) -> URL {
    // Creating a directory in the temporary directory fails only when the disk does; no test can go on then.
    try! ScratchDirectory.lastingTheProcess("places-store-tests").appendingPathComponent(name)
}
