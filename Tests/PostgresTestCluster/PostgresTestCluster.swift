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

/// A cluster of one test's own (`cluster.sh start` on a free port, in a directory of its own), for a test that
/// stops and restarts PostgreSQL: pausing the shared cluster would fail every other test running at the same time.
/// ``stop()`` removes its data directory.
///
/// `cluster.sh`'s output goes to a file, never a pipe: a process spawned meanwhile (another test's server, the
/// postmaster itself) may inherit a pipe's write end and keep it open, so reading a pipe to its end could wait for
/// ever. Each verb is waited for by its exit status, and `pg_ctl -w` inside the script waits for the server.
public final class PrivateCluster: Sendable {
    /// `postgres://places@127.0.0.1:PORT/postgres`.
    public let url: String
    /// The cluster's directory (data, log, port), removed by ``stop()``.
    public let directory: String

    private init(url: String, directory: String) {
        self.url = url
        self.directory = directory
    }

    /// Starts a new cluster (initdb, then the server: a few seconds, longer on a loaded machine).
    public static func start() throws -> PrivateCluster {
        let output = try run("start")
        func value(_ name: String) -> String? {
            output.split(separator: "\n").first { $0.hasPrefix("export \(name)=") }
                .map { String($0.dropFirst("export \(name)=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
        }
        guard let url = value(PostgresTestCluster.environmentVariable), let directory = value("PLACES_TEST_CLUSTER_DIR") else {
            throw ClusterControlFailed(verb: "start (no URL in its output: \(output))", status: 0)
        }
        return PrivateCluster(url: url, directory: directory)
    }

    /// Stops the server (`pg_ctl -m fast -w stop`: open transactions roll back), keeping its data.
    public func pause() throws { _ = try Self.run("pause", directory) }
    /// Starts it again on the same port and returns once it accepts connections.
    public func resume() throws { _ = try Self.run("resume", directory) }
    /// Stops it and removes its directory.
    public func stop() { _ = try? Self.run("stop", directory) }

    /// Runs `cluster.sh arguments…`, waits for it to exit, and returns what it printed on stdout.
    private static func run(_ arguments: String...) throws -> String {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("cluster.sh").path
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("places-cluster-\(UUID().uuidString).out")
        guard FileManager.default.createFile(atPath: outputURL.path, contents: nil) else {
            throw ClusterControlFailed(verb: "\(arguments[0]) (cannot create \(outputURL.path))", status: 0)
        }
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let output = try FileHandle(forWritingTo: outputURL)
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        let printed = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw ClusterControlFailed(verb: "\(arguments[0]): \(printed.suffix(2_000))", status: process.terminationStatus)
        }
        return printed
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
