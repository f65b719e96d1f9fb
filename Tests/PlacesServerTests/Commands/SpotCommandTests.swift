import Foundation
import PlacesCore
import Testing
@testable import PlacesServer

/// A backend that answers SPOT.* like the spots layer does: JSON for a hit, `nil` for an unknown spot,
/// an `InputError` for bad arguments. It records what reached it, to show the arguments arrive untouched.
private final class SpotRecordingBackend: ServerBackend, @unchecked Sendable {
    private let lock = NSLock()
    private var received: [[String]] = []
    var calls: [[String]] { lock.withLock { received } }

    func spot(_ name: String, _ arguments: [String]) async throws -> Data? {
        lock.withLock { received.append([name] + arguments) }
        switch name {
        case "SPOT.SHOW": return arguments == ["3f2a"] ? Data(#"{"id":"3f2a","name":"Cafe Regatta"}"#.utf8) : nil
        case "SPOT.ADD" where arguments.count > 3 && arguments[3].uppercased() == "COLOUR":
            throw PlacesCore.InputError("SPOT.ADD: syntax error at 'COLOUR'")
        default: return Data(#"[{"id":"3f2a","name":"Cafe Regatta"}]"#.utf8)
        }
    }

    func search(_ query: SearchQuery) async throws -> Data { Data("[]".utf8) }
    func details(_ query: DetailsQuery) async throws -> Data? { nil }
    func nearby(_ query: NearbyQuery) async throws -> Data { Data("[]".utf8) }
    func reverse(_ query: ReverseQuery) async throws -> Data? { nil }
    func suggest(_ query: SuggestQuery) async throws -> Data { Data("[]".utf8) }
}

@Suite(.serialized) struct SpotCommandTests {
    @Test func spotCommandsParseInAnyCaseAndKeepTheirArguments() throws {
        #expect(try ServerCommand.parse(RESPRequest(["spot.add", "Cafe Regatta", "60.1830", "24.9096", "tag", "coffee"]))
            == .backend(.spot("SPOT.ADD", ["Cafe Regatta", "60.1830", "24.9096", "tag", "coffee"])))
        #expect(try ServerCommand.parse(RESPRequest(["SPOT.LIST"])) == .backend(.spot("SPOT.LIST", [])))
        for name in ["SPOT.SHOW", "SPOT.NEAR", "SPOT.NEAREST", "SPOT.LOG", "SPOT.VISITS"] {
            let arguments = name == "SPOT.SHOW" ? ["3f2a"] : name == "SPOT.VISITS" ? ["DAY", "2025-06-01"] : ["60.17", "24.94"]
            #expect(try ServerCommand.parse(RESPRequest([name] + arguments)) == .backend(.spot(name, arguments)))
            #expect(BackendCall.spot(name, arguments).commandName == name)
        }
        do {
            _ = try ServerCommand.parse(RESPRequest(["SPOT.SHOW"]))
            Issue.record("SPOT.SHOW without an id parsed")
        } catch {
            #expect(error.message == "ERR wrong number of arguments for 'spot.show' command; usage: SPOT.SHOW id")
        }
    }

    @Test func helpAndCommandCountIncludeTheSpotCommands() async throws {
        let help = CommandCatalog.helpLines.joined(separator: "\n")
        for syntax in ["SPOT.ADD name lat lon [CATEGORY c]", "SPOT.LIST [CATEGORY c]", "SPOT.SHOW id", "SPOT.NEAR lat lon [RADIUS m]",
                       "SPOT.NEAREST lat lon [LIMIT n]", "SPOT.LOG (SPOT id | AT lat lon)", "SPOT.VISITS [DAY yyyy-mm-dd | SINCE date]"] {
            #expect(help.contains(syntax), "\(syntax)")
        }
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        let spotSpecs = CommandCatalog.all.filter { $0.name.hasPrefix("SPOT.") }.map(\.name)
        #expect(spotSpecs == ["SPOT.ADD", "SPOT.LIST", "SPOT.SHOW", "SPOT.NEAR", "SPOT.NEAREST", "SPOT.LOG", "SPOT.VISITS"])
        try client.send("COMMAND COUNT\r\n")
        #expect(try await client.reply() == .integer(CommandCatalog.all.count))
        try await server.stop()
    }

    @Test func spotRepliesAreJSONNullOrAnErrorAndNeverComeFromMemory() async throws {
        let backend = SpotRecordingBackend()
        let server = try await TestServer.start(backend: backend)
        let client = try RawClient(port: server.port)
        try client.send("SPOT.SHOW 3f2a\r\nSPOT.SHOW 9999\r\nSPOT.ADD x 60.17 24.94 COLOUR red\r\nSPOT.LIST\r\nSPOT.LIST\r\n")
        let replies = try await client.replies(5)
        #expect(replies[0].text == #"{"id":"3f2a","name":"Cafe Regatta"}"#)
        #expect(replies[1] == .null)
        #expect(replies[2] == .error("ERR SPOT.ADD: syntax error at 'COLOUR'"))
        #expect(replies[3] == replies[4])
        #expect(backend.calls.filter { $0 == ["SPOT.LIST"] }.count == 2, "each SPOT.LIST must reach the spots layer")
        try await server.stop()
    }

    @Test func aBackendWithoutSpotsSaysSo() async throws {
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        try client.send("SPOT.LIST\r\nspot.near 60.17 24.94\r\n")
        #expect(try await client.replies(2) == [
            .error("ERR SPOT.LIST is not available in this build"), .error("ERR SPOT.NEAR is not available in this build"),
        ])
        try await server.stop()
    }
}
