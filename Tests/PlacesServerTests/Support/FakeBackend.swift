import Foundation
import PlacesCore
@testable import PlacesServer

/// An in-memory backend with real-shaped JSON, so protocol behaviour is tested without an index.
/// A search for `slow:<ms>` sleeps that long first, which is how tests make calls finish out of order;
/// `big:<bytes>` answers a string that long.
struct FakeBackend: ServerBackend {
    var places: [String: String] = [
        "osm:node/2486473580": #"{"id":"osm:node/2486473580","name":"Maya Bar","lat":60.1721,"lon":24.945,"category":"bar"}"#,
        "geonames:658225": #"{"id":"geonames:658225","name":"Helsinki","lat":60.16952,"lon":24.93545,"category":"city"}"#,
    ]
    /// A search for `gated` waits here until the test opens it.
    var gate = Gate()

    func search(_ query: SearchQuery) async throws -> Data {
        if query.text.hasPrefix("slow:"), let ms = Int(query.text.dropFirst(5)) {
            try await Task.sleep(for: .milliseconds(ms))
        }
        if query.text == "gated" { await gate.pass() }
        if query.text.hasPrefix("big:"), let size = Int(query.text.dropFirst(4)) {
            return Data(("\"" + String(repeating: "x", count: size) + "\"").utf8)
        }
        if query.text == "explode" { throw InputError("the index is being rebuilt; try again in a minute") }
        let matches = places.values.sorted().filter { $0.lowercased().contains(query.text.lowercased()) }
        return Data(("[" + matches.prefix(query.limit).joined(separator: ",") + "]").utf8)
    }

    func details(_ query: DetailsQuery) async throws -> Data? {
        places[query.id.description].map { Data($0.utf8) }
    }

    func nearby(_ query: NearbyQuery) async throws -> Data {
        Data(#"{"center":"\#(query.center)","radius":\#(Int(query.radius)),"category":"\#(query.category ?? "-")"}"#.utf8)
    }

    func reverse(_ query: ReverseQuery) async throws -> Data? {
        query.coordinate.latitude > 59 ? Data(#"{"city":"Helsinki","country":"FI"}"#.utf8) : nil
    }

    func suggest(_ query: SuggestQuery) async throws -> Data {
        Data(#"[{"text":"\#(query.prefix)…"}]"#.utf8)
    }

    func budget() async throws -> Data {
        Data(#"{"spent_usd":0}"#.utf8)
    }

    func infoSections() async -> [InfoSection] {
        [InfoSection(name: "cache", fields: [("entries", "2"), ("hits", "7")])]
    }
}
