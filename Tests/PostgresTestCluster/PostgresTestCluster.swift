import Foundation
import Logging
import PostgresNIO
import PostgresStorage

/// The PostgreSQL cluster the tests use: the one `cluster.sh start` (beside this file) started, found through
/// `PLACES_TEST_DATABASE_URL`. `.ci/run` always starts one.
///
/// Tests that need it are enabled when the URL is set, and also whenever `CI=true`: in CI a missing or unreachable
/// cluster is a failure, never a skip. On a developer machine without the URL they are skipped with
/// ``skipReason``, which swift-testing prints.
///
/// ```swift
/// @Test(.enabled(if: PostgresTestCluster.isAvailable, Comment(rawValue: PostgresTestCluster.skipReason)))
/// func reservesAtomically() async throws {
///     let url = try await PostgresTestCluster.freshDatabase()
///     …
/// }
/// ```
public enum PostgresTestCluster {
    public static let environmentVariable = "PLACES_TEST_DATABASE_URL"

    /// The cluster's URL as exported by `cluster.sh start`.
    public static var url: String? {
        ProcessInfo.processInfo.environment[environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `CI=true`: PostgreSQL tests must run (and fail without a cluster).
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Whether PostgreSQL tests run at all.
    public static var isAvailable: Bool { url != nil || isCI }

    public static let skipReason = """
        PostgreSQL tests skipped: PLACES_TEST_DATABASE_URL is not set; start a throwaway cluster with \
        eval "$(bash Tests/PostgresTestCluster/cluster.sh start)"
        """

    /// A new, empty database on the cluster, so each test starts from nothing and tests run in parallel.
    /// - Throws: ``ClusterMissing`` in CI without a URL, or whatever connecting to the cluster throws.
    public static func freshDatabase(_ label: String = "t") async throws -> PostgresURL {
        guard let text = url else { throw ClusterMissing() }
        var admin = try PostgresURL(parsing: text)
        let name = "places_\(label)_\(UUID().uuidString.prefix(8).lowercased())"
        let connection = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                host: admin.host, port: admin.port, username: admin.user, password: admin.password, database: admin.database,
                tls: .disable),
            id: 1, logger: Logger(label: "places.test-cluster"))
        defer { Task { try? await connection.close() } }
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE template0"), logger: Logger(label: "places.test-cluster"))
        admin.database = name
        return admin
    }

    /// For the store contract suites: creates a fresh database and returns an opener; each call of the opener gives
    /// an independent pool on it, as another process would open it. Generous timeouts: on a busy 2-core machine the
    /// whole suite's blocking tests can starve these for minutes, and they check behaviour, not speed.
    public static func freshStorage() async throws -> @Sendable () async throws -> SharedDatabase {
        let url = try await freshDatabase()
        return { try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 4, timeout: .seconds(300))) }
    }
}

public struct ClusterMissing: Error, CustomStringConvertible {
    public var description: String {
        "CI=true but PLACES_TEST_DATABASE_URL is not set: .ci/run starts the cluster (Tests/PostgresTestCluster/cluster.sh start)"
    }
}

public struct ClusterControlFailed: Error, CustomStringConvertible {
    public var verb: String
    public var status: Int32
    public var description: String { "cluster.sh \(verb) failed with status \(status)" }
}
