import Foundation

/// Starts child processes one at a time across the test process. One full `swift test` crashed inside Foundation's
/// `Process.run()` (a bad read in `memcpy`, while other tests' threads were starting processes of their own and about
/// 1,400 descriptors were open); starting them one at a time takes any race between two launches out of the picture.
/// Only the launch is serialized: the children run, and are waited for, in parallel.
public enum ProcessLaunch {
    private static let lock = NSLock()

    public static func run(_ process: Process) throws {
        try lock.withLock { try process.run() }
    }
}
