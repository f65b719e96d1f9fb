import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens a store's SQLite file and brings its schema up to date, in a way that tolerates other
/// processes doing the same at the same moment: two `places serve` started together on a fresh
/// `$PLACES_HOME`, or a server and a CLI command.
///
/// SQLite's busy timeout does not cover a first open: switching a new file to WAL, and GRDB's migrator
/// upgrading its read of the applied migrations to a write, fail at once with "database is locked" (or
/// `table … already exists` for the loser of the race) instead of waiting. So opening and migrating
/// happen under an exclusive `flock` on a sidecar `<file>.lock`: openers, threads or processes, take
/// turns, and each later one finds the schema already current. Once open, the store runs without it.
///
/// ```swift
/// pool = try StoreDatabase.open(name: "spots database", path: path, configuration: configuration, migrator: migrator)
/// ```
public enum StoreDatabase {
    /// Creates the directory when missing, opens the database in WAL mode and migrates it.
    /// - Parameters:
    ///   - name: what the store is, for the error (`spots database`, `lookup cache`, `budget ledger`).
    ///   - concurrentReaders: see ``connect(path:configuration:concurrentReaders:)``.
    /// - Throws: ``StoreOpenError`` naming the store, the path and SQLite's reason; a directory that cannot
    ///   be created throws Foundation's error as it is.
    public static func open(name: String, path: URL, configuration: Configuration, migrator: DatabaseMigrator,
                            concurrentReaders: Bool = true) throws -> any DatabaseWriter {
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            return try whileHoldingOpenLock(beside: path) {
                let database = try connect(path: path, configuration: configuration, concurrentReaders: concurrentReaders)
                try migrator.migrate(database)
                return database
            }
        } catch let error as DatabaseError {
            throw StoreOpenError(store: name, path: path.path, database: error)
        }
    }

    /// Opens the SQLite file at `path` in WAL mode, so that readers never wait for a writer in another process.
    /// - Parameter concurrentReaders: `true` for a pool whose reads run in parallel (`places serve`); `false` for
    ///   one connection, for a process that runs one command and exits. GRDB's pool writes to the file as it
    ///   opens whenever the `-wal` file is missing (it creates and drops a table, then syncs), and SQLite removes
    ///   that file when the last connection closes, so with a pool every read-only command wrote to the file and
    ///   waited for four syncs. One connection that finds the file in WAL mode writes nothing, and it also spares
    ///   the pool's second connection (its writer plus a reader).
    public static func connect(path: URL, configuration: Configuration, concurrentReaders: Bool) throws -> any DatabaseWriter {
        if concurrentReaders { return try DatabasePool(path: path.path, configuration: configuration) }
        let queue = try DatabaseQueue(path: path.path, configuration: configuration)
        // A no-op (no write) when the file is already in WAL mode; a new file is switched once.
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        return queue
    }

    /// Runs `body` holding an exclusive advisory lock on `<database>.lock`. Where the lock file cannot be
    /// created (a read-only directory), `body` runs without it, so that SQLite reports the real cause.
    static func whileHoldingOpenLock<T>(beside database: URL, _ body: () throws -> T) throws -> T {
        let descriptor = openLockFile(database.path + ".lock")
        guard descriptor >= 0 else { return try body() }
        defer { close(descriptor) }  // closing the descriptor releases the lock
        while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        return try body()
    }
}

/// Opens (creating) a lock file; at file scope because inside ``StoreDatabase`` its own `open` hides C's.
private func openLockFile(_ path: String) -> Int32 { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }

/// A store's database could not be opened or migrated: what, where and why, in one line.
public struct StoreOpenError: Error, Sendable, CustomStringConvertible {
    /// `spots database`, `lookup cache`, `budget ledger`.
    public var store: String
    public var path: String
    /// SQLite's error, for callers that explain its code (a read-only directory, a full disk).
    public var database: DatabaseError

    /// SQLite's own message (`database is locked`, `unable to open database file`) without the SQL
    /// statement GRDB appends.
    public var reason: String { database.message ?? "SQLite error \(database.resultCode.rawValue)" }

    public var description: String { "cannot open the \(store) at \(path): \(reason)" }
}
