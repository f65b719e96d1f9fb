import Foundation
import LoopbackSocket
import PlacesApp
import PlacesCore
import Testing
@testable import PlacesServer

/// One service over the bundled Helsinki data for the whole suite: building the index is the slow part.
actor SharedService {
    static let shared = SharedService()
    private var service: PlacesService?

    func get() async throws -> PlacesService {
        if let service { return service }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("places-server-tests-\(UUID().uuidString)")
        let environment = PlacesEnvironment.resolve(variables: ["PLACES_HOME": home.path])
        // Building the index blocks for seconds: keep it off the threads the servers' tasks need.
        let opened = try await offPool { try PlacesService.open(environment) }
        service = opened
        return opened
    }
}

/// The real backend behind the real protocol: replies must be the CLI's `--json` bytes.
@Suite(.serialized) struct PlacesServiceBackendTests {
    @Test func searchOverRedisCLIPrintsTheSameJSONAsTheCLI() async throws {
        let service = try await SharedService.shared.get()
        let server = try await TestServer.start(backend: PlacesServiceBackend(service: service))
        let near = Coordinate(latitude: 60.1721, longitude: 24.9450)
        let places = try await service.search(SearchQuery(text: "maya bar", near: near))
        #expect(!places.isEmpty, "the bundled Helsinki extract should know Maya Bar")
        let expected = String(decoding: try PlacesJSON.places(places, reference: near), as: UTF8.self)
        if RedisCLI.path != nil {
            let output = try await RedisCLI.run(port: server.port, ["SEARCH", "maya bar", "NEAR", "60.1721", "24.9450"])
            #expect(output == expected + "\n")
        } else {
            print("redis-cli is not installed (apt-get install redis-tools): checking over a raw socket only")
        }
        let client = try RawClient(port: server.port)
        try client.send("SEARCH \"maya bar\" NEAR 60.1721 24.9450\r\n")
        #expect(try await client.reply().text == expected)
        try await server.stop()
    }

    @Test func detailsReverseAndMissesMatchTheService() async throws {
        let service = try await SharedService.shared.get()
        let server = try await TestServer.start(backend: PlacesServiceBackend(service: service))
        let id = try #require(try await service.search(SearchQuery(text: "maya bar")).first?.id)
        let details = String(decoding: try PlacesJSON.place(try await service.details(id)), as: UTF8.self)
        let point = Coordinate(latitude: 60.1699, longitude: 24.9384)
        let reverse = String(decoding: try PlacesJSON.reverse(try await service.reverse(point)), as: UTF8.self)
        let client = try RawClient(port: server.port)
        try client.send("DETAILS \(id)\r\nDETAILS osm:node/1\r\nDETAILS google:ChIJnope\r\nREVERSE 60.1699 24.9384\r\n")
        let replies = try await client.replies(4)
        #expect(replies[0].text == details)
        #expect(replies[1] == .null)
        #expect(replies[2] == .null)
        #expect(replies[3].text == reverse)
        // A repeat comes from memory, not the index, with the same bytes.
        try client.send("DETAILS \(id)\r\n")
        #expect(try await client.reply().text == details)
        #expect(server.server.memo.statistics.hits == 1)
        try await server.stop()
    }

    @Test func commandsWithoutBackingCodeSaySo() async throws {
        let service = try await SharedService.shared.get()
        let server = try await TestServer.start(backend: PlacesServiceBackend(service: service))
        let client = try RawClient(port: server.port)
        try client.send("BUDGET\r\nCACHE.STATS\r\nLOOKUP x\r\nSCORE a b\r\n")
        #expect(try await client.replies(4) == [
            .error("ERR BUDGET is not available in this build"), .error("ERR CACHE.STATS is not available in this build"),
            .error("ERR LOOKUP is not available in this build"), .error("ERR SCORE is not available in this build"),
        ])
        try await server.stop()
    }
}
