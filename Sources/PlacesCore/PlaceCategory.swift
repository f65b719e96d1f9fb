import Foundation

/// One vocabulary of categories across providers, so `--category cafe` means the same thing whether
/// the answer came from OSM (`amenity=cafe`), Google (`coffee_shop`), Yelp (`coffee`) or Foursquare
/// ("Coffee Shop").
public enum PlaceCategory {
    /// The normalised names, as users type them after `--category`.
    public static let all: [String] = [
        "cafe", "restaurant", "fast_food", "bar", "pub", "nightclub", "bakery", "ice_cream",
        "supermarket", "convenience", "shop", "clothes", "books", "pharmacy", "hospital", "doctor", "dentist",
        "bank", "atm", "post_office", "fuel", "parking", "hotel", "hostel", "museum", "gallery",
        "theatre", "cinema", "attraction", "park", "sports", "gym", "school", "university", "library",
        "place_of_worship", "townhall", "police", "toilets", "office", "craft", "historic", "city",
    ]

    private static let aliases: [String: String] = [
        "coffee": "cafe", "coffee_shop": "cafe", "coffeeshop": "cafe", "cafes": "cafe", "café": "cafe",
        "coffee shop": "cafe", "coffee & tea": "cafe", "coffeeroasteries": "cafe", "tea_house": "cafe",
        "restaurants": "restaurant", "food_court": "restaurant", "diner": "restaurant", "biergarten": "pub",
        "fastfood": "fast_food", "fast food": "fast_food", "fast_food_restaurant": "fast_food", "hotdogs": "fast_food",
        "bars": "bar", "wine_bar": "bar", "cocktailbars": "bar", "cocktail bar": "bar", "pubs": "pub",
        "night_club": "nightclub", "bakeries": "bakery", "icecream": "ice_cream", "ice_cream_shop": "ice_cream",
        "grocery": "supermarket", "grocery_store": "supermarket", "convenience_store": "convenience",
        "bookstore": "books", "book_store": "books", "drugstore": "pharmacy", "chemist": "pharmacy",
        "clinic": "doctor", "doctors": "doctor", "gas_station": "fuel", "parking_lot": "parking",
        "lodging": "hotel", "hotels": "hotel", "guest_house": "hotel", "motel": "hotel", "hostels": "hostel",
        "museums": "museum", "art_gallery": "gallery", "arts_centre": "gallery", "movie_theater": "cinema",
        "tourist_attraction": "attraction", "viewpoint": "attraction", "artwork": "attraction",
        "fitness_centre": "gym", "gyms": "gym", "sports_centre": "sports", "stadium": "sports",
        "church": "place_of_worship", "mosque": "place_of_worship", "synagogue": "place_of_worship",
        "city_hall": "townhall", "post_box": "post_office", "police_station": "police", "restroom": "toilets",
        "clothing_store": "clothes", "fashion": "clothes", "shopping_mall": "shop", "mall": "shop",
        "department_store": "shop", "store": "shop", "playground": "park", "garden": "park",
        "college": "university", "kindergarten": "school",
    ]

    /// A category as typed after `--category` or `CATEGORY`, normalised (`coffee` → `cafe`, `Fast food` →
    /// `fast_food`); `nil` stays `nil`.
    /// - Throws: ``InputError`` naming the nearest known category, if one is close, and listing them all.
    public static func checked(_ typed: String?) throws(InputError) -> String? {
        guard let typed else { return nil }
        if let category = normalize(typed) { return category }
        let folded = TextFolding.fold(typed).trimmedOfSpaces.replacing(ascii: " ", with: "_")
        let nearest = all.compactMap { name in SearchText.editDistance(folded, name, limit: 2).map { (name, $0) } }
            .min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
        let hint = nearest.map { " (did you mean \($0)?)" } ?? ""
        throw InputError("unknown category '\(typed.prefix(40))'\(hint); known categories: \(all.sorted().joined(separator: ", "))")
    }

    /// The normalised category for a provider label, or `nil` when it means nothing we group by.
    /// Accepts bare values (`cafe`), OSM `key=value` pairs and human titles ("Coffee Shop").
    public static func normalize(_ label: String) -> String? {
        var key = TextFolding.fold(label).trimmedOfSpaces
        if let equals = key.firstIndex(of: "=") {
            let tagKey = String(key[..<equals])
            key = String(key[key.index(after: equals)...])
            if let fallback = keyFallbacks[tagKey],
               normalizeValue(key) == nil {
                return fallback
            }
        }
        return normalizeValue(key)
    }

    /// OSM keys whose every value is at least this category (`shop=anything` is a shop).
    private static let keyFallbacks = ["shop": "shop", "office": "office", "craft": "craft", "historic": "historic"]

    /// ``all`` as a set: an import normalises the category of every POI it reads.
    private static let known = Set(all)

    private static func normalizeValue(_ key: String) -> String? {
        if known.contains(key) { return key }
        if let alias = aliases[key] { return alias }
        let underscored = key.replacing(ascii: " ", with: "_")
        if known.contains(underscored) { return underscored }
        if let alias = aliases[underscored] { return alias }
        if key.hasSuffix("s"), known.contains(String(key.dropLast())) { return String(key.dropLast()) }
        for suffix in ["_restaurant", " restaurant"] where key.hasSuffix(suffix) { return "restaurant" }
        return nil
    }
}
