import Foundation

/// A directory of a test's own under the system's temporary directory, removed with everything in it when
/// the last reference to it goes.
///
/// Why: a test home holds a local index built from the bundled data (about 18 MB), and a full suite makes a
/// few hundred of them. Left behind, they filled a CI machine's disk in the middle of a run, and every
/// later test failed with "No space left on device". Tests now leave nothing in the temporary directory.
public final class ScratchDirectory: Sendable {
    public let url: URL

    /// Makes `<tmp>/<prefix>-<uuid>`, empty.
    public init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside this directory.
    public func appendingPathComponent(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A fresh directory that lives as long as the test process, for values a static holds (a static is never
    /// released, so its directory is removed when the process exits instead).
    public static func lastingTheProcess(_ prefix: String) throws -> ScratchDirectory {
        let directory = try ScratchDirectory(prefix)
        ProcessScratch.keep(directory)
        return directory
    }
}

/// The directories kept until exit, removed by an `atexit` handler.
private enum ProcessScratch {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var kept: [ScratchDirectory] = []
    nonisolated(unsafe) private static var registered = false

    static func keep(_ directory: ScratchDirectory) {
        lock.withLock {
            kept.append(directory)
            if !registered {
                registered = true
                atexit { ProcessScratch.removeAll() }
            }
        }
    }

    private static func removeAll() {
        for directory in lock.withLock({ kept }) { try? FileManager.default.removeItem(at: directory.url) }
    }
}
