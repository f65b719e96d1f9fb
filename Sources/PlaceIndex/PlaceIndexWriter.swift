import Foundation
import GRDB
import PlacesCore

/// Inserts into the index inside the one transaction ``PlaceIndexStore/write(_:)`` opened.
/// Only valid inside that closure.
public final class PlaceIndexWriter {
    let db: Database
    private let now = Date().timeIntervalSince1970

    init(db: Database) { self.db = db }

    /// Removes everything an earlier import of `source` added, so a re-import replaces rather than duplicates.
    public func removeSource(_ source: String) throws {
        for sql in [
            "DELETE FROM place_fts WHERE rowid IN (SELECT rowid FROM place WHERE source = ?)",
            "DELETE FROM name_prefix WHERE place IN (SELECT rowid FROM place WHERE source = ?)",
            "DELETE FROM place_rtree WHERE id IN (SELECT rowid FROM place WHERE source = ?)",
            "DELETE FROM place WHERE source = ?",
            "DELETE FROM city WHERE source = ?",
            "DELETE FROM source WHERE name = ?",
        ] {
            try db.execute(sql: sql, arguments: [source])
        }
    }

    /// Ends an import of `source`: builds the R*Tree and full-text entries of every place it inserted,
    /// and records the import (what the file was, what it added, the area it covers). Bulk
    /// `INSERT … SELECT` here costs half of what maintaining both indexes row by row did. Call it last,
    /// inside the same ``PlaceIndexStore/write(_:)``.
    public func finishSource(_ source: String, kind: String, places: Int, cities: Int, addressPoints: Int = 0,
                             fingerprint: SourceFingerprint? = nil) throws {
        try db.execute(sql: """
            INSERT INTO place_rtree (id, min_lat, max_lat, min_lon, max_lon)
            SELECT rowid, lat, lat, lon, lon FROM place WHERE source = ?
            """, arguments: [source])
        try db.execute(sql: """
            INSERT INTO place_fts (rowid, search_name, search_alt, brand, keywords, search_address)
            SELECT rowid, search_name, search_alt, brand, keywords, search_address FROM place WHERE source = ?
            """, arguments: [source])
        try saveTypoVocabulary()
        try saveNamePrefixes()
        firstPendingRowid = nil
        try db.execute(sql: """
            INSERT OR REPLACE INTO source (name, kind, imported_at, places, cities, bytes, checksum, format,
                address_points, names, min_lat, max_lat, min_lon, max_lon)
            SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?,
                count(*) + sum(CASE alt_names WHEN '' THEN 0 ELSE length(alt_names) - length(replace(alt_names, char(10), '')) + 1 END),
                min(lat), max(lat), min(lon), max(lon)
            FROM place WHERE source = ?
            """, arguments: [source, kind, now, places, cities, fingerprint?.bytes ?? 0, fingerprint?.checksum ?? "",
                             PlaceIndexStore.format, addressPoints, source])
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
        for term in prepared.typoTerms { typoTerms[term, default: 0] += 1 }
        var values = prepared.values
        values.append(now.databaseValue)
        let arguments = StatementArguments(values)
        let insert = try db.cachedStatement(sql: """
            INSERT INTO place (id, source, kind, name, folded_name, lat, lon, category, categories, brand, folded_brand,
                phone, website, opening_hours, time_zone, house_number, street, unit, postcode, city, district, region,
                country_code, attribution, keywords, alt_names, search_name, search_alt, search_address,
                importance, imported_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO NOTHING
            """)
        try insert.execute(arguments: arguments)
        if db.changesCount == 0 {
            // Another file had this object: the newer import wins.
            if let existing = try Int64.fetchOne(db.cachedStatement(sql: "SELECT rowid FROM place WHERE id = ?"), arguments: [prepared.id]) {
                try deletePlace(rowid: existing)
            }
            try insert.execute(arguments: arguments)
        }
        if firstPendingRowid == nil { firstPendingRowid = db.lastInsertedRowID }
        if prepared.kind != .address, let first = prepared.firstNameWord {
            namePrefixes.add(place: db.lastInsertedRowID, firstWord: first, importance: prepared.importance)
        }
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
            for entry in places { try statement.execute(arguments: [prefix, entry.importance, entry.place]) }
        }
        namePrefixes = NamePrefixes()
    }

    /// Words a typo may be corrected to (see ``PreparedPlace/typoTerms``), with how many times this import
    /// used each.
    private var typoTerms: [String: Int] = [:]

    /// The vocabulary typo correction looks words up in: each word by its length and its beginning, and by
    /// its length and its (reversed) ending, since a word with one typo keeps one of the two intact. How
    /// many names use a word decides between equally close corrections.
    private func saveTypoVocabulary() throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO search_term (length, term, reversed, places) VALUES (?, ?, ?, ?)
            ON CONFLICT (length, term) DO UPDATE SET places = places + excluded.places
            """)
        // In key order: each insert lands next to the one before in the table's B-tree instead of anywhere.
        let terms = typoTerms.map { (length: $0.key.unicodeScalars.count, term: $0.key, places: $0.value) }
            .sorted { $0.length != $1.length ? $0.length < $1.length : $0.term.utf8.lexicographicallyPrecedes($1.term.utf8) }
        for entry in terms {
            try statement.execute(arguments: [entry.length, entry.term, String(String.UnicodeScalarView(entry.term.unicodeScalars.reversed())), entry.places])
        }
        typoTerms.removeAll()
    }

    /// Adds or replaces one GeoNames city in the reverse-geocoding table; it is found by position once
    /// ``finishSource(_:kind:places:cities:)`` runs. Its searchable ``Place`` (id `geonames:N`, kind
    /// `.city`) is inserted separately.
    public func insert(_ city: IndexedCity, source: String) throws {
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO city (geonameid, source, name, ascii_name, lat, lon, feature_code, country_code, admin1,
                population, time_zone)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                city.geonameID, source, city.name, city.asciiName, city.coordinate.latitude, city.coordinate.longitude,
                city.featureCode, city.countryCode, city.admin1, city.population, city.timeZone,
            ])
    }

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

    private(set) var best: [String: [Entry]] = [:]

    mutating func add(place: Int64, firstWord: String, importance: Double) {
        var prefix = String.UnicodeScalarView()
        for scalar in firstWord.unicodeScalars.prefix(Self.longestPrefix) {
            prefix.append(scalar)
            Self.offer(Entry(importance: importance, place: place), to: &best[String(prefix), default: []])
        }
    }

    /// Keeps `entry` if the list has room or it beats the list's least important place.
    private static func offer(_ entry: Entry, to entries: inout [Entry]) {
        if entries.count < perPrefix {
            entries.append(entry)
        } else if let weakest = entries.indices.min(by: { entries[$0].importance < entries[$1].importance }),
                  entries[weakest].importance < entry.importance {
            entries[weakest] = entry
        }
    }
}

/// One place's row and searchable words, computed from the place alone (no database), so that imports can
/// prepare places on every core and hand them to ``PlaceIndexWriter/insert(_:)-(PreparedPlace)`` in order.
public struct PreparedPlace: Sendable {
    let id: String
    let kind: IndexedPlaceKind
    let importance: Double
    /// The row's values in the order of the writer's INSERT, without `imported_at`.
    let values: [DatabaseValue]
    /// The words of names and streets typo correction may correct to: 4 to 40 letters, no digits. Picked
    /// here, on the preparing thread, so the inserting thread only counts them.
    let typoTerms: [String]
    let firstNameWord: String?

    /// The parameters are those of ``PlaceIndexWriter/insert(_:kind:source:keywords:alternateNames:importance:)``.
    public init(_ place: Place, kind: IndexedPlaceKind, source: String, keywords: [String] = [], alternateNames: [String] = [],
                importance: Double = 0) {
        let a = place.address
        let nameWords = SearchText.words(place.name)
        var typoWords: [[String]] = []
        // Each name's words between bars ("| tukholma | stokholm | rkioski |"): the tokenizer ignores the
        // bars, and a search can tell a whole-name match from a match of some words with one `instr`.
        var names: [String] = []
        for alternate in alternateNames {
            let words = SearchText.words(alternate)
            names.append(words.joined(separator: " "))
            names += SearchText.joinedForms(words)
            typoWords.append(words)
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
            for part in [a.unit, a.district, a.city] { if let part { addressWords += SearchText.words(part) } }
        }
        let values: [(any DatabaseValueConvertible)?] = [
            place.id.description, source, kind.rawValue, place.name, TextFolding.fold(place.name),
            place.coordinate.latitude, place.coordinate.longitude, place.category,
            place.categories.joined(separator: "\n"), place.brand, place.brand.map(TextFolding.fold),
            place.phone, place.website, place.openingHoursText, place.timeZone,
            a?.houseNumber, a?.street, a?.unit, a?.postcode, a?.city, a?.district, a?.region, a?.countryCode,
            place.attribution, keywords.joined(separator: " "), alternateNames.joined(separator: "\n"),
            nameWords.joined(separator: " "), searchAlt,
            Self.unique(addressWords).joined(separator: " "), importance,
        ]
        self.id = place.id.description
        self.kind = kind
        self.importance = importance
        self.values = values.map { $0?.databaseValue ?? .null }
        self.typoTerms = typoWords.joined().filter(Self.isTypoTerm)
        self.firstNameWord = nameWords.first
    }

    /// Whether typo correction may correct to `word`: 4 to 40 letters, no digits.
    static func isTypoTerm(_ word: String) -> Bool {
        if word.utf8.allSatisfy({ $0 < 0x80 }) {
            return (4...40).contains(word.utf8.count) && !word.utf8.contains { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
        return (4...40).contains(word.unicodeScalars.count) && !word.unicodeScalars.contains { $0.properties.numericType != nil }
    }

    private static func unique(_ words: [String]) -> [String] {
        var seen = Set<String>()
        return words.filter { seen.insert($0).inserted }
    }
}
