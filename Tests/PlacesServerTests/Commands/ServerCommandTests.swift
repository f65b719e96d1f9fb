import PlacesCore
import Testing
@testable import PlacesServer

private func parse(_ words: String...) throws(ServerCommand.SyntaxError) -> ServerCommand {
    try ServerCommand.parse(RESPRequest(words))
}

private func syntaxError(_ words: String...) -> String? {
    do {
        _ = try ServerCommand.parse(RESPRequest(words))
        return nil
    } catch {
        return error.message
    }
}

@Suite struct ServerCommandTests {
    @Test func searchTakesOptionsInAnyOrderAndAnyCase() throws {
        let command = try parse("search", "maya bar", "limit", "3", "NEAR", "60.1721", "24.9450", "Radius", "250")
        #expect(command == .backend(.search(SearchQuery(
            text: "maya bar", near: Coordinate(latitude: 60.1721, longitude: 24.945), radius: 250, limit: 3))))
        #expect(try parse("SEARCH", "pizza") == .backend(.search(SearchQuery(text: "pizza"))))
    }

    @Test func searchOptionsAreValidatedLikeTheCLI() {
        #expect(syntaxError("SEARCH", "x", "RADIUS", "100")?.hasPrefix("ERR RADIUS needs NEAR lat lon") == true)
        #expect(syntaxError("SEARCH", "x", "LIMIT", "0")?.hasPrefix("ERR invalid LIMIT '0': expected 1…1000") == true)
        #expect(syntaxError("SEARCH", "x", "NEAR", "91", "0") == "ERR invalid coordinate: latitude 91 is outside -90…90")
        #expect(syntaxError("SEARCH", "x", "NEAR", "north", "0")?.contains("expected lat lon in decimal degrees") == true)
        #expect(syntaxError("SEARCH", "x", "NEAR", "60")?.hasPrefix("ERR missing argument; usage: SEARCH query") == true)
        #expect(syntaxError("SEARCH", "x", "SORT", "name")?.hasPrefix("ERR syntax error at 'SORT'") == true)
    }

    @Test func detailsNeedsAProviderQualifiedID() throws {
        #expect(try parse("DETAILS", "osm:node/1") == .backend(.details(DetailsQuery(id: PlaceID(provider: "osm", nativeID: "node/1")))))
        #expect(syntaxError("DETAILS", "1234")?.hasPrefix("ERR ") == true)
        #expect(syntaxError("DETAILS") == "ERR wrong number of arguments for 'details' command; usage: DETAILS id")
    }

    @Test func nearbyReverseSuggestLookupAndScoreParse() throws {
        let center = Coordinate(latitude: 60.17, longitude: 24.94)
        #expect(try parse("NEARBY", "60.17", "24.94", "RADIUS", "300", "CATEGORY", "Cafe")
            == .backend(.nearby(NearbyQuery(center: center, radius: 300, category: "cafe"))))
        #expect(try parse("REVERSE", "60.17", "24.94") == .backend(.reverse(ReverseQuery(coordinate: center))))
        #expect(try parse("SUGGEST", "kaf", "NEAR", "60.17", "24.94") == .backend(.suggest(SuggestQuery(prefix: "kaf", near: center))))
        #expect(try parse("LOOKUP", "Maya Bar", "NEAR", "60.17", "24.94", "FIELDS", "phone", "hours")
            == .backend(.lookup(MatchQuery(name: "Maya Bar", near: center, fields: PlaceField.defaultSet.union([.phone, .hours])))))
        #expect(syntaxError("LOOKUP", "x", "FIELDS", "colour")?.hasPrefix("ERR unknown field 'colour'") == true)
        #expect(try parse("SCORE", "Maya Bar", "Bar Maya") == .backend(.score("Maya Bar", "Bar Maya")))
    }

    @Test func unknownCommandsSayWhatToTry() {
        #expect(syntaxError("GETT", "a", "b") == "ERR unknown command 'GETT', with args beginning with: 'a' 'b' (HELP lists the commands)")
    }

    @Test func helpListsEverySyntax() {
        let help = CommandCatalog.helpLines.joined(separator: "\n")
        for name in ["SEARCH query [NEAR lat lon] [RADIUS m] [LIMIT n]", "DETAILS id", "NEARBY lat lon [RADIUS m] [CATEGORY c]",
                     "REVERSE lat lon", "SUGGEST prefix", "LOOKUP name [NEAR lat lon] [FIELDS", "SCORE a b", "BUDGET",
                     "CACHE.STATS", "STATS", "INFO", "PING", "AUTH", "HELLO", "COMMAND", "CONFIG GET", "QUIT", "HELP"] {
            #expect(help.contains(name), "\(name)")
        }
    }
}
