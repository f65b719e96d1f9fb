import Foundation
import GRDB
import ScratchDirectory
import StoreSupport
import Testing

/// What a serving process keeps in memory from a file is trusted while the file's stamp stays the same, so the stamp
/// must change with every commit of any connection, and never repeat across a reopened file.
@Suite struct DataVersionStampTests {
    @Test func theStampChangesWithEveryCommitAndOnlyThen() throws {
        let scratch = try ScratchDirectory("places-stamp")
        let path = scratch.appendingPathComponent("store.sqlite")
        let writer = try DatabasePool(path: path.path)
        try writer.write { db in try db.execute(sql: "CREATE TABLE t (x)") }
        let stamp = DataVersionStamp(path: path)
        let first = try #require(stamp.read())
        #expect(stamp.read() == first, "nothing committed")
        try writer.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        #expect(stamp.read() == first, "a read commits nothing")
        var seen: Set<UInt64> = [first]
        for value in 0..<3 {
            try writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value]) }
            let now = try #require(stamp.read())
            #expect(seen.insert(now).inserted, "commit \(value) gave a stamp seen before")
        }
        // Another process's commit: a connection of its own.
        let other = try DatabaseQueue(path: path.path)
        try other.write { db in try db.execute(sql: "INSERT INTO t VALUES (9)") }
        #expect(try seen.insert(#require(stamp.read())).inserted)
    }

    @Test func aMissingFileHasNoStampUntilItExists() throws {
        let scratch = try ScratchDirectory("places-stamp-missing")
        let path = scratch.appendingPathComponent("later.sqlite")
        let stamp = DataVersionStamp(path: path)
        #expect(stamp.read() == nil)
        let writer = try DatabaseQueue(path: path.path)
        try writer.write { db in try db.execute(sql: "CREATE TABLE t (x)") }
        let first = try #require(stamp.read())
        try writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(stamp.read() != first)
    }
}
