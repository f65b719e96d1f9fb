import Foundation
import PlacesCore
import PlacesHours
import ProviderHTTP

/// Google Places API (New): the costly fallback, used when cheaper answers are not the right place.
///
/// Every call carries the smallest `X-Goog-FieldMask` for the fields asked for (see ``GoogleFieldMask``),
/// so it bills the cheapest SKU that serves them. Autocomplete followed by Details shares one session
/// token (``newSessionToken()``); a token ends with the Details call and is never sent again.
///
/// ```swift
/// let token = GoogleProvider.newSessionToken()
/// let suggestions = try await google.suggest(SuggestQuery(prefix: "blue bot", sessionToken: token))
/// let place = try await google.details(DetailsQuery(id: suggestions[0].placeID!, sessionToken: token))
/// ```
public struct GoogleProvider: PlaceProvider {
    public let name = "google"
    public let capabilities: ProviderCapabilities = [.textSearch, .nearby, .details, .suggest, .idProbe]
    public let cacheTerms: CacheTerms
    public let client: HTTPClient
    public let prices: PriceTable
    private let sessions = SessionTokenLedger()

    public init(client: HTTPClient, prices: PriceTable = GoogleProvider.defaultPrices,
                cacheTerms: CacheTerms = GoogleProvider.defaultCacheTerms) {
        self.client = client
        self.prices = prices
        self.cacheTerms = cacheTerms
    }

    /// Reads Google's `{"error":{"code","message","status"}}`. Google answers a bad key with
    /// 400 INVALID_ARGUMENT ("API key not valid"), which is an authentication failure, not a bad request.
    public static let errorReader: @Sendable (HTTPResponse) -> UpstreamErrorDetail = { response in
        var detail = HTTPClient.genericErrorDetail(response)
        let body = String(decoding: response.body, as: UTF8.self)
        if response.status == 400, body.contains("API_KEY_INVALID") || (detail.message ?? "").contains("API key not valid") {
            detail.kind = .authentication
        }
        return detail
    }

    /// A fresh autocomplete session token: a UUIDv4, used for one session only.
    public static func newSessionToken() -> String { UUID().uuidString.lowercased() }

    /// The key header travels with every call; the client scrubs it from every message.
    private func headers(mask: String?) -> [String: String] {
        var headers = ["Content-Type": "application/json"]
        if let key = client.configuration.secrets.first { headers["X-Goog-Api-Key"] = key }
        if let mask { headers["X-Goog-FieldMask"] = mask }
        return headers
    }

    // MARK: Operations

    public func search(_ query: SearchQuery) async throws -> [Place] {
        let body = GoogleWire.SearchTextRequest(
            textQuery: query.text, pageSize: min(max(query.limit, 1), 20),
            includedType: query.category.flatMap(Self.googleType),
            locationBias: query.near.map { Self.circle($0, radius: query.radius ?? 5_000) })
        return try await postSearch(path: "/v1/places:searchText", body: JSONBody.encode(body), fields: query.fields)
    }

    /// Text Search with the IDs-only field mask (`places.id`), restricted to the query's square: Google bills
    /// it at $0 and lets ids be kept indefinitely. The lookup pipeline asks it to learn how many places the
    /// words typed fit before paying for their content.
    public func probe(_ query: ProbeQuery) async throws -> [String] {
        let (low, high) = query.corners
        let body = GoogleWire.SearchTextIDsRequest(
            textQuery: query.text, pageSize: min(max(query.limit, 1), 20),
            locationRestriction: GoogleWire.RectangleArea(rectangle: GoogleWire.Viewport(
                low: GoogleWire.LatLng(latitude: low.latitude, longitude: low.longitude),
                high: GoogleWire.LatLng(latitude: high.latitude, longitude: high.longitude))))
        let response = try await post(path: "/v1/places:searchText", body: JSONBody.encode(body),
                                      mask: GoogleFieldMask.idsOnlySearchMask)
        return (try client.decode(GoogleWire.IDsOnlySearchResponse.self, from: response).places ?? []).map(\.id)
    }

    public func nearby(_ query: NearbyQuery) async throws -> [Place] {
        let body = GoogleWire.SearchNearbyRequest(
            locationRestriction: Self.circle(query.center, radius: query.radius),
            maxResultCount: min(max(query.limit, 1), 20),
            includedTypes: query.category.flatMap(Self.googleType).map { [$0] }, rankPreference: "DISTANCE")
        var places = try await postSearch(path: "/v1/places:searchNearby", body: JSONBody.encode(body), fields: query.fields)
        if let brand = query.brand.map(TextFolding.fold) {
            places = places.filter { TextFolding.fold($0.name).contains(brand) }
        }
        return places
    }

    public func details(_ query: DetailsQuery) async throws -> Place? {
        guard query.id.provider == name else { throw ProviderError.unsupported(name, .details) }
        let token = query.sessionToken
        try await sessions.checkUnspent(token, provider: name)
        let escaped = query.id.nativeID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"]))
            ?? query.id.nativeID
        let url = HTTPRequest.url(base: client.baseURL, path: "/v1/places/\(escaped)", query: [("sessionToken", token)])
        let response = try await client.send(HTTPRequest(
            method: .get, url: url, headers: headers(mask: GoogleFieldMask.mask(for: query.fields, search: false))))
        // Google answered, so the session is over whether or not the place still exists.
        await sessions.markSpent(token)
        if response.status == 404 { return nil }
        return try client.checked(convert(try client.decode(GoogleWire.Place.self, from: response), at: Date()))
    }

    public func suggest(_ query: SuggestQuery) async throws -> [Suggestion] {
        try await sessions.checkUnspent(query.sessionToken, provider: name)
        let body = GoogleWire.AutocompleteRequest(
            input: query.prefix, sessionToken: query.sessionToken,
            locationBias: query.near.map { Self.circle($0, radius: 5_000) })
        let response = try await client.send(HTTPRequest(
            method: .post, url: HTTPRequest.url(base: client.baseURL, path: "/v1/places:autocomplete"),
            headers: headers(mask: nil), body: JSONBody.encode(body)))
        let reply = try client.decode(GoogleWire.AutocompleteResponse.self, from: response)
        return (reply.suggestions ?? []).compactMap(\.placePrediction).prefix(query.limit).map { prediction in
            let main = prediction.structuredFormat?.mainText?.text ?? prediction.text?.text ?? prediction.placeId
            return Suggestion(text: main, secondaryText: prediction.structuredFormat?.secondaryText?.text,
                              placeID: PlaceID(provider: name, nativeID: prediction.placeId))
        }
    }

    private func postSearch(path: String, body: Data, fields: Set<PlaceField>) async throws -> [Place] {
        let response = try await post(path: path, body: body, mask: GoogleFieldMask.mask(for: fields, search: true))
        let now = Date()
        return try client.checked((try client.decode(GoogleWire.SearchResponse.self, from: response).places ?? []).map { convert($0, at: now) })
    }

    /// POSTs a search body under a field mask (the mask decides the bill). A 404 here means a wrong base URL,
    /// not "no such place": searches answer an empty list for that.
    private func post(path: String, body: Data, mask: String) async throws -> HTTPResponse {
        let response = try await client.send(HTTPRequest(
            method: .post, url: HTTPRequest.url(base: client.baseURL, path: path), headers: headers(mask: mask), body: body))
        if response.status == 404 {
            throw client.error(.badRequest, "\(path) not found (404); check base_url in [providers.google]", status: 404)
        }
        return response
    }

    // MARK: Mapping

    private static func circle(_ center: Coordinate, radius: Double) -> GoogleWire.CircleArea {
        GoogleWire.CircleArea(circle: GoogleWire.Circle(
            center: GoogleWire.LatLng(latitude: center.latitude, longitude: center.longitude),
            radius: min(max(radius, 1), 50_000)))
    }

    /// Our categories that are also Google place types; others are not sent (an unknown type is a 400).
    private static let sharedTypes: Set<String> = [
        "cafe", "restaurant", "bar", "bakery", "pharmacy", "supermarket", "museum", "park", "library", "bank",
        "atm", "hospital", "dentist", "gym", "parking", "school", "university", "hotel", "zoo", "cinema",
    ]

    private static func googleType(_ category: String) -> String? {
        guard let normalized = PlaceCategory.normalize(category), sharedTypes.contains(normalized) else { return nil }
        return ["hotel": "lodging", "cinema": "movie_theater"][normalized] ?? normalized
    }

    /// Malformed hours are unknown (`nil`), never a guessed "closed" day; the reply itself still stands.
    static func openingPeriods(_ wire: [GoogleWire.Period]) -> [WeeklyOpenPeriod]? {
        var input: [ProviderHours.GooglePeriod] = []
        for period in wire {
            guard let open = period.open.hoursInput else { return nil }
            var close: ProviderHours.GooglePoint?
            if let closePoint = period.close {
                guard let point = closePoint.hoursInput else { return nil }
                close = point
            }
            input.append(ProviderHours.GooglePeriod(open: open, close: close))
        }
        return try? ProviderHours.google(periods: input)
    }

    func convert(_ wire: GoogleWire.Place, at date: Date) -> Place {
        var address = PostalAddress()
        for component in wire.addressComponents ?? [] {
            let types = Set(component.types ?? [])
            if types.contains("street_number") { address.houseNumber = component.longText }
            if types.contains("route") { address.street = component.longText }
            if types.contains("subpremise") { address.unit = component.longText }
            if types.contains("postal_code") { address.postcode = component.longText }
            if types.contains("locality") || (address.city == nil && types.contains("postal_town")) { address.city = component.longText }
            if types.contains("sublocality") || types.contains("neighborhood") { address.district = component.longText }
            if types.contains("administrative_area_level_1") { address.region = component.shortText ?? component.longText }
            if types.contains("country") { address.countryCode = component.shortText?.uppercased() }
        }
        let phone = wire.internationalPhoneNumber.map { PhoneNumber.e164($0) ?? $0 }
            ?? wire.nationalPhoneNumber.map { PhoneNumber.e164($0, defaultRegion: address.countryCode) ?? $0 }
        let types = wire.types ?? []
        let category = ([wire.primaryType].compactMap { $0 } + types).lazy.compactMap(PlaceCategory.normalize).first
        let status: BusinessStatus? = switch wire.businessStatus {
        case "OPERATIONAL": .operational
        case "CLOSED_TEMPORARILY": .closedTemporarily
        case "CLOSED_PERMANENTLY": .closedPermanently
        default: nil
        }
        let periods = wire.regularOpeningHours?.periods.flatMap(Self.openingPeriods)
        let hoursText = wire.regularOpeningHours?.weekdayDescriptions.flatMap { $0.isEmpty ? nil : $0.joined(separator: "; ") }
        return Place(
            id: PlaceID(provider: name, nativeID: wire.id), name: wire.displayName.text,
            coordinate: Coordinate(latitude: wire.location.latitude, longitude: wire.location.longitude),
            address: address.isEmpty ? nil : address, formattedAddress: wire.formattedAddress, phone: phone,
            website: wire.websiteUri, categories: types, category: category, openingHoursText: hoursText,
            openingPeriods: periods, timeZone: wire.timeZone?.id, utcOffsetMinutes: wire.utcOffsetMinutes,
            rating: wire.rating, ratingCount: wire.userRatingCount, status: status
        ).attributed(to: name, at: date)
    }
}

/// Session tokens that have ended. A token ends with the Details call that closes its session;
/// Google bills a reused token as a new, unbundled session, so it is refused instead of sent.
actor SessionTokenLedger {
    private var spent: Set<String> = []

    private static func validate(_ token: String, provider: String) throws(ProviderError) {
        guard let uuid = UUID(uuidString: token), uuid.uuidString.lowercased() == token.lowercased(),
              token[token.index(token.startIndex, offsetBy: 14)] == "4"
        else {
            throw ProviderError(provider: provider, kind: .badRequest,
                                message: "session token '\(token)' is not a UUIDv4; make one with GoogleProvider.newSessionToken()")
        }
    }

    func checkUnspent(_ token: String?, provider: String) throws(ProviderError) {
        guard let token else { return }
        try Self.validate(token, provider: provider)
        if spent.contains(token) {
            throw ProviderError(provider: provider, kind: .badRequest,
                                message: "session token already ended with a details call; start a new session with a new token")
        }
    }

    func markSpent(_ token: String?) {
        if let token { spent.insert(token) }
    }
}
