import Foundation
import GRDB
@testable import PlaceIndex
import Testing

/// An import writes its many small rows (the typo vocabulary, the R*Tree's shadow tables) 64 to a statement: every row
/// must arrive once, in the order added, whatever the count, and a conflict clause must apply to each row as it would alone.
@Suite struct MultiRowInsertTests {
    @Test(arguments: [0, 1, 63, 64, 65, 129, 200])
    func everyRowArrivesOnceInOrder(count: Int) throws {
        let queue = try DatabaseQueue()
        let rows: [(Int64, String)] = (0..<count).map { (Int64($0 * 7 % 1_000), "row \($0)") }
        let stored = try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (number INTEGER NOT NULL, text TEXT NOT NULL)")
            var insert = MultiRowInsert(db: db, into: "t (number, text)")
            for (number, text) in rows { try insert.add(number.databaseValue, text.databaseValue) }
            try insert.finish()
            return try Row.fetchAll(db, sql: "SELECT number, text FROM t ORDER BY rowid").map { ($0[0] as Int64, $0[1] as String) }
        }
        #expect(stored.map(\.0) == rows.map(\.0))
        #expect(stored.map(\.1) == rows.map(\.1))
    }

    @Test func aConflictClauseAppliesToEachRow() throws {
        // 100 rows over 10 keys, so that keys meet within one statement, across statements and in the remainder:
        // each key ends with the sum of its rows, as 100 one-row upserts would leave it.
        let queue = try DatabaseQueue()
        let sums = try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (key TEXT PRIMARY KEY, total INTEGER NOT NULL)")
            var insert = MultiRowInsert(db: db, into: "t (key, total)", then: "ON CONFLICT (key) DO UPDATE SET total = total + excluded.total")
            for i in 0..<100 { try insert.add("key \(i % 10)".databaseValue, Int64(i).databaseValue) }
            try insert.finish()
            return try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, total FROM t").map { ($0[0] as String, $0[1] as Int64) })
        }
        // Key k holds k, k + 10, …, k + 90: 10k + 450.
        var expected: [String: Int64] = [:]
        for key in 0..<10 { expected["key \(key)"] = Int64(10 * key + 450) }
        #expect(sums == expected)
    }
}
