import Foundation
import GRDB
import GRDBSQLite
import PlacesCore

/// Inserts into the index inside the one transaction ``PlaceIndexStore/write(_:)`` opened.
/// Only valid inside that closure.
public final class PlaceIndexWriter {
    let db: Database
    private let now = Date().timeIntervalSince1970

    init(db: Database) { self.db = db }

    /// Times the phases of the import under way (see ``ImportPhaseClock``).
    private var phases = ImportPhaseClock()

    /// Marks the end of an import phase that `places import` times when `PLACES_IMPORT_PHASES` is set; the
    /// first call starts the clock.
    public func markPhase(_ phase: String) { phases.mark(phase) }

    /// Removes everything an earlier import of `source` added, so a re-import replaces rather than duplicates.
    ///
    /// Taking a row's words out of the full-text index and its entry out of the R*Tree costs about what putting
    /// them in did (6.5 s of CPU for a country extract's 330,000 rows). When the source holds at least half the
    /// rows, as when a user imports a fresher copy of their one extract, both are rebuilt from the rows that stay
    /// instead.
    public func removeSource(_ source: String) throws {
        let removing = try Int.fetchOne(db, sql: "SELECT count(*) FROM place WHERE source = ?", arguments: [source]) ?? 0
        let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM place") ?? 0
        let rebuildIndexes = removing > 0 && removing * 2 >= total
        var statements = [
            "DELETE FROM name_prefix WHERE place IN (SELECT rowid FROM place WHERE source = ?)",
            "DELETE FROM place WHERE source = ?",
            "DELETE FROM city WHERE source = ?",
            "DELETE FROM source WHERE name = ?",
        ]
        if !rebuildIndexes {
            statements.insert(contentsOf: [
                "DELETE FROM place_fts WHERE rowid IN (SELECT rowid FROM place WHERE source = ?)",
                "DELETE FROM place_rtree WHERE id IN (SELECT rowid FROM place WHERE source = ?)",
            ], at: 0)
        }
        for sql in statements { try db.execute(sql: sql, arguments: [source]) }
        pendingRows[source] = nil
        guard rebuildIndexes else { return }
        // FTS5's own rebuild reads the words of every row left; the R*Tree is packed from their positions.
        try db.execute(sql: "INSERT INTO place_fts (place_fts) VALUES ('rebuild')")
        try writeRTree(PackedRTree(try rtreeEntriesOfEveryPlace(), nodeSize: try rtreeNodeSize()))
    }

    /// Ends an import of `source`: builds the R*Tree and full-text entries of every place it inserted,
    /// and records the import (what the file was, what it added, the area it covers). Bulk
    /// `INSERT … SELECT` here costs half of what maintaining both indexes row by row did. Call it last,
    /// inside the same ``PlaceIndexStore/write(_:)``.
    public func finishSource(_ source: String, kind: String, places: Int, cities: Int, addressPoints: Int = 0,
                             fingerprint: SourceFingerprint? = nil) throws {
        phases.mark("rows")
        try replaceEarlierRows()
        let addedRows = takeAddedRows(of: source)
        let rtree = try startRTree(adding: addedRows)
        try restoreSecondaryIndexes()
        phases.mark("replace")
        let vocabulary = ComputedElsewhere { [counts = typoTerms.counts] in Self.sortedTypoTerms(counts) }
        typoTerms = TypoTermCounts()
        try finishRTree(rtree)
        phases.mark("rtree")
        // Only the rows this import added: rows it updated in place kept their entries.
        let added: StatementArguments = [source, firstPendingRowid ?? Int64.max]
        try db.execute(sql: """
            INSERT INTO place_fts (rowid, search_name, search_alt, brand, keywords, search_address)
            SELECT rowid, search_name, search_alt, brand, keywords, search_address FROM place WHERE source = ? AND rowid >= ?
            """, arguments: added)
        phases.mark("fts")
        let vocabularyRows = vocabulary.wait()
        phases.mark("typo-sort")
        try saveTypoVocabulary(vocabularyRows)
        phases.mark("typo")
        try saveNamePrefixes()
        phases.mark("prefixes")
        // What the file's places cover: the rows this import added, as they went in, and the file's older rows (those
        // it took over in place, or an earlier write's), read back.
        var extent = SourceExtent()
        for row in addedRows { extent.add(latitude: row.latitude, longitude: row.longitude, names: row.names) }
        if let older = try Row.fetchOne(db, sql: """
            SELECT count(*), count(*) + sum(\(PreparedPlace.alternateNameCount)), min(lat), max(lat), min(lon), max(lon)
            FROM place WHERE source = ? AND rowid < ?
            """, arguments: [source, firstPendingRowid ?? Int64.max]), let rows = older[0] as Int?, rows > 0 {
            extent.add(SourceExtent(names: older[1], minLatitude: older[2], maxLatitude: older[3],
                                    minLongitude: older[4], maxLongitude: older[5]))
        }
        firstPendingRowid = nil
        try db.execute(sql: """
            INSERT OR REPLACE INTO source (name, kind, imported_at, places, cities, bytes, checksum, format,
                address_points, names, min_lat, max_lat, min_lon, max_lon)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [source, kind, now, places, cities, fingerprint?.bytes ?? 0, fingerprint?.checksum ?? "",
                             PlaceIndexStore.format, addressPoints, extent.names, extent.minLatitude, extent.maxLatitude,
                             extent.minLongitude, extent.maxLongitude])
        phases.mark("source")
    }

    /// A row this import inserted, as the end of the import needs it: its position (its R*Tree entry, and the box
    /// of its file's places) and how many names it counts for in its file's `source` row.
    struct AddedRow {
        var id: Int64
        var latitude: Double
        var longitude: Double
        var names: Int
    }

    /// The rows this import inserted, by source, in rowid order: kept as each row goes in, so that the end of the
    /// import does not read every new row back (for the generated extract's 340,000 rows: their R*Tree entries
    /// 0.13–0.18 s of CPU in `sqlite3` alone, their names and box for the `source` row 0.18–0.26 s in the import).
    private var pendingRows: [String: [AddedRow]] = [:]

    /// Keeps the row `rowid` that `prepared` just became. A row takes a rowid above every row there is, so rows kept
    /// at or above it were deleted since (SQLite hands a deleted last rowid out again).
    private func keepAddedRow(_ prepared: PreparedPlace, rowid: Int64) {
        func keep(in rows: inout [AddedRow]) {
            while let last = rows.last, last.id >= rowid { rows.removeLast() }
            rows.append(AddedRow(id: rowid, latitude: prepared.coordinate.latitude, longitude: prepared.coordinate.longitude,
                                 names: prepared.names))
        }
        keep(in: &pendingRows[prepared.source, default: []])
    }

    /// The rows of `source` this import inserted and kept: every row of `source` from ``firstPendingRowid`` on (which
    /// is never above a row it inserted). Call it after ``replaceEarlierRows()``, the last to delete rows; rows of
    /// another source are dropped, as they stay out of the R*Tree and the full-text index.
    private func takeAddedRows(of source: String) -> [AddedRow] {
        var rows = pendingRows[source] ?? []
        pendingRows = [:]
        if !deletedRowids.isEmpty { rows.removeAll { deletedRowids.contains($0.id) } }
        return rows
    }

    /// How this import's new rows go into the R*Tree, decided once the rows are in.
    private enum RTreeAddition {
        /// A few next to what the tree holds: inserted through the virtual table, in rowid order.
        case throughTheTable([PackedRTree.Entry])
        /// The whole tree packed again (``PackedRTree``), on another thread while this one builds `place`'s indexes
        /// (for the generated extract ~1.0 s, packing its 375,000 entries ~0.15 s), then written as the rows of its
        /// shadow tables, which for a large import costs a fraction of inserting entry by entry.
        case packed(ComputedElsewhere<PackedRTree>)
    }

    /// Starts adding `added` (this import's new rows: rows it updated in place kept their entries) to the R*Tree;
    /// ``finishRTree(_:)`` ends it. Call it after ``replaceEarlierRows()``, which deletes the entries of the rows it
    /// deletes from the tree.
    private func startRTree(adding added: [AddedRow]) throws -> RTreeAddition {
        @Sendable func entries(_ rows: [AddedRow]) -> [PackedRTree.Entry] {
            rows.map { PackedRTree.Entry(id: $0.id, latitude: $0.latitude, longitude: $0.longitude) }
        }
        let held = try Int.fetchOne(db, sql: "SELECT count(*) FROM place_rtree_rowid") ?? 0
        guard added.count * 4 >= held else { return .throughTheTable(entries(added)) }
        var heldEntries: [PackedRTree.Entry] = []
        heldEntries.reserveCapacity(held)
        let heldRows = try Row.fetchCursor(db, sql: "SELECT id, min_lat, max_lat, min_lon, max_lon FROM place_rtree")
        while let row = try heldRows.next() {
            heldEntries.append(PackedRTree.Entry(id: row[0], minLatitude: Float(row[1] as Double), maxLatitude: Float(row[2] as Double),
                                                 minLongitude: Float(row[3] as Double), maxLongitude: Float(row[4] as Double)))
        }
        let nodeSize = try rtreeNodeSize()
        return .packed(ComputedElsewhere { [heldEntries] in PackedRTree(heldEntries + entries(added), nodeSize: nodeSize) })
    }

    /// Writes what ``startRTree(_:)`` started.
    private func finishRTree(_ addition: RTreeAddition) throws {
        switch addition {
        case .throughTheTable(let entries):
            let insert = try db.makeStatement(sql: "INSERT INTO place_rtree (id, min_lat, max_lat, min_lon, max_lon) VALUES (?, ?, ?, ?, ?)")
            for entry in entries {
                try Self.execute(insert, [entry.id.databaseValue] + [entry.minLatitude, entry.maxLatitude, entry.minLongitude,
                                                                      entry.maxLongitude].map { Double($0).databaseValue }, in: db)
            }
        case .packed(let tree):
            try writeRTree(tree.wait())
        }
    }

    /// The R*Tree entries of every place: each at its point, rounded as the R*Tree rounds.
    private func rtreeEntriesOfEveryPlace() throws -> [PackedRTree.Entry] {
        var entries: [PackedRTree.Entry] = []
        try SQLiteRow.forEach(db.makeStatement(sql: "SELECT rowid, lat, lon FROM place"), arguments: []) { row in
            entries.append(PackedRTree.Entry(id: row.int64(0), latitude: row.double(1), longitude: row.double(2)))
        }
        return entries
    }

    /// The R*Tree's node size: the length of its root's blob, as SQLite's R*Tree module reads it.
    private func rtreeNodeSize() throws -> Int {
        try Int.fetchOne(db, sql: "SELECT length(data) FROM place_rtree_node WHERE nodeno = 1") ?? 0
    }

    /// Replaces the R*Tree's content with `tree`, written straight into its three shadow tables.
    private func writeRTree(_ tree: PackedRTree) throws {
        for table in ["place_rtree_node", "place_rtree_rowid", "place_rtree_parent"] { try db.execute(sql: "DELETE FROM \(table)") }
        var node = MultiRowInsert(db: db, into: "place_rtree_node (nodeno, data)")
        for (number, data) in tree.nodes { try node.add(number.databaseValue, Data(data).databaseValue) }
        try node.finish()
        var leaf = MultiRowInsert(db: db, into: "place_rtree_rowid (rowid, nodeno)")
        for (id, number) in tree.leafOfEntry { try leaf.add(id.databaseValue, number.databaseValue) }
        try leaf.finish()
        var parent = MultiRowInsert(db: db, into: "place_rtree_parent (nodeno, parentnode)")
        for (number, parentNumber) in tree.parentOfNode { try parent.add(number.databaseValue, parentNumber.databaseValue) }
        try parent.finish()
    }

    /// Replaces the phone number of a place this import wrote, once what it needed is known (the region of a
    /// number without a country prefix, from the whole file). Call it after
    /// ``finishSource(_:kind:places:cities:addressPoints:fingerprint:)``, when every row of the import is in
    /// place; the phone is in no index, so nothing else changes.
    public func replacePhone(ofPlace placeID: String, with phone: String) throws {
        try Self.execute(try statement(.phoneUpdate, sql: "UPDATE place SET phone = ? WHERE id = ?"),
                         [phone.databaseValue, placeID.databaseValue], in: db)
    }

    /// Adds or replaces one place. It becomes findable when ``finishSource(_:kind:places:cities:addressPoints:fingerprint:)`` runs.
    /// - Parameters:
    ///   - keywords: category words (tag values, the normalised category, cuisine) and other searchable words.
    ///   - alternateNames: every other name the place has (other languages, old and short names); a search
    ///     that matches one of them says so (`matched_name`).
    ///   - importance: 0…1, how likely people mean this place when several match equally (population,
    ///     Wikipedia links, kind).
    public func insert(_ place: Place, kind: IndexedPlaceKind, source: String, keywords: [String] = [],
                       alternateNames: [String] = [], importance: Double = 0) throws {
        try insert(PreparedPlace(place, kind: kind, source: source, keywords: keywords, alternateNames: alternateNames,
                                 importance: importance))
    }

    /// Adds or replaces one place whose row and words were prepared beforehand (on any thread: imports
    /// prepare their places on every core while this connection inserts).
    public func insert(_ prepared: PreparedPlace) throws {
        typoTerms.add(prepared)
        try insert(counted: prepared)
    }

    /// ``insert(_:)-(PreparedPlace)`` for an import that counts its places' typo words itself, off this thread, and
    /// hands the counts over with ``addTypoTerms(_:)``.
    public func insert(counted prepared: PreparedPlace) throws {
        let insert = try placeInsert()
        try Self.execute(insert, prepared.values, now.databaseValue, in: db)
        if sqlite3_changes(db.sqliteConnection) == 0 {
            // Another file had this object: the newer import wins. Mostly the earlier row has the same words and
            // position (cities1000 over the bundled cities15000: 34,024 rows), so the row is updated where it is
            // and keeps its full-text and R*Tree entries; otherwise it waits for ``replaceEarlierRows()``.
            if let rowid = try Self.execute(try samePlaceUpdate(), prepared.values, now.databaseValue,
                                            (firstPendingRowid ?? Int64.max).databaseValue, in: db) {
                if prepared.kind != .address, let first = prepared.firstNameWord {
                    namePrefixes.add(place: rowid, firstWord: first, importance: prepared.importance)
                }
                // An earlier copy of the object in this file, waiting to replace the row, would undo this later one.
                if !replacedIDs.isEmpty, replacedIDs.remove(prepared.id) != nil { replacements.removeAll { $0.id == prepared.id } }
            } else {
                replacements.append(prepared)
                replacedIDs.insert(prepared.id)
            }
            return
        }
        try inserted(prepared, rowid: db.lastInsertedRowID)
    }

    /// Overwrites an earlier import's row of the same place with this import's values when the words the
    /// full-text index holds and the position the R*Tree holds are the same, so both stay as they are.
    /// Parameters: the 31 values of ``placeInsert()``, then the first row of this import (rows from there
    /// on are not indexed yet, so they are not "earlier"). Returns the row's rowid when it updated one.
    private func samePlaceUpdate() throws -> Statement {
        try statement(.samePlaceUpdate, sql: """
            UPDATE place SET (\(Self.placeColumns))
              = (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23,
                 ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31)
            WHERE id = ?1 AND rowid < ?32 AND lat = ?6 AND lon = ?7 AND search_name = ?27 AND search_alt = ?28
                AND brand IS ?10 AND keywords = ?25 AND search_address = ?29
            RETURNING rowid
            """)
    }

    /// Records what a newly inserted row adds to this import's name prefixes.
    private func inserted(_ prepared: PreparedPlace, rowid: Int64) throws {
        // A new row takes the highest rowid there is plus one: below the first pending row when every row from there
        // on was deleted since (``replaceEarlierRows()`` deleting this import's own rows and the index's newest), and
        // then no older row lies at or above it, so the pending rows start at it.
        if firstPendingRowid.map({ rowid < $0 }) ?? true { firstPendingRowid = rowid }
        try countInsertedRow()
        if !deletedRowids.isEmpty { deletedRowids.remove(rowid) }  // SQLite hands a deleted last rowid out again
        keepAddedRow(prepared, rowid: rowid)
        if prepared.kind != .address, let first = prepared.firstNameWord {
            namePrefixes.add(place: rowid, firstWord: first, importance: prepared.importance)
        }
    }

    /// Rows this import inserted so far, and how many it inserts with `place`'s secondary indexes in place.
    private var rowsInserted = 0
    private var rowsBeforeDroppingIndexes: Int?

    /// The secondary indexes of `place` (by source, importance and main name), and of `city` (by source and grid
    /// cell) when the import writes cities, that this import dropped, and the SQL that makes each again.
    private var droppedIndexes: [String] = []

    /// Whether this import has written a GeoNames city (``insert(_:source:)``): then `city`'s indexes are dropped
    /// with `place`'s. An extract writes none, and looks cities up by cell while it inserts.
    private var insertsCities = false

    /// The import has inserted as many rows as the index held when it began (and at least
    /// ``fewestRowsForDroppingIndexes``): `place`'s secondary indexes are dropped, and made again from every row by
    /// ``restoreSecondaryIndexes()``. Inserting a row into an index on the main name lands anywhere in it; building
    /// the index sorts the rows once instead (`sqlite3`, the 364,000 rows of the generated extract's index: 1.5 s
    /// of CPU for the three indexes kept up row by row, 0.7 s built afterwards). A small import into a large
    /// index keeps them: it never inserts enough rows for rebuilding them to pay. `city`'s two indexes go the same way
    /// in an import that writes cities, each GeoNames row landing anywhere in the index by cell (cities1000 over the
    /// bundled index, `sqlite3` under callgrind: 3.27 G instructions for its cities with both indexes kept up row by
    /// row, 2.89 G with them built afterwards).
    private func countInsertedRow() throws {
        rowsInserted += 1
        if rowsBeforeDroppingIndexes == nil {
            let held = try Int.fetchOne(db, sql: "SELECT count(*) FROM place") ?? 0
            rowsBeforeDroppingIndexes = max(held, fewestRowsForDroppingIndexes)
        }
        guard rowsInserted == rowsBeforeDroppingIndexes else { return }
        let indexes = try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_master
            WHERE type = 'index' AND sql IS NOT NULL
                AND (tbl_name = 'place' AND name IN ('place_by_source', 'place_by_importance', 'place_by_search_name')
                     OR tbl_name = 'city' AND ? AND name IN ('city_by_source', 'city_by_cell'))
            ORDER BY name
            """, arguments: [insertsCities])
        for index in indexes {
            try db.execute(sql: "DROP INDEX \(index["name"] as String)")
            droppedIndexes.append(index["sql"])
        }
    }

    /// Fewer rows than this are always inserted with the indexes in place (tests lower it).
    var fewestRowsForDroppingIndexes = 20_000

    /// Makes the indexes ``countInsertedRow()`` dropped again, over every row. ``PlaceIndexStore/write(statementJournalsInMemory:_:)``
    /// calls it too, after its body, so a write that never finished a source does not commit without them.
    func restoreSecondaryIndexes() throws {
        for sql in droppedIndexes { try db.execute(sql: sql) }
        droppedIndexes = []
        insertsCities = false
        rowsInserted = 0
        rowsBeforeDroppingIndexes = nil
    }

    /// Rows of this import whose id an earlier row already had, in the order they came.
    private var replacements: [PreparedPlace] = []
    /// The ids of ``replacements``.
    private var replacedIDs = Set<String>()

    /// Deletes the earlier rows that this import's ``replacements`` replace (their full-text, R*Tree and
    /// name-prefix entries with them), then inserts the replacements. Rows this import inserted itself (a
    /// file that holds one object twice) are not in the full-text index yet, so only older rows leave it.
    private func replaceEarlierRows() throws {
        guard !replacements.isEmpty else { return }
        try db.execute(sql: "CREATE TEMP TABLE replaced_place (id TEXT PRIMARY KEY) WITHOUT ROWID")
        let remember = try db.makeStatement(sql: "INSERT OR IGNORE INTO replaced_place (id) VALUES (?)")
        for prepared in replacements { try Self.execute(remember, [prepared.id.databaseValue], in: db) }
        let replaced = "SELECT place.rowid FROM replaced_place JOIN place USING (id)"
        deletedRowids.formUnion(try Int64.fetchAll(db, sql: replaced))
        let pendingFrom = firstPendingRowid ?? Int64.max
        try db.execute(sql: "DELETE FROM place_fts WHERE rowid IN (\(replaced) WHERE place.rowid < ?)", arguments: [pendingFrom])
        try db.execute(sql: "DELETE FROM place_rtree WHERE id IN (\(replaced) WHERE place.rowid < ?)", arguments: [pendingFrom])
        try db.execute(sql: "DELETE FROM name_prefix WHERE place IN (\(replaced))")
        try db.execute(sql: "DELETE FROM place WHERE rowid IN (\(replaced))")
        try db.execute(sql: "DROP TABLE replaced_place")
        let rows = replacements
        replacements = []
        replacedIDs = []
        let insert = try placeInsert()
        for prepared in rows {
            try Self.execute(insert, prepared.values, now.databaseValue, in: db)
            if sqlite3_changes(db.sqliteConnection) == 0 {
                // The file holds this object more than twice: the last one wins.
                if let existing = try Int64.fetchOne(db.cachedStatement(sql: "SELECT rowid FROM place WHERE id = ?"), arguments: [prepared.id]) {
                    try deletePlace(rowid: existing)
                }
                try Self.execute(insert, prepared.values, now.databaseValue, in: db)
            }
            try inserted(prepared, rowid: db.lastInsertedRowID)
        }
    }

    /// The place INSERT, prepared once per import.
    private func placeInsert() throws -> Statement {
        try statement(.placeInsert, sql: """
            INSERT INTO place (\(Self.placeColumns))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO NOTHING
            """)
    }

    /// The columns of ``PreparedPlace/values``, then `imported_at`.
    private static let placeColumns = """
        id, source, kind, name, folded_name, lat, lon, category, categories, brand, folded_brand,
        phone, website, opening_hours, time_zone, house_number, street, unit, postcode, city, district, region,
        country_code, attribution, keywords, alt_names, search_name, search_alt, search_address,
        importance, imported_at
        """

    /// The statements an import runs once per row, each prepared on first use (GRDB's statement cache
    /// hashed the whole SQL text on every call).
    private enum RowStatement { case placeInsert, samePlaceUpdate, cityInsert, cityUpdate, phoneUpdate }
    private var rowStatements: [RowStatement: Statement] = [:]

    private func statement(_ name: RowStatement, sql: @autoclosure () -> String) throws -> Statement {
        if let statement = rowStatements[name] { return statement }
        let statement = try db.makeStatement(sql: sql())
        rowStatements[name] = statement
        return statement
    }

    /// Binds `values`, then `extra`, to `statement` and runs it once; returns the first column of the first row
    /// it returns as an integer (an UPDATE's `RETURNING rowid`), `nil` when it returns none. Straight to
    /// SQLite: GRDB's `StatementArguments` boxed and copied every value, a tenth of the inserting thread's
    /// time on cities1000.
    @discardableResult
    static func execute(_ statement: Statement, _ values: [DatabaseValue], _ extra: DatabaseValue..., in db: Database) throws -> Int64? {
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        // SQLITE_TRANSIENT: SQLite copies the bytes before the bind returns.
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        var index: Int32 = 0
        func bind(_ value: DatabaseValue) throws {
            index += 1
            let code: Int32
            switch value.storage {
            case .null: code = sqlite3_bind_null(handle, index)
            case .int64(let number): code = sqlite3_bind_int64(handle, index, number)
            case .double(let number): code = sqlite3_bind_double(handle, index, number)
            case .string(var text):
                code = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { chars in
                        guard let base = chars.baseAddress, !chars.isEmpty else { return sqlite3_bind_text(handle, index, "", 0, transient) }
                        return sqlite3_bind_text(handle, index, base, Int32(chars.count), transient)
                    }
                }
            case .blob(let data):
                code = data.withUnsafeBytes { bytes in
                    guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
                    return sqlite3_bind_blob(handle, index, base, Int32(bytes.count), transient)
                }
            }
            guard code == SQLITE_OK else { throw error(code) }
        }
        func error(_ code: Int32) -> DatabaseError {
            DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                          sql: statement.sql)
        }
        for value in values { try bind(value) }
        for value in extra { try bind(value) }
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return sqlite3_column_int64(handle, 0) }
        guard code == SQLITE_DONE else { throw error(code) }
        return nil
    }

    /// The first row this import inserted: it and later rows are not in the full-text index until
    /// ``finishSource(_:kind:places:cities:addressPoints:fingerprint:)``.
    private var firstPendingRowid: Int64?

    /// The most important places of this import for each beginning of a main name (see ``NamePrefixes``).
    private var namePrefixes = NamePrefixes()

    /// Writes this import's ``NamePrefixes``: what short suggestions ("s", "st", "sto") complete from.
    private func saveNamePrefixes() throws {
        let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO name_prefix (prefix, importance, place) VALUES (?, ?, ?)")
        for (prefix, places) in namePrefixes.best {
            for entry in places.entries where !deletedRowids.contains(entry.place) {
                try Self.execute(statement, [prefix.databaseValue, entry.importance.databaseValue, entry.place.databaseValue], in: db)
            }
        }
        namePrefixes = NamePrefixes()
        deletedRowids = []
    }

    /// Rows deleted during this import (replaced by a later row of the same place), whose ``namePrefixes``
    /// entries must not be saved.
    private var deletedRowids = Set<Int64>()

    /// Words a typo may be corrected to (see ``PreparedPlace/typoTerms``), with how many times this import
    /// used each.
    private var typoTerms = TypoTermCounts()

    /// Adds the typo words of places inserted with ``insert(counted:)``; call it before
    /// ``finishSource(_:kind:places:cities:addressPoints:fingerprint:)``.
    public func addTypoTerms(_ counts: TypoTermCounts) {
        typoTerms.add(counts)
    }

    /// The vocabulary typo correction looks words up in: each word by its length and its beginning, and by
    /// its length and its (reversed) ending, since a word with one typo keeps one of the two intact. How
    /// many names use a word decides between equally close corrections.
    private func saveTypoVocabulary(_ rows: [TypoTermRow]) throws {
        var insert = MultiRowInsert(db: db, into: "search_term (length, term, reversed, places)",
                                    then: "ON CONFLICT (length, term) DO UPDATE SET places = places + excluded.places")
        for row in rows {
            try insert.add(row.length.databaseValue, row.term.databaseValue, row.reversed.databaseValue, row.places.databaseValue)
        }
        try insert.finish()
    }

    typealias TypoTermRow = (length: Int, term: String, reversed: String, places: Int)

    /// This import's typo vocabulary as `search_term` rows, in key order (SQLite compares text byte by byte) so
    /// that each insert lands next to the one before in the table's B-tree instead of anywhere. Computed on
    /// another thread while this one fills the R*Tree and the full-text index (a second or more of sorting and
    /// reversing for cities1000's 376,000 words).
    private static func sortedTypoTerms(_ counts: [String: Int]) -> [TypoTermRow] {
        var rows = counts.map { (length: $0.key.unicodeScalars.count, term: $0.key, reversed: "", places: $0.value) }
        rows.sort { $0.length != $1.length ? $0.length < $1.length : PlaceIndexWriter.bytewiseLess($0.term, $1.term) }
        for i in rows.indices { rows[i].reversed = String(String.UnicodeScalarView(rows[i].term.unicodeScalars.reversed())) }
        return rows
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s, by `memcmp` (comparing the UTF-8 views element by element
    /// was most of the time spent sorting cities1000's 376,000 words).
    fileprivate static func bytewiseLess(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { a in
            b.withUTF8 { b in
                let common = min(a.count, b.count)
                let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                return order != 0 ? order < 0 : a.count < b.count
            }
        }
    }

    /// Adds or replaces one GeoNames city in the reverse-geocoding table; it is found by position once
    /// ``finishSource(_:kind:places:cities:)`` runs. Its searchable ``Place`` (id `geonames:N`, kind
    /// `.city`) is inserted separately.
    public func insert(_ city: IndexedCity, source: String) throws {
        insertsCities = true
        let values: [DatabaseValue] = [
            city.geonameID.databaseValue, source.databaseValue, city.name.databaseValue, city.asciiName.databaseValue,
            city.coordinate.latitude.databaseValue, city.coordinate.longitude.databaseValue, city.featureCode.databaseValue,
            city.countryCode.databaseValue, city.admin1.databaseValue, city.population.databaseValue, city.timeZone.databaseValue,
        ]
        try Self.execute(try statement(.cityInsert, sql: """
            INSERT OR IGNORE INTO city (geonameid, \(Self.cityColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """), values, in: db)
        guard sqlite3_changes(db.sqliteConnection) == 0 else { return }
        // Another file had this city (cities1000 over the bundled cities15000): the newer import's row replaces it,
        // updated where it is. `INSERT OR REPLACE` cost a third more for every row, also the many it replaced nothing for.
        try Self.execute(try statement(.cityUpdate, sql: """
            UPDATE city SET (\(Self.cityColumns)) = (?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) WHERE geonameid = ?1
            """), values, in: db)
    }

    /// The columns of a city row after `geonameid`, in the order ``insert(_:source:)`` binds them.
    private static let cityColumns = "source, name, ascii_name, lat, lon, feature_code, country_code, admin1, population, time_zone"

    /// The city reverse geocoding would name for `coordinate`, from what is already in the index
    /// (including this transaction's inserts).
    public func city(near coordinate: Coordinate) throws -> IndexedCity? {
        try CityLookup.best(near: coordinate, in: db)
    }

    private func deletePlace(rowid: Int64) throws {
        // The full-text index reads a deleted entry's words from its row, so only rows a finished import
        // indexed may be deleted from it: deleting words never added would corrupt it (a file that holds
        // one object twice). Rows of the import under way are the newest, from `firstPendingRowid` on.
        if firstPendingRowid.map({ rowid < $0 }) ?? true {
            try db.cachedStatement(sql: "DELETE FROM place_fts WHERE rowid = ?").execute(arguments: [rowid])
        }
        try db.cachedStatement(sql: "DELETE FROM place_rtree WHERE id = ?").execute(arguments: [rowid])
        try db.cachedStatement(sql: "DELETE FROM place WHERE rowid = ?").execute(arguments: [rowid])
        deletedRowids.insert(rowid)
    }
}

/// What a file's `source` row says of its places: how many names (each row's main name and its alternate names)
/// and the box around them, `nil` without rows.
struct SourceExtent {
    var names = 0
    var minLatitude: Double?
    var maxLatitude: Double?
    var minLongitude: Double?
    var maxLongitude: Double?

    mutating func add(latitude: Double, longitude: Double, names: Int) {
        add(SourceExtent(names: names, minLatitude: latitude, maxLatitude: latitude, minLongitude: longitude,
                         maxLongitude: longitude))
    }

    mutating func add(_ other: SourceExtent) {
        func least(_ a: Double?, _ b: Double?) -> Double? {
            guard let a, let b else { return a ?? b }
            return min(a, b)
        }
        func most(_ a: Double?, _ b: Double?) -> Double? {
            guard let a, let b else { return a ?? b }
            return max(a, b)
        }
        names += other.names
        minLatitude = least(minLatitude, other.minLatitude)
        maxLatitude = most(maxLatitude, other.maxLatitude)
        minLongitude = least(minLongitude, other.minLongitude)
        maxLongitude = most(maxLongitude, other.maxLongitude)
    }
}

/// A value computed on another thread while the one that writes SQLite goes on with what needs the connection;
/// ``wait()`` hands it over. The rest of an import's end runs on that one thread while the other cores idle.
final class ComputedElsewhere<Value: Sendable>: @unchecked Sendable {
    // Written by the worker before it leaves the group, read only after `wait()` has seen it leave.
    private var value: Value?
    private let group = DispatchGroup()

    init(_ compute: @escaping @Sendable () -> Value) {
        group.enter()
        DispatchQueue.global().async { [self] in
            value = compute()
            group.leave()
        }
    }

    func wait() -> Value {
        group.wait()
        return value!
    }
}

/// Rows inserted many to a statement (`INSERT INTO t (a, b) VALUES (?, ?), (?, ?), …`), in the order they are added: for the
/// hundreds of thousands of small rows an import writes at its end (the typo vocabulary, the R*Tree's shadow tables), where
/// running a statement per row cost SQLite a fifth more (the vocabulary of cities1000 over the bundled index, 375,886
/// rows, in C against the same SQLite: 0.53 s one row a statement, 0.41 s 64 rows a statement).
struct MultiRowInsert {
    static let rowsPerStatement = 64

    private let db: Database
    private let target: String
    private let clause: String
    private var full: Statement?
    private var values: [DatabaseValue] = []
    private var columns = 0

    /// - Parameters:
    ///   - target: the table and its columns, `"t (a, b)"`.
    ///   - clause: what follows the values (an `ON CONFLICT` clause), or nothing.
    init(db: Database, into target: String, then clause: String = "") {
        self.db = db
        self.target = target
        self.clause = clause
    }

    /// Adds one row; every row has the same number of values.
    mutating func add(_ row: DatabaseValue...) throws {
        columns = row.count
        values += row
        if values.count == columns * Self.rowsPerStatement {
            if full == nil { full = try statement(rows: Self.rowsPerStatement) }
            try PlaceIndexWriter.execute(full!, values, in: db)
            values.removeAll(keepingCapacity: true)
        }
    }

    /// Inserts the rows added since the last full statement.
    mutating func finish() throws {
        guard !values.isEmpty else { return }
        try PlaceIndexWriter.execute(try statement(rows: values.count / columns), values, in: db)
        values.removeAll()
    }

    private func statement(rows: Int) throws -> Statement {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return try db.makeStatement(sql: "INSERT INTO \(target) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ") + " " + clause)
    }
}

/// For each beginning of one, two and three letters of a main name's first word, the places of one import
/// with the highest importance, kept while the import inserts (a sort of every name afterwards cost a
/// third of a second per prefix length for the world's cities).
///
/// The union over imports holds each prefix's overall top ``perPrefix``, so a source is replaced by
/// deleting its rows alone. Short prefixes match a large share of all names; this is how the first
/// keystrokes complete without ranking tens of thousands of matches.
struct NamePrefixes {
    /// Places kept per prefix and import: more than any suggestion list shows.
    static let perPrefix = 32
    /// The longest prefix kept; longer ones are specific enough for the full-text index.
    static let longestPrefix = 3

    struct Entry {
        var importance: Double
        var place: Int64
    }

    /// The places kept for one prefix, and the least importance among them once the list is full.
    struct Kept {
        var entries: [Entry] = []
        var leastImportance = -Double.infinity
    }

    private(set) var best: [String: Kept] = [:]

    mutating func add(place: Int64, firstWord: String, importance: Double) {
        var prefix = String.UnicodeScalarView()
        for scalar in firstWord.unicodeScalars.prefix(Self.longestPrefix) {
            prefix.append(scalar)
            Self.offer(Entry(importance: importance, place: place), to: &best[String(prefix), default: Kept()])
        }
    }

    /// Keeps `entry` if the list has room or it beats the list's least important place (the first of them). The least
    /// importance is remembered: most places of a large import beat none, and looking for the least among the 32 on
    /// every offer was most of the time spent here.
    private static func offer(_ entry: Entry, to kept: inout Kept) {
        if kept.entries.count < perPrefix {
            kept.entries.append(entry)
            if kept.entries.count == perPrefix { kept.leastImportance = kept.entries.lazy.map(\.importance).min()! }
        } else if kept.leastImportance < entry.importance,
                  let weakest = kept.entries.firstIndex(where: { $0.importance == kept.leastImportance }) {
            kept.entries[weakest] = entry
            kept.leastImportance = kept.entries.lazy.map(\.importance).min()!
        }
    }
}

/// How many places of an import use each word typo correction may correct to (``PreparedPlace/typoTerms``). An
/// import may count them where it prepares its places and hand the counts to ``PlaceIndexWriter/addTypoTerms(_:)``:
/// hashing cities1000's million words cost the thread that writes SQLite an eighth of a second.
public struct TypoTermCounts: Sendable {
    private(set) var counts: [String: Int] = [:]

    public init() {}

    public mutating func add(_ place: PreparedPlace) {
        for term in place.typoTerms { counts[term, default: 0] += 1 }
    }

    public mutating func add(_ other: TypoTermCounts) {
        if counts.isEmpty {
            counts = other.counts
        } else {
            counts.merge(other.counts, uniquingKeysWith: +)
        }
    }
}

/// One place's row and searchable words, computed from the place alone (no database), so that imports can
/// prepare places on every core and hand them to ``PlaceIndexWriter/insert(_:)-(PreparedPlace)`` in order.
public struct PreparedPlace: Sendable {
    let id: String
    let source: String
    /// Where the place is: its R*Tree entry.
    let coordinate: Coordinate
    let kind: IndexedPlaceKind
    let importance: Double
    /// How many names the row counts for in its file's `source` row: its main name and its alternate names.
    let names: Int
    /// The same count of a row in SQL, for rows read back: SQLite's `length` stops at a NUL, so only the newlines
    /// before one separate names (``alternateNames(in:)`` counts so too).
    static let alternateNameCount = "CASE alt_names WHEN '' THEN 0 ELSE length(alt_names) - length(replace(alt_names, char(10), '')) + 1 END"
    /// The row's values in the order of the writer's INSERT, without `imported_at`.
    let values: [DatabaseValue]
    /// The words of names and streets typo correction may correct to: 4 to 40 letters, no digits. Picked
    /// here, on the preparing thread, so the inserting thread only counts them.
    let typoTerms: [String]
    let firstNameWord: String?

    /// The parameters are those of ``PlaceIndexWriter/insert(_:kind:source:keywords:alternateNames:importance:)``.
    public init(_ place: Place, kind: IndexedPlaceKind, source: String, keywords: [String] = [], alternateNames: [String] = [],
                importance: Double = 0) {
        self.init(place, kind: kind, source: source, keywords: keywords,
                  alternates: alternateNames.map { AlternateName($0, words: SearchText.words($0)) }, importance: importance)
    }

    /// An alternate name with its words as ``SearchText/words(_:)`` cuts them, for a caller that cut them already
    /// (GeoNames imports do, to tell names apart: cutting cities1000's 570,000 names once more cost a fifth of a second).
    public struct AlternateName: Sendable {
        public let name: String
        public let words: [String]
        /// The words joined by spaces: how the full-text index holds the name, and how a caller tells names apart.
        public let searchWords: String

        public init(_ name: String, words: [String]) {
            self.name = name
            self.words = words
            self.searchWords = words.joined(separator: " ")
        }
    }

    /// ``init(_:kind:source:keywords:alternateNames:importance:)`` with each alternate name's words cut beforehand.
    public init(_ place: Place, kind: IndexedPlaceKind, source: String, keywords: [String] = [], alternates: [AlternateName],
                importance: Double = 0) {
        let a = place.address
        let nameWords = SearchText.words(place.name)
        var typoWords: [[String]] = []
        // Each name's words between bars ("| tukholma | stokholm | rkioski |"): the tokenizer ignores the
        // bars, and a search can tell a whole-name match from a match of some words with one `instr`.
        var names: [String] = []
        for alternate in alternates {
            names.append(alternate.searchWords)
            names += SearchText.joinedForms(alternate.words)
            typoWords.append(alternate.words)
        }
        names += SearchText.joinedForms(nameWords)
        let searchAlt = names.isEmpty ? "" : "| " + Self.unique(names).joined(separator: " | ") + " |"
        typoWords.append(nameWords)
        var addressWords: [String] = []
        if let a {
            let street = SearchText.words(a.street ?? "")
            typoWords.append(street)
            addressWords = street + SearchText.joinedForms(street)
            if let number = a.houseNumber { addressWords += SearchText.words(number) + [SearchText.houseNumber(number)] }
            // A GeoNames city's address is its own name: its words are cut once.
            for part in [a.unit, a.district, a.city] { if let part { addressWords += part == place.name ? nameWords : SearchText.words(part) } }
        }
        // DatabaseValues straight away: an array of `any DatabaseValueConvertible` boxed each of the 30 values
        // of every place an import prepares.
        let altNames = alternates.map(\.name).joined(separator: "\n")
        self.id = place.id.description
        self.source = source
        self.coordinate = place.coordinate
        self.kind = kind
        self.importance = importance
        self.names = 1 + Self.alternateNames(in: altNames)
        self.values = [
            id.databaseValue, source.databaseValue, kind.rawValue.databaseValue, place.name.databaseValue,
            TextFolding.fold(place.name).databaseValue, place.coordinate.latitude.databaseValue,
            place.coordinate.longitude.databaseValue, place.category.databaseValue,
            place.categories.joined(separator: "\n").databaseValue, place.brand.databaseValue,
            place.brand.map(TextFolding.fold).databaseValue, place.phone.databaseValue, place.website.databaseValue,
            place.openingHoursText.databaseValue, place.timeZone.databaseValue,
            a?.houseNumber.databaseValue ?? .null, a?.street.databaseValue ?? .null, a?.unit.databaseValue ?? .null,
            a?.postcode.databaseValue ?? .null, a?.city.databaseValue ?? .null, a?.district.databaseValue ?? .null,
            a?.region.databaseValue ?? .null, a?.countryCode.databaseValue ?? .null, place.attribution.databaseValue,
            keywords.joined(separator: " ").databaseValue, altNames.databaseValue,
            nameWords.joined(separator: " ").databaseValue, searchAlt.databaseValue,
            Self.unique(addressWords).joined(separator: " ").databaseValue, importance.databaseValue,
        ]
        self.typoTerms = typoWords.joined().filter(Self.isTypoTerm)
        self.firstNameWord = nameWords.first
    }

    /// How many names `altNames` (one a line) holds, as ``alternateNameCount`` counts them.
    static func alternateNames(in altNames: String) -> Int {
        guard !altNames.isEmpty else { return 0 }
        var newlines = 0
        for byte in altNames.utf8 {
            if byte == 0 { break }
            if byte == UInt8(ascii: "\n") { newlines += 1 }
        }
        return newlines + 1
    }

    /// Whether typo correction may correct to `word`: 4 to 40 letters, no digits.
    static func isTypoTerm(_ word: String) -> Bool {
        if word.utf8.allSatisfy({ $0 < 0x80 }) {
            return (4...40).contains(word.utf8.count) && !word.utf8.contains { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
        return (4...40).contains(word.unicodeScalars.count) && !word.unicodeScalars.contains { $0.properties.numericType != nil }
    }

    private static func unique(_ words: [String]) -> [String] {
        // A place has a few names and address words: comparing each with those kept costs less than hashing
        // them into a set (a sixth of the time spent preparing an extract's places).
        guard words.count > 16 else {
            var kept: [String] = []
            kept.reserveCapacity(words.count)
            for word in words where !kept.contains(word) { kept.append(word) }
            return kept
        }
        var seen = Set<String>()
        return words.filter { seen.insert($0).inserted }
    }
}
