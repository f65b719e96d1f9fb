import Foundation
import PostgresTestCluster
import Testing

/// `places storage migrate` as a user runs it: a home's spots and visits move into PostgreSQL, a second run copies
/// nothing twice, and a bad or unreachable URL is one line.
@Suite(.enabled(if: PostgresTestCluster.isAvailable, Comment(rawValue: PostgresTestCluster.skipReason)))
struct StorageMigrateCLITests {
    @Test func aHomesSpotsAndVisitsMoveOnceAndReadBackTheSame() async throws {
        let url = try await PostgresTestCluster.freshDatabase("migrate").description
        let cli = try CLIHarness.fresh()
        #expect(try await cli.run("spots", "add", "--at", "60.1700,24.9522", "--name", "Helsinki Cathedral", "--no-address", "--tag", "sights").status == 0)
        #expect(try await cli.run("spots", "add", "--at", "60.1675,24.9525", "--name", "Market Square", "--no-address").status == 0)
        #expect(try await cli.run("spots", "log", "--at", "60.1675,24.9525", "--note", "Salmon soup", "--time", "2026-05-01T12:00:00+03:00").status == 0)

        let first = try await cli.run("storage", "migrate", "--to", url)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdoutText.contains("spots: 2 copied, 0 already there"), "\(first.stdoutText)")
        #expect(first.stdoutText.contains("visits: 1 copied, 0 already there"), "\(first.stdoutText)")
        let second = try await cli.run("storage", "migrate", "--to", url)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdoutText.contains("spots: 0 copied, 2 already there"), "\(second.stdoutText)")
        #expect(second.stdoutText.contains("visits: 0 copied, 1 already there"), "\(second.stdoutText)")

        // Another home pointed at the database lists the same spots and visits, byte for byte.
        let shared = try CLIHarness.fresh()
        for command in [["spots", "list", "--json"], ["spots", "visits", "--json"]] {
            let moved = try await shared.run(arguments: command, environment: ["PLACES_DATABASE_URL": url])
            #expect(moved.status == 0, "\(moved.stderr)")
            #expect(moved.stdout == (try await cli.run(arguments: command)).stdout, "\(command)")
        }
    }

    @Test func aURLThatIsNotPostgresIsOneLine() throws {
        let cli = try CLIHarness.fresh()
        let result = try cli.run("storage", "migrate", "--to", "mysql://root:hunter2@db/places")
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2"))
    }

    @Test func anUnreachableDatabaseIsOneLineNamingIt() throws {
        let cli = try CLIHarness.fresh()
        #expect(try cli.run("spots", "add", "--at", "60.1700,24.9522", "--name", "Here", "--no-address").status == 0)
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let result = try cli.run("storage", "migrate", "--to", "postgres://places:hunter2@127.0.0.1:1/places?connect_timeout=5")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("places: storage unavailable: PostgreSQL at 127.0.0.1:1"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2"))
    }
}
