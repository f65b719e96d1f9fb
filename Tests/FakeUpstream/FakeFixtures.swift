/// Recorded-style replies, in each provider's documented shape, for the fakes in ``FakeRoutes``.
///
/// The same real places appear across providers (Blue Bottle Coffee, Hayes Valley, San Francisco;
/// Maya Bar, Helsinki) so matching and merging can be tested end to end.
public enum FakeFixtures {
    public static let googlePlaceID = "ChIJ6c2CLJ6AhYARqOkfq4DkL6k"

    /// One Google `Place` with every field this project can ask for.
    public static let googlePlace = #"""
    {
      "id": "ChIJ6c2CLJ6AhYARqOkfq4DkL6k",
      "displayName": {"text": "Blue Bottle Coffee", "languageCode": "en"},
      "location": {"latitude": 37.7763209, "longitude": -122.4232337},
      "formattedAddress": "315 Linden St, San Francisco, CA 94102, USA",
      "addressComponents": [
        {"longText": "315", "shortText": "315", "types": ["street_number"], "languageCode": "en"},
        {"longText": "Linden Street", "shortText": "Linden St", "types": ["route"], "languageCode": "en"},
        {"longText": "Hayes Valley", "shortText": "Hayes Valley", "types": ["neighborhood", "political"], "languageCode": "en"},
        {"longText": "San Francisco", "shortText": "SF", "types": ["locality", "political"], "languageCode": "en"},
        {"longText": "California", "shortText": "CA", "types": ["administrative_area_level_1", "political"], "languageCode": "en"},
        {"longText": "United States", "shortText": "US", "types": ["country", "political"], "languageCode": "en"},
        {"longText": "94102", "shortText": "94102", "types": ["postal_code"], "languageCode": "en"}
      ],
      "internationalPhoneNumber": "+1 510-653-3394",
      "nationalPhoneNumber": "(510) 653-3394",
      "websiteUri": "https://bluebottlecoffee.com/",
      "types": ["coffee_shop", "cafe", "food_store", "restaurant", "food", "point_of_interest", "store", "establishment"],
      "primaryType": "coffee_shop",
      "rating": 4.4,
      "userRatingCount": 1385,
      "businessStatus": "OPERATIONAL",
      "utcOffsetMinutes": -480,
      "timeZone": {"id": "America/Los_Angeles"},
      "regularOpeningHours": {
        "openNow": true,
        "periods": [
          {"open": {"day": 0, "hour": 7, "minute": 0}, "close": {"day": 0, "hour": 18, "minute": 0}},
          {"open": {"day": 1, "hour": 6, "minute": 30}, "close": {"day": 1, "hour": 18, "minute": 0}},
          {"open": {"day": 2, "hour": 6, "minute": 30}, "close": {"day": 2, "hour": 18, "minute": 0}},
          {"open": {"day": 3, "hour": 6, "minute": 30}, "close": {"day": 3, "hour": 18, "minute": 0}},
          {"open": {"day": 4, "hour": 6, "minute": 30}, "close": {"day": 4, "hour": 18, "minute": 0}},
          {"open": {"day": 5, "hour": 6, "minute": 30}, "close": {"day": 5, "hour": 18, "minute": 0}},
          {"open": {"day": 6, "hour": 7, "minute": 0}, "close": {"day": 6, "hour": 18, "minute": 0}}
        ],
        "weekdayDescriptions": [
          "Monday: 6:30 AM – 6:00 PM", "Tuesday: 6:30 AM – 6:00 PM", "Wednesday: 6:30 AM – 6:00 PM",
          "Thursday: 6:30 AM – 6:00 PM", "Friday: 6:30 AM – 6:00 PM", "Saturday: 7:00 AM – 6:00 PM",
          "Sunday: 7:00 AM – 6:00 PM"
        ]
      }
    }
    """#

    public static let googleSecondPlace = #"""
    {
      "id": "ChIJX8oBl56AhYARVqXZvX3Q0nE",
      "displayName": {"text": "Blue Bottle Coffee", "languageCode": "en"},
      "location": {"latitude": 37.7825, "longitude": -122.4078},
      "formattedAddress": "66 Mint St, San Francisco, CA 94103, USA",
      "types": ["coffee_shop", "cafe", "establishment"],
      "primaryType": "coffee_shop",
      "businessStatus": "OPERATIONAL",
      "regularOpeningHours": {"periods": [{"open": {"day": 0, "hour": 0, "minute": 0}}], "weekdayDescriptions": []}
    }
    """#

    public static let googleSearchText = "{\"places\": [\(googlePlace), \(googleSecondPlace)]}"

    public static let googleAutocomplete = #"""
    {
      "suggestions": [
        {"placePrediction": {
          "place": "places/ChIJ6c2CLJ6AhYARqOkfq4DkL6k",
          "placeId": "ChIJ6c2CLJ6AhYARqOkfq4DkL6k",
          "text": {"text": "Blue Bottle Coffee, Linden Street, San Francisco, CA, USA", "matches": [{"endOffset": 11}]},
          "structuredFormat": {
            "mainText": {"text": "Blue Bottle Coffee", "matches": [{"endOffset": 11}]},
            "secondaryText": {"text": "Linden Street, San Francisco, CA, USA"}
          },
          "types": ["coffee_shop", "cafe", "establishment"]
        }},
        {"placePrediction": {
          "place": "places/ChIJX8oBl56AhYARVqXZvX3Q0nE",
          "placeId": "ChIJX8oBl56AhYARVqXZvX3Q0nE",
          "text": {"text": "Blue Bottle Coffee, Mint Street, San Francisco, CA, USA"},
          "structuredFormat": {
            "mainText": {"text": "Blue Bottle Coffee"},
            "secondaryText": {"text": "Mint Street, San Francisco, CA, USA"}
          }
        }}
      ]
    }
    """#

    public static let yelpBusinessID = "Ka2HIBgoXwqTAR5-Ab0d3A"

    public static let yelpBusiness = #"""
    {
      "id": "Ka2HIBgoXwqTAR5-Ab0d3A",
      "alias": "blue-bottle-coffee-san-francisco-8",
      "name": "Blue Bottle Coffee",
      "image_url": "https://s3-media2.fl.yelpcdn.com/bphoto/example/o.jpg",
      "is_closed": false,
      "url": "https://www.yelp.com/biz/blue-bottle-coffee-san-francisco-8",
      "review_count": 1990,
      "categories": [{"alias": "coffee", "title": "Coffee & Tea"}],
      "rating": 4.0,
      "coordinates": {"latitude": 37.77632, "longitude": -122.42326},
      "transactions": [],
      "price": "$",
      "location": {
        "address1": "315 Linden St", "address2": "", "address3": "", "city": "San Francisco",
        "zip_code": "94102", "country": "US", "state": "CA",
        "display_address": ["315 Linden St", "San Francisco, CA 94102"]
      },
      "phone": "+15106533394",
      "display_phone": "(510) 653-3394",
      "distance": 12.6,
      "hours": [{
        "open": [
          {"is_overnight": false, "start": "0630", "end": "1800", "day": 0},
          {"is_overnight": false, "start": "0630", "end": "1800", "day": 1},
          {"is_overnight": false, "start": "0630", "end": "1800", "day": 2},
          {"is_overnight": false, "start": "0630", "end": "1800", "day": 3},
          {"is_overnight": true, "start": "1900", "end": "0200", "day": 4},
          {"is_overnight": false, "start": "0700", "end": "1800", "day": 5},
          {"is_overnight": false, "start": "0700", "end": "1800", "day": 6}
        ],
        "hours_type": "REGULAR",
        "is_open_now": true
      }]
    }
    """#

    public static let yelpSearch = "{\"businesses\": [\(yelpBusiness)], \"total\": 1, \"region\": {\"center\": {\"longitude\": -122.4232, \"latitude\": 37.7763}}}"

    public static let yelpMatches = #"""
    {"businesses": [{
      "id": "Ka2HIBgoXwqTAR5-Ab0d3A", "alias": "blue-bottle-coffee-san-francisco-8", "name": "Blue Bottle Coffee",
      "coordinates": {"latitude": 37.77632, "longitude": -122.42326},
      "location": {"address1": "315 Linden St", "city": "San Francisco", "zip_code": "94102", "country": "US",
                   "state": "CA", "display_address": ["315 Linden St", "San Francisco, CA 94102"]},
      "phone": "+15106533394"
    }]}
    """#

    public static let foursquarePlaceID = "49d51ce3f964a520675c1fe3"

    public static let foursquarePlace = #"""
    {
      "fsq_place_id": "49d51ce3f964a520675c1fe3",
      "name": "Blue Bottle Coffee",
      "latitude": 37.776303,
      "longitude": -122.423218,
      "categories": [{"fsq_category_id": "4bf58dd8d48988d1e0931735", "name": "Coffee Shop", "short_name": "Coffee Shop", "plural_name": "Coffee Shops"}],
      "location": {
        "address": "315 Linden St", "locality": "San Francisco", "region": "CA", "postcode": "94102", "country": "US",
        "formatted_address": "315 Linden St, San Francisco, CA 94102"
      },
      "tel": "(510) 653-3394",
      "website": "https://bluebottlecoffee.com",
      "distance": 14
    }
    """#

    /// The same place with the Premium fields (`hours`, `rating`) Foursquare sends only when asked for.
    public static let foursquarePlacePremium = #"""
    {
      "fsq_place_id": "49d51ce3f964a520675c1fe3",
      "name": "Blue Bottle Coffee",
      "latitude": 37.776303,
      "longitude": -122.423218,
      "categories": [{"fsq_category_id": "4bf58dd8d48988d1e0931735", "name": "Coffee Shop"}],
      "location": {"address": "315 Linden St", "locality": "San Francisco", "region": "CA", "postcode": "94102",
                   "country": "US", "formatted_address": "315 Linden St, San Francisco, CA 94102"},
      "tel": "(510) 653-3394",
      "website": "https://bluebottlecoffee.com",
      "rating": 8.9,
      "hours": {"display": "Mon-Fri 6:30-18:00; Sat-Sun 7:00-18:00", "is_local_holiday": false, "open_now": true,
                "regular": [{"day": 1, "open": "0630", "close": "1800"}, {"day": 5, "open": "2200", "close": "+0200"},
                            {"day": 7, "open": "0700", "close": "1800"}]}
    }
    """#

    public static let foursquareSearch = "{\"results\": [\(foursquarePlace)], \"context\": {}}"
    public static let foursquareMatch = "{\"place\": \(foursquarePlace), \"match_score\": 0.97}"

    /// Maya Bar in Helsinki, as node 1870234571 (the local index's id for it is the same `osm:node/…`).
    public static let nominatimResult = #"""
    {
      "place_id": 134125612, "licence": "Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright",
      "osm_type": "node", "osm_id": 1870234571, "lat": "60.1720815", "lon": "24.9450212",
      "category": "amenity", "type": "bar", "place_rank": 30, "importance": 0.00008, "addresstype": "amenity",
      "name": "Maya Bar", "display_name": "Maya Bar, 2, Annankatu, Kamppi, Helsinki, 00120, Suomi / Finland",
      "address": {"amenity": "Maya Bar", "house_number": "2", "road": "Annankatu", "suburb": "Kamppi",
                  "city": "Helsinki", "postcode": "00120", "country": "Suomi / Finland", "country_code": "fi"},
      "extratags": {"opening_hours": "Mo-Th 16:00-02:00; Fr-Sa 16:00-04:00; Su 18:00-02:00",
                    "phone": "+358 9 6128 2420", "website": "https://www.mayabar.fi/"},
      "namedetails": {"name": "Maya Bar"},
      "boundingbox": ["60.1720315", "60.1721315", "24.9449712", "24.9450712"]
    }
    """#

    public static let nominatimSearch = "[\(nominatimResult)]"
}
