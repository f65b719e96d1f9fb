import GRDB
import GRDBSQLite

/// The current row of a statement stepped straight through SQLite by ``forEach(_:arguments:_:)``, its columns read
/// by position while it is current.
///
/// For the loops that read thousands of rows in one search (a category's member row ids, the R*Tree's entries and
/// the place rows around a point): a GRDB cursor decodes each value through Swift's generic metadata, which for
/// the 9,018 row ids of "fast food" at the scale benchmark's size was ~1 ms of a 4.5 ms search (perf, release).
struct SQLiteRow {
    private let handle: OpaquePointer

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func bool(_ column: Int32) -> Bool { sqlite3_column_int64(handle, column) != 0 }

    /// The column as text (empty for NULL).
    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    /// Runs `statement` with `arguments`, handing each row to `body` while it is current; the statement is reset
    /// afterwards, whether `body` throws or not, so it holds no read lock and GRDB may run it again.
    static func forEach(_ statement: Statement, arguments: StatementArguments, _ body: (SQLiteRow) throws -> Void) throws {
        try statement.setArguments(arguments)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                    message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))),
                                    sql: statement.sql, arguments: arguments)
            }
            try body(SQLiteRow(handle: handle))
        }
    }

    /// The first column of every row of `statement` as integers (row ids).
    static func int64s(_ statement: Statement, arguments: StatementArguments) throws -> [Int64] {
        var values: [Int64] = []
        try forEach(statement, arguments: arguments) { values.append($0.int64(0)) }
        return values
    }
}
