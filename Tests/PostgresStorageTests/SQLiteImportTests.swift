import BudgetLedger
import Foundation
import LookupCache
import PlacesCore
import PostgresStorage
import PostgresTestCluster
import ScratchDirectory
import SpotStore
import Testing

/// `places storage migrate`: a home's SQLite cache, ledger and spots copied into PostgreSQL read back the same
/// through the PostgreSQL stores, and copying twice changes nothing.
@Suite(.needsPostgres) struct SQLiteImportTests {
    /// Helsinki is UTC+2 in November: 10:00 UTC on 21 November is the 21st there.
    let policy = BudgetPolicy(timeZone: TimeZone(identifier: "Europe/Helsinki")!,
                              providers: ["google": BudgetLimits(perDay: MicroDollars(100_000), perMonth: MicroDollars(900_000))])
    let now = instant("2026-11-21T10:00:00Z")

    /// A home with two spots (one attached to a place), two visits, three charges (two settled, one refunded),
    /// a limit and one cache entry, written through the SQLite stores as the CLI writes them.
    func makeHome() async throws -> SQLiteImport.Files {
        let home = try ScratchDirectory.lastingTheProcess("places-migrate").url
        let files = SQLiteImport.Files(cache: home.appendingPathComponent("cache.sqlite"),
                                       ledger: home.appendingPathComponent("budget.sqlite"),
                                       spots: home.appendingPathComponent("spots.sqlite"))
        let now = now
        let clock: @Sendable () -> Date = { now }
        let spots = try SQLiteSpotStore(path: files.spots)
        let cathedral = Spot(name: "Helsinki Cathedral", coordinate: Coordinate(latitude: 60.17000, longitude: 24.95220),
                             category: "church", tags: ["sights", "white"], notes: "steps", rating: .like,
                             createdAt: now, placeIDs: [try PlaceID(parsing: "osm:way/8042215")])
        let market = Spot(name: "Market Square", coordinate: Coordinate(latitude: 60.16750, longitude: 24.95250), createdAt: now)
        try await spots.add([cathedral, market])
        try await spots.log(Visit(spotID: cathedral.id, time: now, timeZone: "Europe/Helsinki", coordinate: cathedral.coordinate, note: "first"))
        try await spots.log(Visit(time: now + 60, timeZone: "Europe/Helsinki", coordinate: Coordinate(latitude: 60.1, longitude: 24.9)))

        let ledger = try SQLiteBudgetLedger(path: files.ledger, policy: policy, clock: clock)
        try await ledger.setLimits(provider: "google", perDay: MicroDollars?.some(MicroDollars(100_000)), perMonth: MicroDollars?.some(MicroDollars(900_000)))
        let quote = PriceQuote(sku: "google.places.text", cost: MicroDollars(32_000))
        for settle in [true, true, false] {
            guard case .granted(let reservation) = try await ledger.reserve(provider: "google", quote: quote) else {
                Issue.record("a reservation under the limit was denied"); continue
            }
            if settle { try await ledger.settle(reservation) } else { try await ledger.refund(reservation) }
        }

        let cache = try SQLiteLookupCacheStore(path: files.cache, clock: clock)
        try await cache.store(key: "lookup|cafe engel", kind: CacheEntryKind.answer, payload: Data("{\"name\":\"Cafe Engel\"}".utf8),
                              providers: ["google"], ttl: 86_400)
        return files
    }

    @Test func spotsVisitsAndTheMonthsSpendAreTheSameAfterTheMove() async throws {
        let files = try await makeHome()
        let now = now
        let clock: @Sendable () -> Date = { now }
        let sqliteSpots = try SQLiteSpotStore(path: files.spots)
        let sqliteLedger = try SQLiteBudgetLedger(path: files.ledger, policy: policy, clock: clock)

        try await withFreshDatabase { database in
            let report = try await SQLiteImport.copy(files, into: database)
            #expect(report.spots == .init(copied: 2, skipped: 0))
            #expect(report.visits == .init(copied: 2, skipped: 0))
            #expect(report.charges == .init(copied: 3, skipped: 0))
            #expect(report.limits.copied >= 1)
            #expect(report.cacheEntries == .init(copied: 1, skipped: 0))

            let spots = PostgresSpotStore(database: database)
            #expect(try await spots.list() == (try await sqliteSpots.list()))
            #expect(try await spots.visits() == (try await sqliteSpots.visits()))
            #expect(try await spots.spots(attachedTo: try PlaceID(parsing: "osm:way/8042215")).map(\.name) == ["Helsinki Cathedral"])

            let ledger = PostgresBudgetLedger(database: database, policy: policy, clock: clock)
            let moved = try await ledger.report()
            // Two settled calls of 32,000: 64,000 spent today and this month, the refunded one not counted.
            #expect(moved.overallMonth.spent == MicroDollars(64_000))
            #expect(moved.overallToday.spent == MicroDollars(64_000))
            #expect(moved == (try await sqliteLedger.report()))

            let cache = PostgresLookupCache(database: database, clock: clock)
            let entry = try #require(try await cache.entry(for: "lookup|cafe engel"))
            #expect(String(decoding: entry.payload, as: UTF8.self) == "{\"name\":\"Cafe Engel\"}")

            // Again: nothing new, nothing counted twice.
            let again = try await SQLiteImport.copy(files, into: database)
            #expect(again.spots == .init(copied: 0, skipped: 2))
            #expect(again.visits == .init(copied: 0, skipped: 2))
            #expect(again.charges == .init(copied: 0, skipped: 3))
            #expect(again.cacheEntries == .init(copied: 0, skipped: 1))
            #expect(try await ledger.report().overallMonth.spent == MicroDollars(64_000))
            #expect(try await spots.count() == 2)
        }
    }

    @Test func aHomeWithoutFilesCopiesNothing() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("places-migrate-empty-\(UUID().uuidString)")
        let files = SQLiteImport.Files(cache: empty.appendingPathComponent("cache.sqlite"),
                                       ledger: empty.appendingPathComponent("budget.sqlite"),
                                       spots: empty.appendingPathComponent("spots.sqlite"))
        try await withFreshDatabase { database in
            let report = try await SQLiteImport.copy(files, into: database)
            #expect(report == SQLiteImport.Report())
        }
    }
}
