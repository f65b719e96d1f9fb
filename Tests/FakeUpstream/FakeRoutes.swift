import Foundation

/// Ready-made handlers that play each provider's API from ``FakeFixtures``.
///
/// Each checks the credential the way the real service does (wrong key → the provider's own
/// refusal, which echoes the key back, as some upstreams do) and answers unknown paths with 404.
public enum FakeRoutes {
    /// The key every fake accepts unless told otherwise.
    public static let testKey = "test-key-0123456789abcdef"
    /// Internal: carries validation problems from a handler to the recorder.
    static let violationHeader = "X-Fake-Violations"

    /// Google Places API (New). With a validator, a request that breaks the discovery document is
    /// answered 400 INVALID_ARGUMENT and listed in ``FakeUpstream/violations``. Replies keep only the
    /// fields the request's field mask asked for, as Google does.
    public static func google(apiKey: String = testKey, validator: GoogleDiscoveryValidator? = nil)
        -> @Sendable (RecordedRequest) -> FakeReply {
        { request in
            if let validator {
                let problems = validator.violations(in: request)
                if !problems.isEmpty {
                    var reply = FakeReply.json(googleError(400, "INVALID_ARGUMENT", problems.joined(separator: "; ")), status: 400)
                    reply.headers[violationHeader] = problems.joined(separator: " | ")
                    return reply
                }
            }
            let key = request.header("X-Goog-Api-Key") ?? ""
            guard key == apiKey else {
                return .json(googleError(403, "PERMISSION_DENIED", "Requests from this API key (\(key)) are blocked."), status: 403)
            }
            let mask = (request.header("X-Goog-FieldMask") ?? "").split(separator: ",").map { String($0) }
            switch (request.method, request.path) {
            case ("POST", "/v1/places:searchText"), ("POST", "/v1/places:searchNearby"):
                return .json(masked(FakeFixtures.googleSearchText, mask: mask.map { String($0.dropFirst("places.".count)) }, listKey: "places"))
            case ("POST", "/v1/places:autocomplete"):
                return .json(FakeFixtures.googleAutocomplete)
            case ("GET", "/v1/places/\(FakeFixtures.googlePlaceID)"):
                return .json(masked(FakeFixtures.googlePlace, mask: mask, listKey: nil))
            default:
                return .notFound()
            }
        }
    }

    public static func googleError(_ code: Int, _ status: String, _ message: String) -> String {
        let escaped = message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return #"{"error":{"code":\#(code),"message":"\#(escaped)","status":"\#(status)"}}"#
    }

    /// Keeps only the top-level `Place` members named by `mask` (in each element of `listKey`).
    static func masked(_ json: String, mask: [String], listKey: String?) -> String {
        let keep = Set(mask.map { $0.split(separator: ".").first.map(String.init) ?? $0 })
        func filter(_ place: Any) -> Any {
            guard let object = place as? [String: Any] else { return place }
            return object.filter { keep.contains($0.key) }
        }
        guard var object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return json }
        if let listKey {
            object[listKey] = (object[listKey] as? [Any])?.map(filter)
        } else {
            object = filter(object) as? [String: Any] ?? object
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(json.utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Yelp Fusion (`/v3/businesses/…`, `Authorization: Bearer KEY`).
    public static func yelp(apiKey: String = testKey) -> @Sendable (RecordedRequest) -> FakeReply {
        { request in
            guard request.header("Authorization") == "Bearer \(apiKey)" else {
                return .json(#"{"error":{"code":"TOKEN_INVALID","description":"Invalid access token or authorization header."}}"#, status: 401)
            }
            switch request.path {
            case "/v3/businesses/search": return .json(FakeFixtures.yelpSearch)
            case "/v3/businesses/matches": return .json(FakeFixtures.yelpMatches)
            case "/v3/businesses/\(FakeFixtures.yelpBusinessID)": return .json(FakeFixtures.yelpBusiness)
            default:
                return .json(#"{"error":{"code":"BUSINESS_NOT_FOUND","description":"The requested business could not be found."}}"#, status: 404)
            }
        }
    }

    /// Foursquare Places (`/places/…`, bearer key and `X-Places-Api-Version`). Premium fields only when `fields` asks.
    public static func foursquare(apiKey: String = testKey) -> @Sendable (RecordedRequest) -> FakeReply {
        { request in
            guard request.header("Authorization") == "Bearer \(apiKey)" else {
                return .json(#"{"message":"Invalid request token."}"#, status: 401)
            }
            guard request.header("X-Places-Api-Version") != nil else {
                return .json(#"{"message":"Missing X-Places-Api-Version header"}"#, status: 400)
            }
            let fields = Set((request.query["fields"] ?? "").split(separator: ",").map(String.init))
            let place = fields.contains("hours") || fields.contains("rating") ? FakeFixtures.foursquarePlacePremium : FakeFixtures.foursquarePlace
            switch request.path {
            case "/places/search": return .json("{\"results\": [\(place)]}")
            case "/places/match": return .json("{\"place\": \(place), \"match_score\": 0.97}")
            case "/places/\(FakeFixtures.foursquarePlaceID)": return .json(place)
            default: return .json(#"{"message":"Not found"}"#, status: 404)
            }
        }
    }

    /// Nominatim (`/search`, `/lookup`, `/reverse`). Refuses, with an HTML 403 like the real server,
    /// a User-Agent that gives no contact.
    public static func nominatim() -> @Sendable (RecordedRequest) -> FakeReply {
        { request in
            let agent = request.header("User-Agent") ?? ""
            guard agent.contains("@") || agent.contains("://") else {
                return FakeReply(status: 403, headers: ["Content-Type": "text/html"],
                                 body: Data("<html><body><h1>Access blocked</h1></body></html>".utf8))
            }
            switch request.path {
            case "/search": return .json(FakeFixtures.nominatimSearch)
            case "/lookup":
                return .json(request.query["osm_ids"] == "N1870234571" ? FakeFixtures.nominatimSearch : "[]")
            case "/reverse": return .json(FakeFixtures.nominatimResult)
            default: return FakeReply(status: 404, body: Data("Not found".utf8))
            }
        }
    }
}
