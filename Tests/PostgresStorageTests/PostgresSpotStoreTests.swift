import Foundation
import PlacesCore
@testable import PostgresStorage
import PostgresTestCluster
import SpotStore
import Testing

/// What only the PostgreSQL spot store must show; everything a spot store does is in the shared contract suite
/// (`Tests/SpotStoreTests/SpotStoreContract.swift`), which runs against PostgreSQL too.
@Suite(.needsPostgres) struct PostgresSpotStoreTests {
    /// The Helsinki Cathedral and the Market Square, 278 m apart (0.0025° of latitude).
    let cathedral = Spot(name: "Helsinki Cathedral", coordinate: Coordinate(latitude: 60.17000, longitude: 24.95220))
    let marketSquare = Spot(name: "Market Square", coordinate: Coordinate(latitude: 60.16750, longitude: 24.95250))

    @Test func concurrentEditsOfOneSpotFromTwoPoolsLoseNothing() async throws {
        let url = try await PostgresTestCluster.freshDatabase()
        let first = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 4, timeout: testTimeout))
        let second = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 4, timeout: testTimeout))
        defer { first.close(); second.close() }
        let stores = [PostgresSpotStore(database: first), PostgresSpotStore(database: second)]
        try await stores[0].add(cathedral)
        let id = cathedral.id.storeKey
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask { _ = try await stores[index % 2].update(id, now: Date()) { $0.tags.append("t\(index)") } }
            }
            try await group.waitForAll()
        }
        let tags = try #require(try await stores[1].spot(id: cathedral.id)).tags
        #expect(Set(tags) == Set((0..<20).map { "t\($0)" }))
    }

    /// An edit still waiting for its row when the storage timeout ends it fails with ``StorageUnavailable`` and saves
    /// nothing. The request's own task still holds the edit's closure then; when the store lent it out as
    /// non-escaping, that trapped the whole process ("closure argument was escaped in withoutActuallyEscaping
    /// block"), as it could even after a successful edit whose task had not yet let go of it.
    @Test func anEditThatOutlivesTheTimeoutFailsAndSavesNothing() async throws {
        let url = try await PostgresTestCluster.freshDatabase()
        let holder = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 1, timeout: testTimeout))
        let editor = try SharedDatabase(PostgresStorageConfiguration(url: url, poolSize: 1, timeout: .seconds(1)))
        defer { holder.close(); editor.close() }
        try await PostgresSpotStore(database: holder).add(cathedral)
        let id = cathedral.id.storeKey
        let (locked, announceLocked) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let holding = Task {
            try await holder.withTransaction { connection in
                try await connection.query("SELECT 1 FROM spot WHERE id = \(id) FOR UPDATE", logger: PostgresSpotStore.logger)
                announceLocked.yield()
                for await _ in released { break }
            }
        }
        for await _ in locked { break }
        await #expect(throws: StorageUnavailable.self) {
            try await PostgresSpotStore(database: editor).update(id) { $0.tags.append("late") }
        }
        release.yield()
        try await holding.value
        #expect(try await PostgresSpotStore(database: holder).spot(id: cathedral.id)?.tags == cathedral.tags)
    }

    @Test func nearIsAnsweredByThePointIndex() async throws {
        try await withFreshDatabase { database in
            let store = PostgresSpotStore(database: database)
            try await store.add([cathedral, marketSquare])
            let hits = try await store.near(cathedral.coordinate, radius: 805, limit: nil)
            #expect(hits.map(\.spot.name) == ["Helsinki Cathedral", "Market Square"])
            #expect(hits[1].distance > 270 && hits[1].distance < 290)
            // Plain PostgreSQL 15, no PostGIS: the planner answers the box test with the GiST index on point(lon, lat).
            let plan = try await database.explain("""
                SELECT rowid FROM spot WHERE point(lon, lat) <@ box(point(24.94, 60.16), point(24.96, 60.18))
                """)
            #expect(plan.contains("spot_point"))
        }
    }
}
