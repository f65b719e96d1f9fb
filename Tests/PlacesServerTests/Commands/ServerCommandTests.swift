import PlacesApp
import PlacesCore
import PlacesPipeline
import RESP
import SpotStore
import Testing
@testable import PlacesServer

private func parse(_ words: String...) throws(CommandSyntaxError) -> ServerCommand {
    try CommandTable.parsingOnly.parse(RESPRequest(words))
}

private func call<Request: Equatable & Sendable>(_ name: String, _ request: Request) -> ServerCommand {
    .backend(expectedCall(name, request))
}

private func filtered<Query: Equatable & Sendable>(_ query: Query, open: OpenHoursFilter? = nil) -> ServerRequests.Filtered<Query> {
    ServerRequests.Filtered(query: query, open: open)
}

private func syntaxError(_ words: String...) -> String? {
    do {
        _ = try CommandTable.parsingOnly.parse(RESPRequest(words))
        return nil
    } catch {
        return error.message
    }
}

/// The command table read without a socket or an application: every syntax rule, in any case.
@Suite struct ServerCommandTests {
    @Test func searchTakesOptionsInAnyOrderAndAnyCase() throws {
        let command = try parse("search", "maya bar", "limit", "3", "NEAR", "60.1721", "24.9450", "Radius", "250")
        #expect(command == call("SEARCH", filtered(SearchQuery(
            text: "maya bar", near: Coordinate(latitude: 60.1721, longitude: 24.945), radius: 250, limit: 3))))
        #expect(try parse("SEARCH", "pizza") == call("SEARCH", filtered(SearchQuery(text: "pizza"))))
    }

    /// Every option at once fits the command's arity (SEARCH allowed 9 arguments and SUGGEST 5, one
    /// short of their full syntax, until the CLI parity test asked `SUGGEST mann NEAR 60.17 24.94 LIMIT 3`).
    @Test func everyOptionAtOnceIsAccepted() throws {
        let point = Coordinate(latitude: 60.17, longitude: 24.94)
        #expect(try parse("SEARCH", "bar", "NEAR", "60.17", "24.94", "RADIUS", "300", "LIMIT", "5", "CATEGORY", "bar")
            == call("SEARCH", filtered(SearchQuery(text: "bar", near: point, radius: 300, limit: 5, category: "bar"))))
        #expect(try parse("SUGGEST", "mann", "NEAR", "60.17", "24.94", "LIMIT", "3") == call("SUGGEST", SuggestQuery(prefix: "mann", near: point, limit: 3)))
        #expect(try parse("NEARBY", "60.17", "24.94", "RADIUS", "300", "CATEGORY", "bar", "BRAND", "Alko", "LIMIT", "5")
            == call("NEARBY", filtered(NearbyQuery(center: point, radius: 300, category: "bar", brand: "Alko", limit: 5))))
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
        #expect(try parse("DETAILS", "osm:node/1") == call("DETAILS", DetailsQuery(id: PlaceID(provider: "osm", nativeID: "node/1"))))
        #expect(syntaxError("DETAILS", "1234")?.hasPrefix("ERR ") == true)
        #expect(syntaxError("DETAILS") == "ERR wrong number of arguments for 'details' command; usage: DETAILS id")
    }

    @Test func nearbyReverseSuggestLookupAndScoreParse() throws {
        let center = Coordinate(latitude: 60.17, longitude: 24.94)
        #expect(try parse("NEARBY", "60.17", "24.94", "RADIUS", "300", "CATEGORY", "Cafe")
            == call("NEARBY", filtered(NearbyQuery(center: center, radius: 300, category: "cafe"))))
        #expect(try parse("REVERSE", "60.17", "24.94") == call("REVERSE", ReverseQuery(coordinate: center)))
        #expect(try parse("SUGGEST", "kaf", "NEAR", "60.17", "24.94") == call("SUGGEST", SuggestQuery(prefix: "kaf", near: center)))
        #expect(syntaxError("LOOKUP", "x", "FIELDS", "colour")?.hasPrefix("ERR unknown field 'colour'") == true)
        #expect(try parse("SCORE", "Maya Bar", "Bar Maya") == call("SCORE", ScoreRequest(first: "Maya Bar", second: "Bar Maya")))
    }

    /// The same question as `places lookup "Maya Bar" --near 60.17,24.94 --fields phone,hours`: the
    /// default fields shown, only id, name, coordinate and the named fields required.
    @Test func lookupAsksWhatTheCLIAsks() throws {
        let center = Coordinate(latitude: 60.17, longitude: 24.94)
        let query = MatchQuery(name: "Maya Bar", near: center, fields: PlaceField.defaultSet.union([.phone, .hours]))
        #expect(try parse("LOOKUP", "Maya Bar", "NEAR", "60.17", "24.94", "FIELDS", "phone", "hours")
            == call("LOOKUP", LookupRequest(query: query, requiredFields: [.id, .name, .coordinate, .phone, .hours])))
    }

    @Test func spotCommandsParseInAnyCase() throws {
        let point = Coordinate(latitude: 60.183, longitude: 24.9096)
        var regatta = ServerRequests.NewSpot(name: "Cafe Regatta", coordinate: point)
        regatta.attributes.tags = ["coffee", "sea"]
        regatta.attributes.rating = .like
        #expect(try parse("spot.add", "Cafe Regatta", "60.1830", "24.9096", "tag", "coffee", "TAG", "sea", "rating", "LIKE")
            == call("SPOT.ADD", regatta))
        var byDistance = SpotFilter()
        byDistance.sort = .distance
        byDistance.reference = point
        #expect(try parse("SPOT.LIST", "SORT", "distance", "AT", "60.1830", "24.9096") == call("SPOT.LIST", byDistance))
        #expect(try parse("SPOT.SHOW", "3f2a") == call("SPOT.SHOW", "3f2a"))
        #expect(try parse("SPOT.NEAR", "60.1830", "24.9096") == call("SPOT.NEAR", ServerRequests.SpotArea(center: point, radius: 805)))
        #expect(try parse("SPOT.NEAREST", "60.1830", "24.9096", "LIMIT", "2")
            == call("SPOT.NEAREST", ServerRequests.NearestSpots(center: point, limit: 2)))
        #expect(try parse("SPOT.LOG", "SPOT", "3f2a", "NOTE", "late") == call("SPOT.LOG", ServerRequests.VisitLog(spot: "3f2a", note: "late")))
        #expect(try parse("SPOT.VISITS", "DAY", "2025-06-01") == call("SPOT.VISITS", ServerRequests.VisitDays(day: "2025-06-01")))
    }

    /// Errors name the server's keywords and usage, never a CLI flag.
    @Test func spotSyntaxErrorsShowTheUsage() {
        #expect(syntaxError("SPOT.SHOW") == "ERR wrong number of arguments for 'spot.show' command; usage: SPOT.SHOW id")
        #expect(syntaxError("SPOT.ADD", "x", "60.17", "24.94", "COLOUR", "red")
            == "ERR syntax error at 'COLOUR'; usage: SPOT.ADD name lat lon [CATEGORY c] [TAG t]… [NOTE text] [RATING like|dislike|none]")
        #expect(syntaxError("SPOT.ADD", "x", "95", "0") == "ERR invalid coordinate: latitude 95 is outside -90…90")
        #expect(syntaxError("SPOT.ADD", "x", "60", "24", "RATING", "meh")?.hasPrefix("ERR invalid rating 'meh': expected like, dislike or none; usage: SPOT.ADD") == true)
        #expect(syntaxError("SPOT.LIST", "SORT", "distance")?.hasPrefix("ERR SORT distance needs AT lat lon; usage: SPOT.LIST") == true)
        #expect(syntaxError("SPOT.NEAR", "60.17", "24.94", "RADIUS", "-3")?.hasPrefix("ERR invalid RADIUS '-3'") == true)
        #expect(syntaxError("SPOT.LOG", "NOTE", "nowhere")?.hasPrefix("ERR say where the visit was: SPOT id or AT lat lon; usage: SPOT.LOG") == true)
        #expect(syntaxError("SPOT.VISITS", "DAY", "2025-06-01", "SINCE", "2025-01-01")
            == "ERR wrong number of arguments for 'spot.visits' command; usage: SPOT.VISITS [DAY yyyy-mm-dd | SINCE date]")
    }

    /// SUGGEST's options in either order, each once: a repeated or unknown option is one error naming it.
    @Test func suggestOptionsComeInEitherOrderEachOnce() throws {
        let point = Coordinate(latitude: 60.17, longitude: 24.94)
        let expected = call("SUGGEST", SuggestQuery(prefix: "mann", near: point, limit: 3))
        #expect(try parse("SUGGEST", "mann", "NEAR", "60.17", "24.94", "LIMIT", "3") == expected)
        #expect(try parse("SUGGEST", "mann", "limit", "3", "near", "60.17", "24.94") == expected)
        #expect(syntaxError("SUGGEST", "mann", "LIMIT", "3", "LIMIT", "4")
            == "ERR option 'LIMIT' given twice; give each option once; usage: SUGGEST prefix [NEAR lat lon] [LIMIT n]")
        #expect(syntaxError("SUGGEST", "mann", "near", "60", "24", "NEAR", "61")?.hasPrefix("ERR option 'NEAR' given twice") == true)
        #expect(syntaxError("SUGGEST", "mann", "RADIUS", "3") == "ERR syntax error at 'RADIUS'; usage: SUGGEST prefix [NEAR lat lon] [LIMIT n]")
        // Repeatable options stay repeatable.
        #expect(throws: Never.self) { try parse("SPOT.ADD", "x", "60", "24", "TAG", "a", "TAG", "b") }
    }

    @Test func openNowAndOpenAtFilterSearchAndNearby() throws {
        let point = Coordinate(latitude: 60.17, longitude: 24.94)
        #expect(try parse("SEARCH", "bar", "open", "now", "LIMIT", "5")
            == call("SEARCH", filtered(SearchQuery(text: "bar", limit: 5), open: .now)))
        #expect(try parse("NEARBY", "60.17", "24.94", "OPEN", "AT", "2026-11-21T20:00", "CATEGORY", "bar")
            == call("NEARBY", filtered(NearbyQuery(center: point, category: "bar"), open: .at("2026-11-21T20:00"))))
        #expect(syntaxError("SEARCH", "bar", "OPEN", "LATE")?.hasPrefix("ERR invalid OPEN 'LATE': expected OPEN NOW or OPEN AT time; usage: SEARCH") == true)
        #expect(syntaxError("NEARBY", "60.17", "24.94", "OPEN", "AT", "teatime")?.contains("usage: NEARBY") == true)
        #expect(syntaxError("SEARCH", "bar", "OPEN", "NOW", "OPEN", "NOW")?.hasPrefix("ERR option 'OPEN' given twice") == true)
    }

    @Test func spotEditRemoveAndVisitCommandsParse() throws {
        var change = SpotsService.SpotChange(name: "Ateneum", addTags: ["art", "winter"], removeTags: ["summer"], note: "",
                                             rating: .some(nil), coordinate: Coordinate(latitude: 60.17, longitude: 24.94))
        #expect(try parse("spot.edit", "3f2a", "name", "Ateneum", "ADD-TAG", "art", "REMOVE-TAG", "summer", "add-tag", "winter",
                          "NOTE", "", "RATING", "none", "AT", "60.17", "24.94")
            == call("SPOT.EDIT", ServerRequests.Edit(reference: "3f2a", change: change)))
        change = SpotsService.SpotChange(category: "Cafe", rating: .some(.dislike))
        #expect(try parse("SPOT.EDIT", "3f2a", "RATING", "dislike", "CATEGORY", "Cafe")
            == call("SPOT.EDIT", ServerRequests.Edit(reference: "3f2a", change: change)))
        #expect(try parse("SPOT.RM", "3f2a") == call("SPOT.RM", "3f2a"))
        #expect(try parse("SPOT.VISITS.RM", "7c1d") == call("SPOT.VISITS.RM", "7c1d"))
        #expect(try parse("SPOT.VISITS.EDIT", "7c1d", "NOTE", "again", "SPOT", "3f2a")
            == call("SPOT.VISITS.EDIT", ServerRequests.Edit(reference: "7c1d", change: SpotsService.VisitChange(note: "again", spot: "3f2a"))))
        #expect(syntaxError("SPOT.EDIT", "3f2a")?.hasPrefix("ERR wrong number of arguments for 'spot.edit' command; usage: SPOT.EDIT id") == true)
        #expect(syntaxError("SPOT.EDIT", "3f2a", "COLOUR", "red")?.hasPrefix("ERR syntax error at 'COLOUR'; usage: SPOT.EDIT") == true)
        #expect(syntaxError("SPOT.EDIT", "3f2a", "NAME", "a", "NAME", "b")?.hasPrefix("ERR option 'NAME' given twice") == true)
        #expect(syntaxError("SPOT.EDIT", "3f2a", "RATING", "meh")?.hasPrefix("ERR invalid rating 'meh'") == true)
        #expect(syntaxError("SPOT.RM") == "ERR wrong number of arguments for 'spot.rm' command; usage: SPOT.RM id")
        #expect(syntaxError("SPOT.VISITS.EDIT", "7c1d", "TIME", "teatime")?.contains("usage: SPOT.VISITS.EDIT") == true)
    }

    @Test func unknownCommandsSayWhatToTry() {
        #expect(syntaxError("GETT", "a", "b") == "ERR unknown command 'GETT', with args beginning with: 'a' 'b' (HELP lists the commands)")
    }

    @Test func onlyReadsOfTheIndexAreMemoisedForAWhileAndLookupOnlyUnderACacheHitsLease() {
        let entries = CommandTable.parsingOnly.entries
        #expect(entries.filter { $0.memoisation == .forTimeToLive }.map(\.name) == ["SEARCH", "DETAILS", "NEARBY", "REVERSE", "SUGGEST", "SCORE"])
        #expect(entries.filter { $0.memoisation == .whileLeased }.map(\.name) == ["LOOKUP"])
    }

    @Test func helpListsEverySyntaxOnce() {
        let help = CommandTable.parsingOnly.helpLines.joined(separator: "\n")
        for name in ["SEARCH query [NEAR lat lon] [RADIUS m] [LIMIT n]", "DETAILS id", "NEARBY lat lon [RADIUS m] [CATEGORY c]",
                     "REVERSE lat lon", "SUGGEST prefix", "LOOKUP name [NEAR lat lon] [FIELDS", "SCORE a b", "BUDGET",
                     "CACHE.STATS", "STATS", "INFO", "PING", "AUTH", "HELLO", "COMMAND", "CONFIG GET", "QUIT", "HELP",
                     "SPOT.ADD name lat lon [CATEGORY c]", "SPOT.LIST [CATEGORY c]", "SPOT.SHOW id", "SPOT.NEAR lat lon [RADIUS m]",
                     "SPOT.NEAREST lat lon [LIMIT n]", "SPOT.LOG (SPOT id | AT lat lon)", "SPOT.VISITS [DAY yyyy-mm-dd | SINCE date]"] {
            #expect(help.contains(name), "\(name)")
        }
        let names = CommandTable.parsingOnly.entries.map(\.name)
        #expect(Set(names).count == names.count, "each command is one entry")
    }
}
