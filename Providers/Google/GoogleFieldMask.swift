import PlacesCore

/// Chooses the smallest `X-Goog-FieldMask` for the fields a caller asked for, and the SKU it bills.
///
/// Google bills a call at the highest tier among the fields in its mask, so asking for a phone
/// number (Enterprise) costs more than asking for an address (Essentials). The mask always holds
/// `id`, `displayName` and `location` because every ``PlacesCore/Place`` has a name and a position;
/// that makes Pro the cheapest tier a lookup here can bill.
public enum GoogleFieldMask {
    /// Google's billing tiers, cheapest first.
    public enum Tier: Int, Comparable, Sendable, CaseIterable {
        case idsOnly, essentials, pro, enterprise

        public static func < (lhs: Tier, rhs: Tier) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The tier's part of a SKU name (`details.enterprise`).
        public var skuSuffix: String {
            switch self {
            case .idsOnly: "ids-only"
            case .essentials: "essentials"
            case .pro: "pro"
            case .enterprise: "enterprise"
            }
        }
    }

    /// The tier of each `Place` field this provider asks for, from Google's price list.
    public static let tierOfGoogleField: [String: Tier] = [
        "id": .idsOnly,
        "location": .essentials, "formattedAddress": .essentials, "addressComponents": .essentials, "types": .essentials,
        "displayName": .pro, "primaryType": .pro, "businessStatus": .pro, "utcOffsetMinutes": .pro, "timeZone": .pro,
        "internationalPhoneNumber": .enterprise, "nationalPhoneNumber": .enterprise, "websiteUri": .enterprise,
        "regularOpeningHours": .enterprise, "rating": .enterprise, "userRatingCount": .enterprise,
    ]

    /// The Google `Place` fields that serve each of our fields. `brand` has no Google field.
    public static let googleFields: [PlaceField: [String]] = [
        .id: ["id"], .name: ["displayName"], .coordinate: ["location"],
        .address: ["formattedAddress", "addressComponents"],
        .phone: ["internationalPhoneNumber", "nationalPhoneNumber"], .website: ["websiteUri"],
        .categories: ["types", "primaryType"], .brand: [],
        .hours: ["regularOpeningHours", "utcOffsetMinutes"], .timeZone: ["timeZone", "utcOffsetMinutes"],
        .rating: ["rating", "userRatingCount"], .status: ["businessStatus"],
    ]

    /// The one mask that bills Text Search at the IDs-only SKU ($0): what ``GoogleProvider/probe(_:)`` sends.
    public static let idsOnlySearchMask = "places.id"

    /// Always requested, because a `Place` cannot exist without them.
    static let required: Set<PlaceField> = [.id, .name, .coordinate]

    /// Sorted, de-duplicated Google field names for `fields`.
    public static func paths(for fields: Set<PlaceField>) -> [String] {
        Set(fields.union(required).flatMap { googleFields[$0] ?? [] }).sorted()
    }

    /// The header value: bare names for Details, `places.`-prefixed for Text and Nearby Search.
    public static func mask(for fields: Set<PlaceField>, search: Bool) -> String {
        paths(for: fields).map { search ? "places.\($0)" : $0 }.joined(separator: ",")
    }

    /// The tier the mask for `fields` bills at.
    public static func tier(for fields: Set<PlaceField>) -> Tier {
        paths(for: fields).compactMap { tierOfGoogleField[$0] }.max() ?? .idsOnly
    }
}
