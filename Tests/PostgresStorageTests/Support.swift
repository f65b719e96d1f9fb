import Foundation
import PostgresStorage
import PostgresTestCluster
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs where a test cluster is configured, and always in CI (where no cluster is a failure); elsewhere a
    /// named skip.
    static var needsPostgres: Self {
        .enabled(if: PostgresTestCluster.isAvailable, Comment(rawValue: PostgresTestCluster.skipReason))
    }
}

/// Generous: on a 2-core machine running the whole suite, other tests' blocking work can starve these for minutes;
/// the tests check behaviour, not speed (the benchmarks do that), and a real hang still fails.
let testTimeout: Duration = .seconds(300)

/// Opens a fresh database on the test cluster (migrated), runs `body`, closes the pool.
func withFreshDatabase<T>(poolSize: Int = 4, _ body: (SharedDatabase) async throws -> T) async throws -> T {
    let url = try await PostgresTestCluster.freshDatabase()
    let database = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: poolSize, timeout: testTimeout))
    defer { database.close() }
    return try await body(database)
}

/// A clock tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date) { current = start }

    var now: Date { lock.withLock { current } }
    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
    func set(_ date: Date) { lock.withLock { current = date } }
    var function: @Sendable () -> Date { { self.now } }
}

/// `2026-11-21T22:30:00Z` style instants, written out so the expected values are read, not computed.
func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }
