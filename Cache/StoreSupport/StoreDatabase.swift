import Foundation
import GRDB

/// Opens a store's SQLite file and brings its schema up to date, in a way that tolerates other
/// processes doing the same at the same moment: two `places serve` started together on a fresh
/// `$PLACES_HOME`, or a server and a CLI command.
///
/// GRDB's migrator reads which migrations are applied, then runs each missing one in its own
/// transaction. Two processes can both read "none applied"; the second then waits for the first's
/// write lock and fails with `table … already exists`. Opening retries the migration after such a
/// failure: the retry reads the applied list afresh and finds the other process's work done.
///
/// ```swift
/// pool = try StoreDatabase.open(name: "spots database", path: path, configuration: configuration, migrator: migrator)
/// ```
public enum StoreDatabase {
    /// How many times the migration is tried before its error is reported.
    static let migrationAttempts = 5

    /// Creates the directory when missing, opens the database in WAL mode and migrates it.
    /// - Parameter name: what the store is, for the error (`spots database`, `lookup cache`, `budget ledger`).
    /// - Throws: ``StoreOpenError`` naming the store, the path and SQLite's reason; a directory that cannot
    ///   be created throws Foundation's error as it is.
    public static func open(name: String, path: URL, configuration: Configuration,
                            migrator: DatabaseMigrator) throws -> DatabasePool {
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            let pool = try DatabasePool(path: path.path, configuration: configuration)
            try migrateTolerantly(pool, migrator: migrator)
            return pool
        } catch let error as DatabaseError {
            throw StoreOpenError(store: name, path: path.path, database: error)
        }
    }

    /// Runs `migrator`, retrying when a concurrent opener won the race; gives up with the last error
    /// when the schema is still not up to date after ``migrationAttempts`` tries.
    static func migrateTolerantly(_ writer: any DatabaseWriter, migrator: DatabaseMigrator) throws {
        var attempt = 1
        while true {
            do {
                try migrator.migrate(writer)
                return
            } catch {
                if (try? writer.read(migrator.hasCompletedMigrations)) == true { return }
                guard attempt < migrationAttempts else { throw error }
                attempt += 1
                // The other opener holds the write lock while it migrates; the busy timeout waits for
                // it, and this short pause only keeps two losers from retrying in lockstep.
                Thread.sleep(forTimeInterval: 0.02 * Double(attempt))
            }
        }
    }

}

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
