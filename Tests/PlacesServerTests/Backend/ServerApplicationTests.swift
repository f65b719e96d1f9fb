import Foundation
import LoopbackSocket
import PlacesApp
import PlacesCore
import RESP
import ScratchDirectory
import Testing
@testable import PlacesServer

/// The bundled Helsinki data, indexed once for the whole suite (building the index is the slow part),
/// and the other parts of the application opened on a state directory of each test's own.
actor SharedIndex {
    static let shared = SharedIndex()
    private var service: PlacesApplication?

    func get() async throws -> PlacesApplication {
        if let service { return service }
        let home = try ScratchDirectory.lastingTheProcess("places-server-tests").url
        let environment = PlacesEnvironment.resolve(variables: ["PLACES_HOME": home.path])
        // Building the index blocks for seconds: keep it off the threads the servers' tasks need.
        let opened = try await offPool { () throws -> PlacesApplication in
            let app = try PlacesApplication.open(environment)
            try app.openLocalIndex()  // built now, so `application(home:)` copies it
            return app
        }
        service = opened
        return opened
    }

    /// The whole application as `places serve` opens it, on `home`: the shared index (its file copied
    /// there, so nothing is built again), and the lookup pipeline (no paid provider is configured, so it
    /// answers from the local index), cache, ledger and spots of `home`'s own.
    func application(home: URL) async throws -> ServerApplication {
        let shared = try await get()
        let environment = PlacesEnvironment.resolve(variables: ["PLACES_HOME": home.path])
        try environment.createDirectories()
        for suffix in ["", "-wal"] {  // pages not yet checkpointed live in the WAL
            let source = URL(fileURLWithPath: shared.environment.indexDatabase.path + suffix)
            guard FileManager.default.fileExists(atPath: source.path) else { continue }
            try FileManager.default.copyItem(at: source, to: URL(fileURLWithPath: environment.indexDatabase.path + suffix))
        }
        let app = try await offPool { () throws -> PlacesApplication in
            let app = try PlacesApplication.open(environment)
            try app.openLocalIndex()
            return app
        }
        return ServerApplication(places: .success(app), lookup: .success(app), spots: .success(try app.spots))
    }
}

/// A state directory for one test's server, removed when the test process exits (the server's stores stay
/// open on it until the test ends).
func scratchHome() throws -> URL {
    try ScratchDirectory.lastingTheProcess("places-server-home").url
}

/// Every application command through a real socket with the real application behind it. Expected
/// values are hand-checked facts about the bundled Helsinki extract, or the service's own JSON where the
/// point is that the server adds nothing (the CLI parity test compares with the binary's output).
@Suite(.serialized) struct ServerApplicationTests {
    @Test(.requiresRedisCLI) func searchOverRedisCLIPrintsTheSameJSONAsTheService() async throws {
        let service = try await SharedIndex.shared.get()
        let server = try await TestServer.start(commands: .places(try await SharedIndex.shared.application(home: try scratchHome())))
        let near = Coordinate(latitude: 60.1721, longitude: 24.9450)
        let places = try await service.search(SearchQuery(text: "maya bar", near: near)).places
        #expect(places.first?.name.hasPrefix("Maya Bar") == true, "the bundled Helsinki extract knows Maya Bar & Grill")
        let expected = String(decoding: try PlacesJSON.places(places, reference: near), as: UTF8.self)
        let output = try await RedisCLI.run(port: server.port, ["SEARCH", "maya bar", "NEAR", "60.1721", "24.9450"])
        #expect(output == expected + "\n")
        let client = try RawClient(port: server.port)
        try client.send("SEARCH \"maya bar\" NEAR 60.1721 24.9450\r\n")
        #expect(try await client.reply().text == expected)
        try await server.stop()
    }

    @Test func detailsReverseAndMissesMatchTheService() async throws {
        let service = try await SharedIndex.shared.get()
        let server = try await TestServer.start(commands: .places(try await SharedIndex.shared.application(home: try scratchHome())))
        let id = try #require(try await service.search(SearchQuery(text: "maya bar")).places.first?.id)
        let details = String(decoding: try PlacesJSON.place(try await service.details(id)), as: UTF8.self)
        let point = Coordinate(latitude: 60.1699, longitude: 24.9384)
        let reverse = String(decoding: try PlacesJSON.reverse(try await service.reverse(point)), as: UTF8.self)
        let client = try RawClient(port: server.port)
        try client.send("DETAILS \(id)\r\nDETAILS osm:node/1\r\nDETAILS google:ChIJnope\r\nREVERSE 60.1699 24.9384\r\nREVERSE -60 -120\r\n")
        let replies = try await client.replies(5)
        #expect(replies[0].text == details)
        #expect(replies[1] == .null)
        #expect(replies[2] == .null)
        #expect(replies[3].text == reverse)
        #expect(replies[3].text?.contains(#""city":"Helsinki""#) == true, "\(replies[3])")
        #expect(replies[4] == .null, "nothing is known in the Southern Ocean")
        // A repeat comes from memory, not the index, with the same bytes.
        try client.send("DETAILS \(id)\r\n")
        #expect(try await client.reply().text == details)
        #expect(server.server.memo.statistics.hits == 1)
        try await server.stop()
    }

    /// NEARBY, SUGGEST, SCORE, LOOKUP, CACHE.STATS and BUDGET against the real index, pipeline, cache
    /// and ledger: what each says about Helsinki was checked by hand on the extract.
    @Test func everyOtherApplicationCommandAnswersFromTheRealApplication() async throws {
        let server = try await TestServer.start(commands: .places(try await SharedIndex.shared.application(home: try scratchHome())))
        let client = try RawClient(port: server.port)
        // Replies come back in order, but calls run concurrently: the counters are asked before and after
        // the lookups, each time once the replies before them are in.
        try client.send("CACHE.STATS\r\n")
        let fresh = try await client.reply()
        try client.send("NEARBY 60.1721 24.9450 RADIUS 50 CATEGORY bar\r\nSUGGEST kias\r\nSCORE \"Maya Bar\" \"Bar Maya\"\r\n"
            + "PING\r\nLOOKUP Kiasma NEAR 60.1717 24.9363\r\nLOOKUP \"Zzyzx Qwerty Plaza\" NEAR 60.17 24.94\r\n")
        let replies = try await client.replies(6)
        try client.send("CACHE.STATS\r\nBUDGET\r\n")
        let counters = try await client.replies(2)
        func json(_ reply: RESPValue) throws -> Any {
            let text = try #require(reply.text, "\(reply)")
            return try JSONSerialization.jsonObject(with: Data(text.utf8))
        }
        func object(_ reply: RESPValue) throws -> [String: Any] {
            try #require(try json(reply) as? [String: Any], "\(reply)")
        }
        let nearby = try #require(try json(replies[0]) as? [[String: Any]])
        #expect(!nearby.isEmpty, "there are bars on Mikonkatu")
        #expect(nearby.allSatisfy { $0["category"] as? String == "bar" && ($0["distance_m"] as? Double ?? 99) <= 50 }, "\(nearby)")
        let suggestions = try #require(try json(replies[1]) as? [[String: Any]])
        #expect(suggestions.first?["text"] as? String == "Kiasma")
        #expect(try object(replies[2])["verdict"] as? String == "review", "the same name and nothing else to corroborate it")
        #expect(try object(fresh)["entries"] as? Int == 0, "a fresh cache")
        let kiasma = try object(replies[4])
        #expect(kiasma["name"] as? String == "Kiasma")
        #expect(kiasma["found"] as? Bool == true)
        #expect(replies[5] == .null, "no source knows the place: a miss, not an error")
        #expect(try object(counters[0])["answers"] as? Int == 1, "Kiasma's answer was cached: \(counters[0])")
        let budget = try object(counters[1])
        #expect((budget["overall_today"] as? [String: Any])?["spent_usd"] as? Double == 0, "nothing paid was asked: \(budget)")
        #expect(budget["providers"] as? [Any] != nil)
        #expect(server.server.memo.statistics.entries == 3, "NEARBY, SUGGEST and SCORE are kept; lookups, counters and budget never")
        try await server.stop()
    }

    /// A part of the application that failed to open names itself and the reason in every reply of
    /// its commands; the other commands still serve.
    @Test func aPartThatDidNotOpenSaysWhyAndTheRestServe() async throws {
        var application = try await SharedIndex.shared.application(home: try scratchHome())
        application.spots = .failure(.notOpened("cannot use /nowhere/spots.sqlite: read-only file system\n(errno 30)"))
        let server = try await TestServer.start(commands: .places(application))
        let client = try RawClient(port: server.port)
        try client.send("SPOT.LIST\r\nspot.near 60.17 24.94\r\nREVERSE 60.1699 24.9384\r\n")
        let replies = try await client.replies(3)
        #expect(replies[0] == .error("ERR SPOT.LIST cannot run: cannot use /nowhere/spots.sqlite: read-only file system (errno 30); fix that and restart the server"))
        #expect(replies[1] == .error("ERR SPOT.NEAR cannot run: cannot use /nowhere/spots.sqlite: read-only file system (errno 30); fix that and restart the server"))
        #expect(replies[2].text?.contains("Helsinki") == true)
        try await server.stop()
    }
}
