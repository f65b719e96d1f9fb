import Foundation
import GRDBSQLite
import Synchronization

/// Whether an SQLite file changed since a moment: `PRAGMA data_version` read on a connection used for nothing
/// else, opened on first use. The version is per connection and changes whenever any other connection commits to
/// the file (this process's own writes included, or another process's), so what a process holds in memory from
/// the file (the lookup cache's remembered hits, the index's cities) is valid while the stamp is the one read
/// before it was built.
///
/// Cheap enough to read several times per request: one prepared pragma stepped on an idle connection, no
/// transaction. The connection is SQLite's own, not a GRDB queue: a queue's dispatch and bookkeeping cost four
/// times the pragma (~4 µs a read; a local `SEARCH` in `places serve` reads the index's stamp three times). It never
/// waits for a busy file: a busy or unreadable file reads as unknown (`nil`), which sends the caller to the file
/// itself.
public final class DataVersionStamp: Sendable {
    private let path: URL
    private let connection = Mutex(Connection())

    /// The pragma's connection and statement, opened on first use; `opened` counts the connections opened, so a
    /// stamp from a reopened connection never equals an older one's.
    private struct Connection {
        var database: OpaquePointer?
        var pragma: OpaquePointer?
        var opened: UInt64 = 0

        mutating func close() {
            sqlite3_finalize(pragma)
            sqlite3_close_v2(database)
            pragma = nil
            database = nil
        }
    }

    public init(path: URL) {
        self.path = path
    }

    deinit {
        connection.withLock { $0.close() }
    }

    /// The file's current stamp, or `nil` when it cannot be read now.
    public func read() -> UInt64? {
        connection.withLock { connection -> UInt64? in
            if connection.pragma == nil {
                guard open(&connection) else { return nil }
            }
            let pragma = connection.pragma
            let step = sqlite3_step(pragma)
            let version = step == SQLITE_ROW ? sqlite3_column_int64(pragma, 0) : 0
            sqlite3_reset(pragma)
            switch step {
            case SQLITE_ROW:
                // A connection's versions start afresh: the high bits say which connection counted them.
                return connection.opened << 40 ^ UInt64(bitPattern: version)
            case SQLITE_BUSY:
                return nil
            default:
                // Deleted, replaced or unreadable: open the file afresh next time.
                connection.close()
                return nil
            }
        }
    }

    private func open(_ connection: inout Connection) -> Bool {
        var database: OpaquePointer?
        // Read-only, no shared cache, no mutex of SQLite's own (this object's lock serialises every use); no busy
        // handler, so a busy file answers at once.
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        var pragma: OpaquePointer?
        guard sqlite3_open_v2(path.path, &database, flags, nil) == SQLITE_OK,
              sqlite3_prepare_v2(database, "PRAGMA data_version", -1, &pragma, nil) == SQLITE_OK else {
            sqlite3_finalize(pragma)
            sqlite3_close_v2(database)
            return false
        }
        connection.database = database
        connection.pragma = pragma
        connection.opened &+= 1
        return true
    }
}
