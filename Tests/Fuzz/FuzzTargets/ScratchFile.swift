import Foundation

/// The readers under test take a path (they memory-map it), so each input is written to one reused file
/// in a private temporary directory (on tmpfs when there is one, to keep disk writes out of the loop).
enum ScratchFile {
    static let directory: URL = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm")
            ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        let directory = base.appendingPathComponent("places-fuzz-\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }()

    /// Writes `data` to `directory/name` and returns its URL. Each target writes a name of its own: the corpus replay
    /// runs targets in parallel in one process.
    static func write(_ data: Data, named name: String) -> URL {
        let url = directory.appendingPathComponent(name)
        do { try data.write(to: url) } catch { fatalError("fuzz harness: cannot write \(url.path): \(error)") }
        return url
    }
}
