import Foundation
import GRDB
import Synchronization

/// Whether an SQLite file changed since a moment: `PRAGMA data_version` read on a connection used for nothing
/// else, opened on first use. The version is per connection and changes whenever any other connection commits to
/// the file (this process's own writes included, or another process's), so what a process holds in memory from
/// the file (the lookup cache's remembered hits, the index's cities) is valid while the stamp is the one read
/// before it was built.
///
/// Cheap enough to read on every request (one pragma on an idle connection, no transaction), and it never
/// waits for a busy file: a busy or unreadable file reads as unknown (`nil`), which sends the caller to the
/// file itself.
public final class DataVersionStamp: Sendable {
    private let path: URL
    /// `opened` counts the connections opened, so a stamp from a reopened connection never equals an older one's.
    private let connection = Mutex<(queue: DatabaseQueue?, opened: UInt64)>((nil, 0))

    public init(path: URL) {
        self.path = path
    }

    /// The file's current stamp, or `nil` when it cannot be read now.
    public func read() -> UInt64? {
        connection.withLock { connection -> UInt64? in
            do {
                if connection.queue == nil {
                    var configuration = Configuration()
                    configuration.readonly = true
                    configuration.busyMode = .immediateError
                    connection.queue = try DatabaseQueue(path: path.path, configuration: configuration)
                    connection.opened &+= 1
                }
                guard let version = try connection.queue?.inDatabase({ db in
                    try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version"))
                }) else { return nil }
                // A connection's versions start afresh: the high bits say which connection counted them.
                return connection.opened << 40 ^ UInt64(bitPattern: version)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                return nil
            } catch {
                connection.queue = nil
                return nil
            }
        }
    }
}
