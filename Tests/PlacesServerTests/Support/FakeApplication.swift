import Foundation
import PlacesCore
@testable import PlacesServer

/// An in-memory application with real-shaped JSON behind the real argument parsers, so protocol
/// behaviour is tested without an index. A search for `slow:<ms>` sleeps that long first, which is how
/// tests make calls finish out of order; `big:<bytes>` answers a string that long; `gated` waits at
/// ``gate`` until the test opens it; `explode` fails. DETAILS is answered on the event loop (``BackendCall/Work/now(_:)``).
struct FakeApplication: Sendable {
    static let places: [String: String] = [
        "osm:node/2486473580": #"{"id":"osm:node/2486473580","name":"Maya Bar","lat":60.1721,"lon":24.945,"category":"bar"}"#,
        "geonames:658225": #"{"id":"geonames:658225","name":"Helsinki","lat":60.16952,"lon":24.93545,"category":"city"}"#,
    ]
    var gate = Gate()

    var commands: CommandTable {
        let gate = self.gate
        return CommandTable([
            .backend("SEARCH", arity: 1...9, syntax: "SEARCH query [NEAR lat lon] [RADIUS m] [LIMIT n] [CATEGORY c]",
                     summary: "fake search", memoisable: true, parse: ServerRequests.search) { query in
                try await Self.search(query.query, gate: gate)
            },
            // Answered on the event loop, as the real DETAILS of a local id is; `geonames:0` fails.
            .backend("DETAILS", arity: 1...1, syntax: "DETAILS id", summary: "fake details", memoisable: true,
                     parse: ServerRequests.details) { query in
                .now {
                    if query.id.description == "geonames:0" { throw ServerBackendError.failed(reason: "the index is being rebuilt") }
                    return BackendAnswer(data: Self.places[query.id.description].map { Data($0.utf8) })
                }
            },
            .backend("REVERSE", arity: 2...2, syntax: "REVERSE lat lon", summary: "fake reverse", memoisable: true,
                     parse: { arguments throws(CommandSyntaxError) in ReverseQuery(coordinate: try arguments.coordinate()) }) { query in
                query.coordinate.latitude > 59 ? Data(#"{"city":"Helsinki","country":"FI"}"#.utf8) : nil
            },
            .backend("BUDGET", arity: 0...0, syntax: "BUDGET", summary: "fake budget", memoisable: false,
                     parse: ServerRequests.none) { _ in Data(#"{"spent_usd":0}"#.utf8) },
            .backend("SPOT.ADD", arity: 3...64, syntax: "SPOT.ADD name lat lon [CATEGORY c] [TAG t]…", summary: "fake spot add",
                     memoisable: false, parse: ServerRequests.spotAdd) { spot in Data(#"{"name":"\#(spot.name)"}"#.utf8) },
        ], infoSections: { [InfoSection(name: "cache", fields: [("entries", "2"), ("hits", "7")])] })
    }

    private static func search(_ query: SearchQuery, gate: Gate) async throws -> Data {
        if query.text.hasPrefix("slow:"), let ms = Int(query.text.dropFirst(5)) {
            try await Task.sleep(for: .milliseconds(ms))
        }
        if query.text == "gated" { await gate.pass() }
        if query.text.hasPrefix("big:"), let size = Int(query.text.dropFirst(4)) {
            return Data(("\"" + String(repeating: "x", count: size) + "\"").utf8)
        }
        if query.text == "explode" { throw ServerBackendError.failed(reason: "the index is being rebuilt; try again in a minute") }
        let matches = places.values.sorted().filter { $0.lowercased().contains(query.text.lowercased()) }
        return Data(("[" + matches.prefix(query.limit).joined(separator: ",") + "]").utf8)
    }
}

extension CommandTable {
    /// The real command table with nothing opened behind it: for tests of parsing and of the state machine.
    static let parsingOnly = CommandTable.places(.unopened("no application in this test"))
}

extension ConnectionStateMachine {
    init(password: [UInt8]?) { self.init(password: password, commands: .parsingOnly) }
}

/// The call a request should read into, for comparing with what the table made of it.
func expectedCall<Request: Equatable & Sendable>(_ name: String, _ request: Request) -> BackendCall {
    BackendCall(commandName: name, memoisation: .never, request: request) { BackendAnswer(data: nil) }
}
