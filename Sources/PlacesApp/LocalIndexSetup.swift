import Foundation
import LocalProvider
import PlaceIndex
import PlacesCore

/// Opens the local index so that a half-built, damaged or outdated one is never trusted.
///
/// - The bundled files are imported in **one** transaction, so an error (a full disk, a kill) leaves either
///   the whole build or none of it, never 1,966 OSM places and no cities.
/// - Every run checks that the index file is whole and that it records each bundled file (name, size, index
///   format). A damaged file is set aside and rebuilt; a missing or outdated bundled file is re-imported.
///   Either way the user gets one line saying so. Files the user imported stay.
/// - Opening, checking and building happen under an exclusive lock file next to the index, so two
///   processes starting together on a fresh home build once: the second waits, then finds a good index.
enum LocalIndexSetup {
    /// Set to the name of a bundled file, the build fails right after importing it, the way a full disk
    /// did: how the tests show that a failed build leaves nothing behind and the next run recovers.
    static let faultVariable = "PLACES_TEST_FAIL_BUILD_AFTER"

    /// - Parameters:
    ///   - concurrentReaders: a pool of connections (a serving process) or one (one command); see ``StoreFactory``.
    ///   - citiesInMemory: hold the cities in memory for time zones (a serving process); see ``PlaceIndexStore``.
    static func open(_ environment: PlacesEnvironment, concurrentReaders: Bool, citiesInMemory: Bool,
                     notice: (String) -> Void) throws -> PlaceIndexStore {
        let path = environment.indexDatabase
        let lock = try ExclusiveFileLock(path: URL(fileURLWithPath: path.path + ".lock"))
        defer { lock.release() }

        let index: PlaceIndexStore
        var damaged = false
        do {
            index = try PlaceIndexStore.openVerified(path: path, concurrentReaders: concurrentReaders, citiesInMemory: citiesInMemory)
        } catch let damage as PlaceIndexDamage {
            let aside = try setAside(path)
            notice("places: \(damage.description); moved it to \(aside.lastPathComponent) and rebuilding it from the bundled data …")
            index = try PlaceIndexStore(path: path, concurrentReaders: concurrentReaders, citiesInMemory: citiesInMemory)
            damaged = true
        }
        if !damaged {
            guard let reason = try whatIsMissing(in: index) else { return index }
            notice(reason.isEmpty
                ? "places: first run: building the local index in \(path.path) from the bundled data …"
                : "places: the local index in \(path.path) \(reason); rebuilding it from the bundled data …")
        }
        let fault = environment.variables[faultVariable]
        let summaries = try LocalImporter(index: index).importFiles(try EmbeddedData.files.map(EmbeddedData.url), afterEach: { summary in
            if summary.file == fault {
                throw InputError("cannot build the local index in \(path.path): database or disk is full (simulated by \(faultVariable))")
            }
        })
        for summary in summaries { notice("places: \(summary.line)") }
        return index
    }

    /// Why the bundled data has to be (re)imported, or `nil` when the index holds all of it as this
    /// version reads it. The empty string means "never built" (a fresh home).
    private static func whatIsMissing(in index: PlaceIndexStore) throws -> String? {
        let recorded = Dictionary(try index.sources().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        if recorded.isEmpty { return try index.isEmpty ? "" : "records no imported file" }
        var missing: [String] = [], outdated: [String] = []
        for name in EmbeddedData.files {
            guard let source = recorded[name] else { missing.append(name); continue }
            let bytes = (try? EmbeddedData.url(name)).flatMap { fileSize(atPath: $0.path) }
            if source.format != PlaceIndexStore.format || (bytes != nil && source.bytes != bytes) { outdated.append(name) }
        }
        if !missing.isEmpty { return "is incomplete (\(missing.joined(separator: ", ")) missing: an earlier build was cut short)" }
        if !outdated.isEmpty { return "was built by another version of places (\(outdated.joined(separator: ", ")))" }
        return nil
    }

    /// Moves a damaged index (and its WAL and shared-memory files) out of the way, keeping it for inspection.
    private static func setAside(_ path: URL) throws -> URL {
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
        let aside = URL(fileURLWithPath: path.path + ".damaged-\(stamp)")
        let manager = FileManager.default
        try? manager.removeItem(at: aside)
        try manager.moveItem(at: path, to: aside)
        for suffix in ["-wal", "-shm"] { try? manager.removeItem(atPath: path.path + suffix) }
        return aside
    }
}

/// An exclusive `flock` on a file, released explicitly (or when the process ends, however it ends).
struct ExclusiveFileLock {
    private let descriptor: Int32

    init(path: URL) throws {
        descriptor = Foundation.open(path.path, O_RDWR | O_CREAT, 0o644)
        guard descriptor >= 0 else {
            throw InputError("cannot create the lock file \(path.path): \(String(cString: strerror(errno)))")
        }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw InputError("cannot lock \(path.path): \(reason)")
            }
        }
    }

    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
