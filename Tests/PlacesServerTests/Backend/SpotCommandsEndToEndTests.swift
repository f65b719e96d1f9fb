import Foundation
import PlacesApp
import PlacesCore
import RESP
import SpotStore
import Testing
@testable import PlacesServer

/// SPOT.* over the real protocol on a real `spots.sqlite`, wired as `places serve` wires it: what the
/// server writes the CLI's store path reads, and the other way round, with the same JSON bytes.
@Suite(.serialized) struct SpotCommandsEndToEndTests {
    @Test func spotsAddedOnEitherSideAreSeenOnTheOther() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("places-spot-server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = PlacesEnvironment.resolve(variables: ["PLACES_HOME": home.path])
        let server = try await TestServer.start(commands: .places(try await SharedIndex.shared.application(home: home)))
        // A generous read deadline: it only bounds a failure; under a starved 2-core pool the first SPOT.ADD (which
        // opens spots.sqlite) took longer than the default 10 s in CI-style runs.
        let client = try RawClient(port: server.port)

        // Server → store: a spot saved with SPOT.ADD is in the database the CLI opens.
        try client.send("*6\r\n$8\r\nSPOT.ADD\r\n$12\r\nCafe Regatta\r\n$7\r\n60.1830\r\n$7\r\n24.9096\r\n$3\r\nTAG\r\n$6\r\ncoffee\r\n")
        let added = try #require(try await client.reply().text)
        let cli = try SpotsService.open(environment)  // opened afresh, as `places spots list` does
        let afterAdd = try await cli.list()
        #expect(afterAdd.map(\.name) == ["Cafe Regatta"])
        #expect(afterAdd.first?.tags == ["coffee"])
        #expect(added == String(decoding: try PlacesJSON.spot(try #require(afterAdd.first)), as: UTF8.self))
        try client.send("SPOT.LIST\r\n")
        #expect(try await client.reply().text == String(decoding: try PlacesJSON.spots(afterAdd), as: UTF8.self))

        // Store → server: a spot added through SpotsService shows up in the next SPOT.LIST (nothing memoised).
        let sauna = try await cli.add(Spot(name: "Löyly", coordinate: Coordinate(latitude: 60.1521, longitude: 24.9417), category: "sauna"))
        try client.send("SPOT.LIST\r\nSPOT.SHOW \(sauna.id.storeKey)\r\nSPOT.SHOW 00000000-0000-0000-0000-000000000000\r\nSPOT.ADD x 95 0\r\n")
        let replies = try await client.replies(4)
        let bothSpots = try await cli.list()
        #expect(bothSpots.map(\.name).sorted() == ["Cafe Regatta", "Löyly"])
        #expect(replies[0].text == String(decoding: try PlacesJSON.spots(bothSpots), as: UTF8.self))
        #expect(replies[1].text == String(decoding: try PlacesJSON.spot(sauna), as: UTF8.self))
        #expect(replies[2] == .null)
        #expect(replies[3] == .error("ERR invalid coordinate: latitude 95 is outside -90…90"))
        #expect(server.server.memo.statistics.entries == 0, "spot answers must never be memoised")
        try await server.stop()
    }
}
