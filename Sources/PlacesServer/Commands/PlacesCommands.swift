import Foundation
import PlacesApp
import PlacesCore
import PlacesMatching
import PlacesPipeline
import SpotStore

extension CommandTable {
    /// The application's commands. Each entry is the whole command: syntax, arity, whether it may be
    /// memoised, how its arguments read into a request value, and the one call into the application
    /// that answers it with the CLI's `--json` bytes (`nil`: a miss, sent as a null reply).
    public static func places(_ app: ServerApplication) -> CommandTable {
        CommandTable([
            .backend("SEARCH", arity: 1...13,
                     syntax: "SEARCH query [NEAR lat lon] [RADIUS m] [LIMIT n] [CATEGORY c] [OPEN NOW | OPEN AT time]",
                     summary: "places whose names match the words, as `places search --json`; OPEN NOW keeps only places "
                        + "whose hours say open now on their own clock (places without hours are left out)", memoisable: true,
                     parse: ServerRequests.search, work: app.search),
            .backend("DETAILS", arity: 1...1, syntax: "DETAILS id",
                     summary: "one place by id (osm:node/123, geonames:658225); null when unknown", memoisable: true,
                     parse: ServerRequests.details, work: app.details),
            .core(app, "NEARBY", arity: 2...13,
                     syntax: "NEARBY lat lon [RADIUS m] [CATEGORY c] [BRAND b] [LIMIT n] [OPEN NOW | OPEN AT time]",
                     summary: "places around a point, nearest first; OPEN NOW as for SEARCH (places without hours are left out)",
                     memoisable: true, parse: ServerRequests.nearby) { request in
                try PlacesJSON.places(try await app.places.get().nearby(request.query, open: request.open), reference: request.query.center)
            },
            .core(app, "REVERSE", arity: 2...2, syntax: "REVERSE lat lon",
                     summary: "nearest place, city, country and time zone of a point; null when nothing is known", memoisable: true,
                     parse: { arguments throws(CommandSyntaxError) in ReverseQuery(coordinate: try arguments.coordinate()) }) { query in
                try await app.reverse(query)
            },
            .core(app, "SUGGEST", arity: 1...6, syntax: "SUGGEST prefix [NEAR lat lon] [LIMIT n]",
                     summary: "completions for a name being typed; options in any order, each once", memoisable: true,
                     parse: ServerRequests.suggest) { query in
                try PlacesJSON.suggestions(try await app.places.get().suggest(query))
            },
            .leased("LOOKUP", arity: 1...64, syntax: "LOOKUP name [NEAR lat lon] [FIELDS field …]",
                    summary: "the one place meant, through cache, local index and paid providers under budget",
                    parse: ServerRequests.lookup) { request in try await app.answering { try await app.lookup(request) } ?? BackendAnswer(data: nil) },
            .core(app, "SCORE", arity: 2...2, syntax: "SCORE a b", summary: "how alike two place names are, as `places score --json`",
                     memoisable: true, parse: ServerRequests.score) { request in try PlacesJSON.score(try PlacesApplication.score(request)) },
            .core(app, "BUDGET", arity: 0...0, syntax: "BUDGET", summary: "money spent and left per provider, as `places budget --json`",
                     memoisable: false, parse: ServerRequests.none) { _ in try await PlacesJSON.budget(app.lookup.get()) },
            .core(app, "CACHE.STATS", arity: 0...0, syntax: "CACHE.STATS",
                     summary: "lookup cache entries, hits and misses, as `places cache stats --json`",
                     memoisable: false, parse: ServerRequests.none) { _ in try PlacesJSON.encode(try await app.lookup.get().cacheStats()) },
            // Spots are read and written in one database shared with the CLI: never memoised.
            .core(app, "SPOT.ADD", arity: 3...64,
                     syntax: "SPOT.ADD name lat lon [CATEGORY c] [TAG t]… [NOTE text] [RATING like|dislike|none]",
                     summary: "save a spot, as `places spots add --json`", memoisable: false,
                     parse: ServerRequests.spotAdd) { request in try await app.addSpot(request) },
            .core(app, "SPOT.LIST", arity: 0...64,
                     syntax: "SPOT.LIST [CATEGORY c] [TAG t]… [RATING r] [SORT name|recent|distance] [AT lat lon]",
                     summary: "saved spots, as `places spots list --json`", memoisable: false,
                     parse: ServerRequests.spotList) { filter in
                try PlacesJSON.spots(try await app.spots.get().list(filter), reference: filter.reference)
            },
            .core(app, "SPOT.SHOW", arity: 1...1, syntax: "SPOT.SHOW id", summary: "one saved spot; null when unknown",
                     memoisable: false, parse: { arguments throws(CommandSyntaxError) in try arguments.text() }) { reference in
                try await app.showSpot(reference)
            },
            .core(app, "SPOT.NEAR", arity: 2...4, syntax: "SPOT.NEAR lat lon [RADIUS m]",
                     summary: "saved spots within the radius (default 805 m), nearest first", memoisable: false,
                     parse: ServerRequests.spotNear) { area in
                try PlacesJSON.spots(try await app.spots.get().near(area.center, radius: area.radius))
            },
            .core(app, "SPOT.NEAREST", arity: 2...4, syntax: "SPOT.NEAREST lat lon [LIMIT n]",
                     summary: "the nearest saved spots, however far", memoisable: false,
                     parse: ServerRequests.spotNearest) { request in
                try PlacesJSON.spots(try await app.spots.get().nearest(request.center, limit: request.limit))
            },
            .core(app, "SPOT.EDIT", arity: 3...64,
                     syntax: "SPOT.EDIT id [NAME n] [CATEGORY c] [ADD-TAG t]… [REMOVE-TAG t]… [NOTE text] [RATING like|dislike|none] [AT lat lon]",
                     summary: "change a spot (id or 4+ characters of it; an empty CATEGORY or NOTE clears it), as `places spots edit --json`",
                     memoisable: false, parse: ServerRequests.spotEdit) { request in
                try PlacesJSON.spot(try await app.spots.get().edit(request.reference, request.change))
            },
            .core(app, "SPOT.RM", arity: 1...1, syntax: "SPOT.RM id",
                     summary: "delete a spot (its visits stay, detached); the deleted spot, as `places spots rm --yes --json`",
                     memoisable: false, parse: { arguments throws(CommandSyntaxError) in try arguments.text() }) { reference in
                try PlacesJSON.spot(try await app.spots.get().remove(reference))
            },
            .core(app, "SPOT.LOG", arity: 2...64, syntax: "SPOT.LOG (SPOT id | AT lat lon) [NOTE text] [TIME iso8601]",
                     summary: "record a visit, as `places spots log --json`", memoisable: false,
                     parse: ServerRequests.spotLog) { request in try await app.logVisit(request) },
            .core(app, "SPOT.VISITS", arity: 0...2, syntax: "SPOT.VISITS [DAY yyyy-mm-dd | SINCE date]",
                     summary: "logged visits grouped by day, as `places spots visits --json`", memoisable: false,
                     parse: ServerRequests.spotVisits) { request in try await app.visits(request) },
            .core(app, "SPOT.VISITS.EDIT", arity: 3...7, syntax: "SPOT.VISITS.EDIT id [TIME time] [NOTE text] [SPOT id]",
                     summary: "change a logged visit (a time without an offset is on the visit's clock; NOTE \"\" removes the note), "
                        + "as `places spots visits edit --json`", memoisable: false,
                     parse: ServerRequests.visitEdit) { request in try await app.editVisit(request.reference, request.change) },
            .core(app, "SPOT.VISITS.RM", arity: 1...1, syntax: "SPOT.VISITS.RM id",
                     summary: "delete a logged visit; the deleted visit, as `places spots visits rm --json`", memoisable: false,
                     parse: { arguments throws(CommandSyntaxError) in try arguments.text() }) { reference in
                try await app.removeVisit(reference)
            },
        ], infoSections: { [] })
    }
}

extension ServerCommandEntry {
    /// An application command: a ``backend(_:arity:syntax:summary:memoisable:parse:handle:)`` entry whose
    /// call into the core answers through ``ServerApplication/answering(_:)``, so every command renders the
    /// core's typed errors the same way (a miss is null, a budget denial `-ERR budget …`, …).
    static func core<Request: Equatable & Sendable>(
        _ app: ServerApplication, _ name: String, arity: ClosedRange<Int>, syntax: String, summary: String, memoisable: Bool,
        parse: @escaping @Sendable (inout CommandArguments) throws(CommandSyntaxError) -> Request,
        handle: @escaping @Sendable (Request) async throws -> Data?
    ) -> ServerCommandEntry {
        .backend(name, arity: arity, syntax: syntax, summary: summary, memoisable: memoisable, parse: parse) { request in
            try await app.answering { try await handle(request) }
        }
    }
}

/// How each application command's arguments read into its request value. Pure: every rule is tested
/// without a socket or an index. The defaults are the core's, which the CLI's options use too
/// (``NearbyQuery/defaultRadius``, ``SpotsService/defaultNearRadius``, …).
enum ServerRequests {
    static func none(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> Bool { true }

    /// A search or nearby request with `OPEN NOW` / `OPEN AT time`: the query and the hours filter the
    /// application applies (``OpenHoursFilter``), as the CLI's `--open-now` / `--open-at` ask it.
    struct Filtered<Query: Equatable & Sendable>: Equatable, Sendable {
        var query: Query
        var open: OpenHoursFilter?
    }

    static func search(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> Filtered<SearchQuery> {
        let text = try arguments.text()
        var near: Coordinate?
        var radius: Double?
        var limit = SearchQuery.defaultLimit
        var category: String?
        var open: OpenHoursFilter?
        while let keyword = try arguments.option() {
            switch keyword {
            case "NEAR": near = try arguments.coordinate()
            case "RADIUS": radius = try arguments.metres()
            case "LIMIT": limit = try arguments.limit()
            case "CATEGORY": category = try arguments.text().lowercased()
            case "OPEN": open = try openFilter(&arguments)
            default: throw arguments.unexpected(keyword)
            }
        }
        if radius != nil && near == nil && !AroundPhrase.namesAPlace(in: text) {
            throw CommandSyntaxError("RADIUS needs NEAR lat lon, or a place to search around (\"cafe near kiasma\"); usage: \(arguments.syntax)")
        }
        return Filtered(query: SearchQuery(text: text, near: near, radius: radius, limit: limit, category: category), open: open)
    }

    /// `OPEN NOW` or `OPEN AT time` (ISO 8601; without an offset, each place's local time).
    static func openFilter(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> OpenHoursFilter {
        let filter: OpenHoursFilter
        switch try arguments.text().uppercased() {
        case "NOW": filter = .now
        case "AT": filter = .at(try arguments.text())
        case let other: throw arguments.usage("invalid OPEN '\(other.prefix(40))': expected OPEN NOW or OPEN AT time")
        }
        do { try filter.validate() } catch { throw arguments.usage(error.message) }
        return filter
    }

    static func details(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> DetailsQuery {
        let id = try arguments.text()
        do { return DetailsQuery(id: try PlaceID(parsing: id)) } catch { throw CommandSyntaxError(error.message) }
    }

    static func nearby(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> Filtered<NearbyQuery> {
        let center = try arguments.coordinate()
        var radius = NearbyQuery.defaultRadius
        var limit = NearbyQuery.defaultLimit
        var category: String?
        var brand: String?
        var open: OpenHoursFilter?
        while let keyword = try arguments.option() {
            switch keyword {
            case "RADIUS": radius = try arguments.metres()
            case "CATEGORY": category = try arguments.text().lowercased()
            case "BRAND": brand = try arguments.text()
            case "LIMIT": limit = try arguments.limit()
            case "OPEN": open = try openFilter(&arguments)
            default: throw arguments.unexpected(keyword)
            }
        }
        return Filtered(query: NearbyQuery(center: center, radius: radius, category: category, brand: brand, limit: limit), open: open)
    }

    static func suggest(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> SuggestQuery {
        let prefix = try arguments.text()
        var near: Coordinate?
        var limit = SuggestQuery.defaultLimit
        while let keyword = try arguments.option() {
            switch keyword {
            case "NEAR": near = try arguments.coordinate()
            case "LIMIT": limit = try arguments.limit()
            default: throw arguments.unexpected(keyword)
            }
        }
        return SuggestQuery(prefix: prefix, near: near, limit: limit)
    }

    /// As `places lookup NAME [--near] [--fields]` asks (``LookupRequest/asking(_:for:maxCost:offline:)``),
    /// so both ask the same question and share cache entries.
    static func lookup(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> LookupRequest {
        let name = try arguments.text()
        var near: Coordinate?
        var requested: Set<PlaceField> = []
        while let keyword = try arguments.option() {
            switch keyword {
            case "NEAR": near = try arguments.coordinate()
            case "FIELDS":
                let rest = arguments.remaining()
                guard !rest.isEmpty else { throw arguments.usage("FIELDS needs at least one field name") }
                do { requested = try PlaceField.parseList(rest.joined(separator: ",")) } catch { throw arguments.usage(error.message) }
            default: throw arguments.unexpected(keyword)
            }
        }
        return .asking(MatchQuery(name: name, near: near), for: requested)
    }

    static func score(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> ScoreRequest {
        ScoreRequest(first: try arguments.text(), second: try arguments.text())
    }

    struct NewSpot: Equatable, Sendable {
        var name: String
        var coordinate: Coordinate
        var attributes = SpotAttributes()
    }

    static func spotAdd(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> NewSpot {
        var spot = NewSpot(name: try arguments.text(), coordinate: try arguments.coordinate())
        while let keyword = try arguments.option(repeatable: ["TAG"]) {
            switch keyword {
            case "CATEGORY": spot.attributes.category = try arguments.text()
            case "TAG": spot.attributes.tags.append(try arguments.text())
            case "NOTE": spot.attributes.notes = try arguments.text()
            case "RATING": spot.attributes.rating = try arguments.value(SpotRating.parse)
            default: throw arguments.unexpected(keyword)
            }
        }
        return spot
    }

    static func spotList(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> SpotFilter {
        var filter = SpotFilter()
        while let keyword = try arguments.option(repeatable: ["TAG"]) {
            switch keyword {
            case "CATEGORY":
                let category = try arguments.text()
                filter.category = PlaceCategory.normalize(category) ?? category
            case "TAG": filter.tags.append(try arguments.text())
            case "RATING": filter.rating = .some(try arguments.value(SpotRating.parse))
            case "SORT":
                let text = try arguments.text()
                guard let sort = SpotFilter.Sort(rawValue: text.lowercased()) else {
                    throw arguments.usage("invalid SORT '\(text.prefix(40))': expected \(SpotFilter.Sort.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                filter.sort = sort
            case "AT": filter.reference = try arguments.coordinate()
            default: throw arguments.unexpected(keyword)
            }
        }
        if filter.sort == .distance && filter.reference == nil { throw arguments.usage("SORT distance needs AT lat lon") }
        return filter
    }

    struct SpotArea: Equatable, Sendable {
        var center: Coordinate
        var radius = SpotsService.defaultNearRadius
    }

    static func spotNear(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> SpotArea {
        var area = SpotArea(center: try arguments.coordinate())
        while let keyword = try arguments.option() {
            guard keyword == "RADIUS" else { throw arguments.unexpected(keyword) }
            area.radius = try arguments.metres()
        }
        return area
    }

    struct NearestSpots: Equatable, Sendable {
        var center: Coordinate
        var limit = SpotsService.defaultNearestLimit
    }

    static func spotNearest(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> NearestSpots {
        var request = NearestSpots(center: try arguments.coordinate())
        while let keyword = try arguments.option() {
            guard keyword == "LIMIT" else { throw arguments.unexpected(keyword) }
            request.limit = try arguments.limit()
        }
        return request
    }

    struct VisitLog: Equatable, Sendable {
        var spot: String?
        var point: Coordinate?
        var note: String?
        var time: String?
    }

    static func spotLog(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> VisitLog {
        var log = VisitLog()
        while let keyword = try arguments.option() {
            switch keyword {
            case "SPOT": log.spot = try arguments.text()
            case "AT": log.point = try arguments.coordinate()
            case "NOTE": log.note = try arguments.text()
            case "TIME": log.time = try arguments.text()
            default: throw arguments.unexpected(keyword)
            }
        }
        if log.spot == nil && log.point == nil { throw arguments.usage("say where the visit was: SPOT id or AT lat lon") }
        return log
    }

    struct VisitDays: Equatable, Sendable {
        var day: String?
        var since: String?
    }

    static func spotVisits(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> VisitDays {
        var request = VisitDays()
        while let keyword = try arguments.option() {
            switch keyword {
            case "DAY": request.day = try arguments.text()
            case "SINCE": request.since = try arguments.text()
            default: throw arguments.unexpected(keyword)
            }
        }
        if request.day != nil && request.since != nil { throw arguments.usage("choose one of DAY and SINCE") }
        return request
    }

    /// A spot or visit reference and what to change in it.
    struct Edit<Change: Equatable & Sendable>: Equatable, Sendable {
        var reference: String
        var change: Change
    }

    /// SPOT.EDIT's keywords are `spots edit`'s options: both read into one ``SpotsService/SpotChange``.
    static func spotEdit(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> Edit<SpotsService.SpotChange> {
        var edit = Edit(reference: try arguments.text(), change: SpotsService.SpotChange())
        while let keyword = try arguments.option(repeatable: ["ADD-TAG", "REMOVE-TAG"]) {
            switch keyword {
            case "NAME": edit.change.name = try arguments.text()
            case "CATEGORY": edit.change.category = try arguments.text()
            case "ADD-TAG": edit.change.addTags.append(try arguments.text())
            case "REMOVE-TAG": edit.change.removeTags.append(try arguments.text())
            case "NOTE": edit.change.note = try arguments.text()
            case "RATING": edit.change.rating = .some(try arguments.value(SpotRating.parse))
            case "AT": edit.change.coordinate = try arguments.coordinate()
            default: throw arguments.unexpected(keyword)
            }
        }
        return edit
    }

    /// SPOT.VISITS.EDIT's keywords are `spots visits edit`'s options: both read into one ``SpotsService/VisitChange``.
    static func visitEdit(_ arguments: inout CommandArguments) throws(CommandSyntaxError) -> Edit<SpotsService.VisitChange> {
        var edit = Edit(reference: try arguments.text(), change: SpotsService.VisitChange())
        while let keyword = try arguments.option() {
            switch keyword {
            case "TIME": edit.change.time = try arguments.text()
            case "NOTE": edit.change.note = try arguments.text()
            case "SPOT": edit.change.spot = try arguments.text()
            default: throw arguments.unexpected(keyword)
            }
        }
        if let time = edit.change.time {
            do { _ = try VisitTime.parse(time, now: Date(), zone: .current) } catch { throw arguments.usage(error.message) }
        }
        return edit
    }
}
