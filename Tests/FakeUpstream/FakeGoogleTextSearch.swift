import Foundation

/// Google Text Search over a small world of places, by a rule of its own (not the matcher's), so that a
/// test of the pipeline's free id probe cannot pass because the fake agrees with the matcher.
///
/// A place fits `textQuery` when a word of the text (three letters or more, folded) equals a word of its
/// name, starts one, or is one slip from one (a swapped, dropped, added or changed letter; both words four
/// letters or more). Fitting places are ranked by how well (equal 3, slip 2, start 1, summed over the words
/// typed), then by distance from the area's centre; at most `pageSize` (20 at most), then `noise` unrelated
/// places of the area are appended, as real searches return loosely related results. `locationRestriction`
/// (a rectangle) drops places outside it; `locationBias` only orders. The reply carries the members the
/// `X-Goog-FieldMask` names, so `places.id` gets ids alone.
///
/// ```swift
/// let google = try await FakeUpstream.start(handler: FakeGoogleTextSearch(places: [vama]).handler())
/// ```
public struct FakeGoogleTextSearch: Sendable {
    public struct Place: Sendable {
        public var id: String
        public var name: String
        public var latitude: Double
        public var longitude: Double
        public var types: [String]

        public init(id: String, name: String, latitude: Double, longitude: Double, types: [String] = ["restaurant"]) {
            self.id = id
            self.name = name
            self.latitude = latitude
            self.longitude = longitude
            self.types = types
        }

        var json: [String: Any] {
            ["id": id, "name": "places/\(id)", "displayName": ["text": name, "languageCode": "en"],
             "location": ["latitude": latitude, "longitude": longitude], "types": types,
             "formattedAddress": "\(name), Helsinki, Finland"]
        }
    }

    public var places: [Place]
    /// Unrelated places of the area appended to every reply.
    public var noise: Int
    public var apiKey: String

    public init(places: [Place], noise: Int = 0, apiKey: String = FakeRoutes.testKey) {
        self.places = places
        self.noise = noise
        self.apiKey = apiKey
    }

    public func handler(validator: GoogleDiscoveryValidator? = nil) -> @Sendable (RecordedRequest) -> FakeReply {
        { request in
            if let validator {
                let problems = validator.violations(in: request)
                if !problems.isEmpty {
                    return .json(FakeRoutes.googleError(400, "INVALID_ARGUMENT", problems.joined(separator: "; ")), status: 400)
                }
            }
            guard request.header("X-Goog-Api-Key") == apiKey else {
                return .json(FakeRoutes.googleError(403, "PERMISSION_DENIED", "API key not valid."), status: 403)
            }
            guard request.method == "POST", request.path == "/v1/places:searchText", let body = request.jsonBody,
                  let text = body["textQuery"] as? String else { return .notFound() }
            let mask = (request.header("X-Goog-FieldMask") ?? "").split(separator: ",")
                .map { String($0.trimmingCharacters(in: .whitespaces).dropFirst("places.".count)) }
            let pageSize = min(20, max(1, (body["pageSize"] as? Int) ?? 20))
            let found = answer(text, restriction: Self.rectangle(body["locationRestriction"]),
                               center: Self.center(body), pageSize: pageSize)
            let keep = Set(mask.map { $0.split(separator: ".").first.map(String.init) ?? $0 })
            let list = found.map { $0.json.filter { keep.contains($0.key) } }
            let data = (try? JSONSerialization.data(withJSONObject: list.isEmpty ? [:] : ["places": list], options: [.sortedKeys]))
                ?? Data("{}".utf8)
            return .json(String(decoding: data, as: UTF8.self))
        }
    }

    /// The places the rule returns for `text`, best first, noise last.
    public func answer(_ text: String, restriction: (low: (Double, Double), high: (Double, Double))?,
                       center: (Double, Double)?, pageSize: Int = 20) -> [Place] {
        let inside = places.filter { place in
            guard let restriction else { return true }
            return place.latitude >= restriction.low.0 && place.latitude <= restriction.high.0
                && place.longitude >= restriction.low.1 && place.longitude <= restriction.high.1
        }
        let typed = Self.words(text)
        func distance(_ place: Place) -> Double {
            guard let center else { return 0 }
            return hypot(place.latitude - center.0, (place.longitude - center.1) * cos(center.0 * .pi / 180))
        }
        let ranked = inside.compactMap { place -> (fit: Int, distance: Double, place: Place)? in
            let listed = Self.words(place.name)
            let fit = typed.map { word in listed.map { Self.fit(word, $0) }.max() ?? 0 }.reduce(0, +)
            return fit > 0 ? (fit, distance(place), place) : nil
        }.sorted { $0.fit != $1.fit ? $0.fit > $1.fit : $0.distance < $1.distance }
        let fitting = ranked.prefix(pageSize).map(\.place)
        let unrelated = inside.filter { place in !ranked.contains { $0.place.id == place.id } }.prefix(noise)
        return Array((fitting + unrelated).prefix(pageSize))
    }

    static func words(_ text: String) -> [[Character]] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
            .split { !$0.isLetter && !$0.isNumber }.filter { $0.count >= 3 }.map(Array.init)
    }

    static func fit(_ typed: [Character], _ listed: [Character]) -> Int {
        if typed == listed { return 3 }
        if typed.count >= 4 && listed.count >= 4 && oneSlip(typed, listed) { return 2 }
        return listed.starts(with: typed) ? 1 : 0
    }

    /// One swapped pair of neighbours, or one letter dropped, added or changed.
    static func oneSlip(_ a: [Character], _ b: [Character]) -> Bool {
        if a.count == b.count {
            let differ = a.indices.filter { a[$0] != b[$0] }
            return differ.count == 1
                || (differ.count == 2 && differ[1] == differ[0] + 1 && a[differ[0]] == b[differ[1]] && a[differ[1]] == b[differ[0]])
        }
        let (short, long) = a.count < b.count ? (a, b) : (b, a)
        guard long.count == short.count + 1 else { return false }
        return long.indices.contains { skip in Array(long[..<skip] + long[(skip + 1)...]) == short }
    }

    static func rectangle(_ value: Any?) -> (low: (Double, Double), high: (Double, Double))? {
        guard let rectangle = (value as? [String: Any])?["rectangle"] as? [String: Any],
              let low = rectangle["low"] as? [String: Any], let high = rectangle["high"] as? [String: Any],
              let lowLat = low["latitude"] as? Double, let lowLon = low["longitude"] as? Double,
              let highLat = high["latitude"] as? Double, let highLon = high["longitude"] as? Double else { return nil }
        return ((lowLat, lowLon), (highLat, highLon))
    }

    static func center(_ body: [String: Any]) -> (Double, Double)? {
        if let rectangle = rectangle(body["locationRestriction"]) {
            return ((rectangle.low.0 + rectangle.high.0) / 2, (rectangle.low.1 + rectangle.high.1) / 2)
        }
        guard let circle = (body["locationBias"] as? [String: Any])?["circle"] as? [String: Any],
              let center = circle["center"] as? [String: Any],
              let latitude = center["latitude"] as? Double, let longitude = center["longitude"] as? Double else { return nil }
        return (latitude, longitude)
    }
}
