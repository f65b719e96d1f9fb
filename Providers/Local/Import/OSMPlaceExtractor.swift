import Foundation
import PlacesCore

/// Turns OSM objects into places: POIs (named, with a POI tag) and address points.
///
/// Reading is one pass in file order. Node positions are kept in a compact sorted table so ways
/// (centroid of their nodes) and then relations (centroid of their resolvable members) can be placed.
struct OSMPlaceExtractor {
    static let poiKeys = ["amenity", "shop", "tourism", "leisure", "office", "craft", "historic", "railway"]
    /// Keys whose every value is a place to go, except these, where only the listed values are: a named
    /// `railway` is most often a track or a level crossing, but a station is where people are headed.
    static let poiValues: [String: Set<String>] = ["railway": ["station", "halt"]]
    static let attribution = "© OpenStreetMap contributors (ODbL)"

    /// An extracted object before it is written; the phone is normalised once the region is known.
    struct Candidate {
        var place: Place
        var kind: IndexedKind
        var keywords: [String]
        var rawPhone: String?
        /// Every other name the object has (see ``alternateNames(_:name:)``).
        var alternateNames: [String] = []
        var importance: Double = 0
    }

    /// Name tags other than `name` that people type: other languages, and alternative, old, short,
    /// official, local and international names. `brand` is indexed on its own.
    static let alternateNameKeys: Set<String> = ["alt_name", "old_name", "short_name", "official_name", "loc_name", "int_name", "reg_name"]

    /// Kinds people look for by name: they rank above an obscure POI that matches as well.
    static let prominentKinds: Set<String> = [
        "museum", "attraction", "theatre", "arts_centre", "townhall", "university", "department_store", "mall",
        "place_of_worship", "hospital", "library", "stadium", "zoo", "castle", "monument", "memorial", "gallery",
        "cinema", "concert_hall", "hotel", "marketplace", "bus_station", "ferry_terminal", "cathedral", "park",
        "station",
    ]

    enum IndexedKind { case poi, address }

    private var nodes = NodeLocationTable()
    private var wayCentroids: [Int64: Coordinate] = [:]
    private var relationCentroids: [Int64: Coordinate] = [:]
    /// How often each `addr:country` appears: the file's own guess at its region for phone numbers.
    private(set) var countryVotes: [String: Int] = [:]

    mutating func consume(_ element: OSMElement) -> Candidate? {
        switch element {
        case .node(let node):
            nodes.append(id: node.id, latitude: node.latitude, longitude: node.longitude)
            guard !node.tags.isEmpty else { return nil }
            return candidate(type: .node, id: node.id, tags: node.tags,
                             at: Coordinate(latitude: node.latitude, longitude: node.longitude))
        case .way(let way):
            guard let centroid = wayCentroid(way) else { return nil }
            wayCentroids[way.id] = centroid
            return candidate(type: .way, id: way.id, tags: way.tags, at: centroid)
        case .relation(let relation):
            var sumLat = 0.0, sumLon = 0.0, count = 0.0
            for member in relation.members {
                let location: Coordinate?
                switch member.type {
                case .node: location = nodes.location(of: member.ref)
                case .way: location = wayCentroids[member.ref]
                case .relation: location = relationCentroids[member.ref]
                }
                if let location { sumLat += location.latitude; sumLon += location.longitude; count += 1 }
            }
            guard count > 0 else { return nil }
            let centroid = Coordinate(latitude: sumLat / count, longitude: sumLon / count)
            relationCentroids[relation.id] = centroid
            return candidate(type: .relation, id: relation.id, tags: relation.tags, at: centroid)
        }
    }

    /// The mean of the way's resolvable nodes (a closed ring's repeated first node counted once).
    private mutating func wayCentroid(_ way: OSMWay) -> Coordinate? {
        var refs = way.nodeRefs[...]
        if refs.count > 1, refs.first == refs.last { refs = refs.dropLast() }
        var sumLat = 0.0, sumLon = 0.0, count = 0.0
        for ref in refs {
            if let location = nodes.location(of: ref) {
                sumLat += location.latitude
                sumLon += location.longitude
                count += 1
            }
        }
        return count > 0 ? Coordinate(latitude: sumLat / count, longitude: sumLon / count) : nil
    }

    private mutating func candidate(type: OSMElementType, id: Int64, tags: [String: String], at coordinate: Coordinate) -> Candidate? {
        let address = Self.address(tags)
        if let country = address?.countryCode { countryVotes[country, default: 0] += 1 }
        let placeID = PlaceID(provider: "osm", nativeID: "\(type.rawValue)/\(id)")
        let poiTags = Self.poiKeys.compactMap { key in
            tags[key].flatMap { value in Self.poiValues[key].map { $0.contains(value) } ?? true ? (key, value) : nil }
        }
        if let name = tags["name"]?.trimmingCharacters(in: .whitespaces), !name.isEmpty, !poiTags.isEmpty {
            let categories = poiTags.map { "\($0.0)=\($0.1)" }
            let category = categories.lazy.compactMap(PlaceCategory.normalize).first
            var keywords = poiTags.map { $0.1.replacingOccurrences(of: "_", with: " ") }
            if let category { keywords.append(category.replacingOccurrences(of: "_", with: " ")) }
            if let cuisine = tags["cuisine"] { keywords.append(cuisine.replacingOccurrences(of: ";", with: " ").replacingOccurrences(of: "_", with: " ")) }
            let rawPhone = (tags["phone"] ?? tags["contact:phone"] ?? tags["contact:mobile"])
                .flatMap { $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } }
            let place = Place(
                id: placeID, name: name, coordinate: coordinate, address: address, formattedAddress: address?.formatted,
                phone: rawPhone, website: tags["website"] ?? tags["contact:website"] ?? tags["url"],
                categories: categories, category: category, brand: tags["brand"],
                openingHoursText: tags["opening_hours"], attribution: Self.attribution)
            return Candidate(place: place, kind: .poi, keywords: keywords, rawPhone: rawPhone,
                             alternateNames: Self.alternateNames(tags, name: name), importance: Self.importance(tags, poiTags: poiTags))
        }
        if let address, address.houseNumber != nil, address.street != nil {
            let label = [address.street, address.houseNumber].compactMap { $0 }.joined(separator: " ")
            let place = Place(id: placeID, name: label, coordinate: coordinate, address: address,
                              formattedAddress: address.formatted, attribution: Self.attribution)
            return Candidate(place: place, kind: .address, keywords: [], rawPhone: nil)
        }
        return nil
    }

    /// Every other name of an object, each once (compared folded), without its main name. Tags holding
    /// several names separate them with `;`.
    static func alternateNames(_ tags: [String: String], name: String) -> [String] {
        var seen: Set<String> = [SearchText.words(name).joined(separator: " ")]
        var names: [String] = []
        for key in tags.keys.sorted() where key.hasPrefix("name:") || alternateNameKeys.contains(key) {
            guard let value = tags[key] else { continue }
            for part in value.split(separator: ";") {
                let alternate = part.trimmingCharacters(in: .whitespaces)
                let words = SearchText.words(alternate).joined(separator: " ")
                if !words.isEmpty, seen.insert(words).inserted { names.append(alternate) }
            }
        }
        return names
    }

    /// 0.1 for any POI, more with a Wikipedia or Wikidata link and for kinds people look for by name.
    static func importance(_ tags: [String: String], poiTags: [(String, String)]) -> Double {
        var importance = 0.1
        if tags["wikidata"] != nil || tags["wikipedia"] != nil { importance += 0.25 }
        if poiTags.contains(where: { prominentKinds.contains($0.1) }) || tags["building"] == "cathedral" { importance += 0.15 }
        return importance
    }

    static func address(_ tags: [String: String]) -> PostalAddress? {
        func tag(_ keys: String...) -> String? {
            for key in keys {
                if let value = tags[key]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return value }
            }
            return nil
        }
        let address = PostalAddress(
            houseNumber: tag("addr:housenumber"), street: tag("addr:street", "addr:place"), unit: tag("addr:unit", "addr:flats"),
            postcode: tag("addr:postcode"), city: tag("addr:city"), district: tag("addr:suburb", "addr:district"),
            region: tag("addr:state", "addr:province"), countryCode: tag("addr:country")?.uppercased())
        return address.isEmpty ? nil : address
    }
}

/// Node positions as parallel arrays sorted by id: 16 bytes a node instead of a dictionary's ~60,
/// which is what lets country-sized extracts fit in memory. Positions are kept at 1e-7 degrees,
/// OSM's own precision.
struct NodeLocationTable {
    private var ids: [Int64] = []
    private var latitudes: [Int32] = []
    private var longitudes: [Int32] = []
    private var sorted = true

    mutating func append(id: Int64, latitude: Double, longitude: Double) {
        if let last = ids.last, id <= last { sorted = false }
        ids.append(id)
        latitudes.append(Int32(clamping: Int64((latitude * 1e7).rounded())))
        longitudes.append(Int32(clamping: Int64((longitude * 1e7).rounded())))
    }

    mutating func location(of id: Int64) -> Coordinate? {
        if !sorted { sortByID() }
        var low = 0, high = ids.count
        while low < high {
            let mid = (low + high) / 2
            if ids[mid] < id { low = mid + 1 } else { high = mid }
        }
        guard low < ids.count, ids[low] == id else { return nil }
        return Coordinate(latitude: Double(latitudes[low]) / 1e7, longitude: Double(longitudes[low]) / 1e7)
    }

    /// Files that are not sorted by id (rare; `osmium sort` fixes them) pay for one sort.
    private mutating func sortByID() {
        let order = ids.indices.sorted { ids[$0] < ids[$1] }
        ids = order.map { ids[$0] }
        latitudes = order.map { latitudes[$0] }
        longitudes = order.map { longitudes[$0] }
        sorted = true
    }
}
