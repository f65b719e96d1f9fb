import Foundation
import PlacesHours

/// Google Places API (New) request and reply shapes, as the discovery document names them.
/// Only the members this provider sends or reads are declared.
enum GoogleWire {
    struct LatLng: Codable, Hashable {
        var latitude: Double
        var longitude: Double
    }

    struct Circle: Codable, Hashable {
        var center: LatLng
        var radius: Double
    }

    struct CircleArea: Codable, Hashable {
        var circle: Circle
    }

    struct SearchTextRequest: Encodable {
        var textQuery: String
        var pageSize: Int?
        var includedType: String?
        var locationBias: CircleArea?
    }

    /// `GoogleGeoTypeViewport`: south-west (`low`) and north-east (`high`) corners.
    struct Viewport: Codable, Hashable {
        var low: LatLng
        var high: LatLng
    }

    /// Text Search's `locationRestriction` holds only a rectangle.
    struct RectangleArea: Codable, Hashable {
        var rectangle: Viewport
    }

    /// Text Search asked for ids only (`X-Goog-FieldMask: places.id`): the IDs-only SKU, billed at $0.
    struct SearchTextIDsRequest: Encodable {
        var textQuery: String
        var pageSize: Int
        var locationRestriction: RectangleArea
    }

    struct IDsOnlyPlace: Decodable { var id: String }

    struct IDsOnlySearchResponse: Decodable {
        /// Absent when nothing matched.
        var places: [IDsOnlyPlace]?
    }

    struct SearchNearbyRequest: Encodable {
        var locationRestriction: CircleArea
        var maxResultCount: Int
        var includedTypes: [String]?
        var rankPreference: String
    }

    struct AutocompleteRequest: Encodable {
        var input: String
        var sessionToken: String?
        var locationBias: CircleArea?
    }

    struct LocalizedText: Decodable { var text: String }

    struct AddressComponent: Decodable {
        var longText: String?
        var shortText: String?
        var types: [String]?
    }

    struct Point: Decodable {
        var day: Int?
        var hour: Int?
        var minute: Int?

        /// Google's JSON leaves out an hour or minute of 0; a point without a day means nothing (`nil`).
        var hoursInput: ProviderHours.GooglePoint? {
            day.map { ProviderHours.GooglePoint(day: $0, hour: hour ?? 0, minute: minute ?? 0) }
        }
    }

    struct Period: Decodable {
        var open: Point
        var close: Point?
    }

    struct OpeningHours: Decodable {
        var periods: [Period]?
        var weekdayDescriptions: [String]?
    }

    struct TimeZone: Decodable { var id: String }

    struct Place: Decodable {
        var id: String
        var displayName: LocalizedText
        var location: LatLng
        var formattedAddress: String?
        var addressComponents: [AddressComponent]?
        var internationalPhoneNumber: String?
        var nationalPhoneNumber: String?
        var websiteUri: String?
        var types: [String]?
        var primaryType: String?
        var regularOpeningHours: OpeningHours?
        var utcOffsetMinutes: Int?
        var timeZone: TimeZone?
        var rating: Double?
        var userRatingCount: Int?
        var businessStatus: String?
    }

    struct SearchResponse: Decodable {
        /// Absent when nothing matched.
        var places: [Place]?
    }

    struct AutocompleteResponse: Decodable {
        struct Suggestion: Decodable {
            struct PlacePrediction: Decodable {
                struct StructuredFormat: Decodable {
                    var mainText: LocalizedText?
                    var secondaryText: LocalizedText?
                }
                var placeId: String
                var text: LocalizedText?
                var structuredFormat: StructuredFormat?
            }
            var placePrediction: PlacePrediction?
        }
        var suggestions: [Suggestion]?
    }
}
