import Foundation
import PlacesApp
import PlacesCore
import SpotStore
import Testing

/// SPOT.* server replies are the CLI's `--json` output, on the same database, in both directions.
@Suite("SPOT.* server replies")
struct SpotsServerReplyTests {
    func handler(for cli: CLIHarness) throws -> SpotCommandHandler {
        SpotCommandHandler(spots: try SpotsService.open(PlacesEnvironment.resolve(variables: ["PLACES_HOME": cli.home.path])))
    }

    @Test func repliesMatchTheCLIsJSONAndWritesAreSharedBothWays() async throws {
        let cli = try CLIHarness.fresh()
        let server = try handler(for: cli)
        // A write from the server is visible to the CLI …
        let added = try #require(try await server.reply("SPOT.ADD", ["Ateneum", "60.1702", "24.9441", "CATEGORY", "museum", "TAG", "art", "RATING", "like"]))
        let addedSpot = try #require(try JSONSerialization.jsonObject(with: added) as? [String: Any])
        let id = try #require(addedSpot["id"] as? String)
        let shown = try cli.run("spots", "show", id, "--json")
        #expect(shown.status == 0 && shown.stdout == added + Data("\n".utf8))
        // … and the CLI's writes are visible to the server.
        #expect(try cli.run("spots", "add", "--no-address", "--at", "60.1700,24.9522", "--name", "Helsinki Cathedral").status == 0)
        #expect(try cli.run("spots", "log", "--spot", String(id.prefix(8)), "--note", "Late show", "--time", "2026-05-02T00:30:00+03:00").status == 0)

        let pairs: [([String], String, [String])] = [
            (["spots", "list", "--json"], "SPOT.LIST", []),
            (["spots", "list", "--rating", "like", "--json"], "SPOT.LIST", ["RATING", "like"]),
            (["spots", "near", "--at", "60.1700,24.9410", "--json"], "SPOT.NEAR", ["60.1700", "24.9410"]),
            (["spots", "nearest", "--at", "60.1700,24.9600", "--limit", "1", "--json"], "SPOT.NEAREST", ["60.1700", "24.9600", "LIMIT", "1"]),
            (["spots", "visits", "--day", "2026-05-02", "--json"], "SPOT.VISITS", ["DAY", "2026-05-02"]),
        ]
        for (cliArguments, command, arguments) in pairs {
            let printed = try cli.run(arguments: cliArguments)
            #expect(printed.status == 0)
            #expect(try await server.reply(command, arguments).map { $0 + Data("\n".utf8) } == printed.stdout, "\(command) \(arguments)")
        }
        let logged = try #require(try await server.reply("SPOT.LOG", ["AT", "60.1675", "24.9525", "NOTE", "Coffee", "TIME", "2026-05-02T09:00:00+03:00"]))
        #expect(String(decoding: logged, as: UTF8.self).contains("\"day\":\"2026-05-02\""))
        let days = try #require(try JSONSerialization.jsonObject(with: cli.run("spots", "visits", "--day", "2026-05-02", "--json").stdout) as? [[String: Any]])
        #expect((days.first?["visits"] as? [Any])?.count == 2)
    }

    @Test func unknownSpotsAreMissesAndBadArgumentsAreOneLineErrors() async throws {
        let server = try handler(for: try CLIHarness.fresh())
        #expect(try await server.reply("SPOT.SHOW", ["0123abcd"]) == nil)
        await #expect(throws: InputError.self) { try await server.reply("SPOT.NEAR", ["60.17"]) }
        await #expect(throws: InputError.self) { try await server.reply("SPOT.NEAR", ["60.17", "24.94", "RADIUS", "-3"]) }
        await #expect(throws: InputError.self) { try await server.reply("SPOT.ADD", ["", "60.17", "24.94"]) }
        await #expect(throws: InputError.self) { try await server.reply("SPOT.LOG", ["NOTE", "nowhere"]) }
        await #expect(throws: InputError.self) { try await server.reply("SPOT.LIST", ["SORT", "distance"]) }
    }
}
