import Foundation
import PlacesCore

/// Turns OSM objects into places: POIs (named, with a POI tag), streets, named parts of a city and postcodes (what a
/// geocoder finds by name besides POIs: "Mannerheimintie", "Kamppi", "Narinkkatori", "00100"), and address points.
///
/// Reading is one pass in file order. Node positions and the centroids of ways and relations are kept in
/// ``LocationStore``s (on disk for a large file) so ways (centroid of their nodes) and then relations (centroid
/// of their resolvable members) can be placed: what the extractor holds does not grow with the extract.
struct OSMPlaceExtractor {
    private static let poiReadKeys: [ReadTags.Key] = [.amenity, .shop, .tourism, .leisure, .office, .craft, .historic, .railway]
    /// Keys whose every value is a place to go, except these, where only the listed values are: a named
    /// `railway` is most often a track or a level crossing, but a station is where people are headed.
    static let poiValues: [String: Set<String>] = ["railway": ["station", "halt"]]
    static let attribution = "© OpenStreetMap contributors (ODbL)"

    /// An extracted object before it is written; the phone is normalised once the region is known.
    struct Candidate: Sendable {
        var place: Place
        var kind: IndexedKind
        var keywords: [String]
        var rawPhone: String?
        /// Every other name the object has (see ``alternateNames(_:name:)``).
        var alternateNames: [String] = []
        var importance: Double = 0
    }

    /// A street or an area as its tags describe it. It is made a ``Candidate`` only once it is known to stand for
    /// its name (``consume(_:tagged:)``): most of a country's street ways do not, and building each one's place
    /// and other names on the decoding threads cost a tenth of an import's CPU.
    struct Feature: Sendable {
        var name: String
        var kind: IndexedKind
        /// What it is ("street", "square", "neighbourhood"…): the category shown and the keyword indexed.
        var label: String
        /// The tag it came from (`highway=primary`).
        var tag: String
        var importance: Double
        /// Its kind and folded name: one place per name within ``OSMPlaceExtractor/sameFeatureReach`` stands for it.
        var sameNameKey: String
        /// Its other-name tags, sorted by key (``ReadTags/alternateNameTags``).
        var alternateNameTags: [(key: String, value: String)]
        var address: PostalAddress?
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

    /// `street`: a named road, one place per name within ``sameFeatureReach`` however many ways map it. `area`: a
    /// named part of a city (``namedAreaPlaceValues``, or a district's administrative boundary), a square, or a
    /// postcode (``postcodeCandidates()``).
    enum IndexedKind { case poi, street, area, address }

    /// `place=*` values below a town that people look for by name: parts of a city, squares, islands. Towns and
    /// cities come from GeoNames, whose populations rank them; an OSM `place=city` would only repeat them.
    static let namedAreaPlaceValues: Set<String> = ["suburb", "quarter", "neighbourhood", "borough", "square", "locality", "island", "islet"]

    /// `highway=*` values of the ways people name as streets, paths included. A named bus stop, crossing or platform
    /// is not a street (and is mostly a node).
    static let streetHighwayValues: Set<String> = [
        "motorway", "trunk", "primary", "secondary", "tertiary", "unclassified", "residential", "living_street",
        "pedestrian", "service", "road", "footway", "path", "cycleway", "track", "steps", "bridleway",
    ]

    /// The lowest `admin_level` of a boundary relation indexed as a part of a city: 9 and 10 are districts and
    /// neighbourhoods in most countries' schemes (Kamppi is 10); 8 and lower are municipalities, regions and
    /// countries, which GeoNames covers.
    static let lowestDistrictAdminLevel = 9

    /// How far apart two streets (or two areas) of one name must be to be two places: the ways of one street, and
    /// a part of a city mapped both as a `place` node and as a boundary (whose centre is the mean of its ways),
    /// lie within it.
    static let sameFeatureReach = 1_500.0

    private var nodes: LocationStore
    private var wayCentroids: LocationStore
    private var relationCentroids: LocationStore
    /// How often each `addr:country` appears: the file's own guess at its region for phone numbers.
    private var countryVotes: [String: Int] = [:]
    /// Where each street and area already made a place lies, by kind and folded name (``sameFeatureReach``).
    private var placedFeatures: [String: [Coordinate]] = [:]
    /// The cities the file's POIs and address points name, counted by cell of 0.02° × 0.04° (about 2 km): a street
    /// or an area names none itself, and takes the one named most around it (``cityAround(_:)``), so that
    /// "Mannerheimintie, Helsinki" finds the street in Helsinki before the POIs on it.
    private var citiesByCell: [Int64: [String: Int]] = [:]
    /// Every postcode the file's POIs and address points name, and where they lie (``postcodeCandidates()``): one
    /// area per stretch of ``postcodeReach``, in the order the file first names them.
    private var postcodes: [String: [PostcodeArea]] = [:]

    /// The objects that name one postcode around one place: their mean position, and the cities and countries
    /// their addresses name.
    private struct PostcodeArea {
        /// Where the first of them lies: the others lie within ``OSMPlaceExtractor/postcodeReach`` of it.
        var first: Coordinate
        var latitudeSum = 0.0, longitudeSum = 0.0, count = 0.0
        var cities: [String: Int] = [:]
        var countries: [String: Int] = [:]

        mutating func add(_ position: Coordinate, city: String?, country: String?) {
            latitudeSum += position.latitude
            longitudeSum += position.longitude
            count += 1
            if let city { cities[city, default: 0] += 1 }
            if let country { countries[country, default: 0] += 1 }
        }
    }

    /// How far from the first object naming a postcode others naming it still belong to the same area. A postcode
    /// covers a few streets in a city and some kilometres in the country; the same code far away is another
    /// country's (an extract of several: "1000" is Brussels, Lausanne, Ljubljana and Sofia), and their mean
    /// would lie between them.
    static let postcodeReach = 30_000.0

    /// Whether `b` lies within `reach` metres of `a`; the distance is worked out only inside the box around the
    /// reach, as a country's common names are checked against thousands of places.
    private static func isWithin(_ reach: Double, _ a: Coordinate, _ b: Coordinate) -> Bool {
        let latitudeReach = reach / 111_000
        let longitudeReach = latitudeReach / max(0.01, cos(a.latitude * .pi / 180))
        return abs(a.latitude - b.latitude) <= latitudeReach && abs(a.longitude - b.longitude) <= longitudeReach
            && GeoMath.distance(a, b) <= reach
    }

    /// The country the file's addresses name most (``countryVotes``), for phone numbers that name none; `nil` when
    /// no address names one, or when two countries lead equally. No guess then (such numbers stay as written)
    /// rather than whichever of them a dictionary happens to list first, which changes from run to run: the same
    /// file imported twice must give the same numbers.
    var fileCountry: String? {
        guard let most = countryVotes.values.max() else { return nil }
        let leaders = countryVotes.filter { $0.value == most }
        return leaders.count == 1 ? leaders.first?.key : nil
    }

    /// - Parameter fileSize: the extract's size, which decides where positions are kept (``LocationStore``).
    init(fileSize: Int = 0) {
        nodes = LocationStore(fileSize: fileSize)
        wayCentroids = LocationStore(fileSize: fileSize)
        relationCentroids = LocationStore(fileSize: fileSize)
    }

    /// What an object's tags make of it: a candidate still to be placed, and the country its address names.
    /// Worked out from the tags alone, so an import does it on the threads that decode the file. A class, so
    /// that handing it from thread to thread copies a reference, not the candidate's strings.
    final class Tagged: Sendable {
        /// Placed at the origin until ``OSMPlaceExtractor/consume(_:tagged:)`` knows where the object is.
        let candidate: Candidate?
        /// A street or an area, made a candidate in ``OSMPlaceExtractor/consume(_:tagged:)``.
        let feature: Feature?
        /// The object's `addr:country`, a vote for the file's country.
        let country: String?

        init(candidate: Candidate?, feature: Feature? = nil, country: String?) {
            self.candidate = candidate
            self.feature = feature
            self.country = country
        }
    }

    /// ``Tagged`` for `element`; `nil` when its tags make nothing of it (most objects: untagged nodes,
    /// buildings, roads and barriers without an address).
    static func tagged(_ element: OSMElement) -> Tagged? {
        let tags = element.tags
        return tags.isEmpty ? nil : tagged(type: element.type, id: element.id, tags: tags)
    }

    /// Whether ``tagged(_:)`` reads tags under `key`: an import keeps only these while decoding
    /// (``OSMPBFReader/forEachElement(progress:keepingTagsWhere:preparing:_:)``), and most of an extract's tags
    /// (`highway`, `surface`, `building:levels`…) are never turned into strings.
    @Sendable static func readsTag(_ key: String) -> Bool {
        readKeys.contains(key) || key.hasPrefix("addr:") || key.hasPrefix("name:")
    }

    /// What an import keeps of an extract's tags: the tags ``readsTag(_:)`` keeps, and only on objects whose keys
    /// can make something of them in ``tagged(_:)``: a POI key and a name, a `place`, `highway` or `boundary` key
    /// and a name, a house number, or a country (a vote). Most tagged objects (buildings, unnamed roads) have none
    /// of these, and arrive without tags (so `tagged` is not asked),
    /// their values never turned into strings.
    static let tagSelection = OSMTagSelection(
        mark: { key in
            guard readsTag(key) else { return nil }
            if poiKeySet.contains(key) { return TagMark.poiKey }
            switch key {
            case "place", "highway", "boundary": return TagMark.featureKey
            case "name": return TagMark.name
            case "addr:housenumber", "addr:country": return TagMark.addressOrCountry
            default: return 0
            }
        },
        keepsObject: { marks in
            marks & TagMark.addressOrCountry != 0 || marks & (TagMark.poiKey | TagMark.name) == TagMark.poiKey | TagMark.name
                || marks & (TagMark.featureKey | TagMark.name) == TagMark.featureKey | TagMark.name
        })

    /// The bits ``tagSelection`` marks keys with.
    private enum TagMark {
        static let poiKey: UInt8 = 1
        static let name: UInt8 = 2
        static let addressOrCountry: UInt8 = 4
        /// `place`, `highway` or `boundary`: with a name, maybe a street or an area.
        static let featureKey: UInt8 = 8
    }

    private static let poiKeySet = Set(poiReadKeys.map(\.tag))

    /// The keys ``readsTag(_:)`` keeps besides every `addr:` and `name:` key: those ``tagged(_:)`` reads.
    private static let readKeys = Set(ReadTags.Key.allCases.map(\.tag)).union(alternateNameKeys)

    /// Records where nodes are, for the ways after them (every node's position, from
    /// ``OSMPBFReader/forEachElement(progress:selectingTags:nodePositions:preparing:_:)``).
    mutating func record(_ positions: OSMNodePositions) {
        for i in positions.ids.indices {
            nodes.append(id: positions.ids[i], latitude: positions.latitudes[i], longitude: positions.longitudes[i])
        }
    }

    /// Records where `element` is (ways and relations, for the relations after them; a node's position is
    /// recorded by ``record(_:)``) and returns its candidate placed there, if its tags made one (`tagged`, from
    /// ``tagged(_:)``).
    mutating func consume(_ element: OSMElement, tagged: Tagged?) -> Candidate? {
        let position: Coordinate
        switch element {
        case .node(let node):
            position = Coordinate(latitude: node.latitude, longitude: node.longitude)
        case .way(let way):
            guard let centroid = wayCentroid(way) else { return nil }
            wayCentroids.append(id: way.id, latitude: centroid.latitude, longitude: centroid.longitude)
            position = centroid
        case .relation(let relation):
            var sumLat = 0.0, sumLon = 0.0, count = 0.0
            for member in relation.members {
                let location: Coordinate?
                switch member.type {
                case .node: location = nodes.location(of: member.ref)
                case .way: location = wayCentroids.location(of: member.ref)
                case .relation: location = relationCentroids.location(of: member.ref)
                }
                if let location { sumLat += location.latitude; sumLon += location.longitude; count += 1 }
            }
            guard count > 0 else { return nil }
            position = Coordinate(latitude: sumLat / count, longitude: sumLon / count)
            relationCentroids.append(id: relation.id, latitude: position.latitude, longitude: position.longitude)
        }
        guard let tagged else { return nil }
        if let country = tagged.country { countryVotes[country, default: 0] += 1 }
        if let feature = tagged.feature { return candidate(for: feature, of: element, at: position) }
        guard var candidate = tagged.candidate else { return nil }
        candidate.place.coordinate = position
        if let city = candidate.place.address?.city { citiesByCell[Self.cityCell(of: position), default: [:]][city, default: 0] += 1 }
        if let address = candidate.place.address, let postcode = address.postcode {
            // A building on a boundary may name two postcodes ("00100;00120"): it counts for each.
            if postcode.utf8.contains(UInt8(ascii: ";")) {
                for code in postcode.split(separator: ";").compactMap(Self.postcodeKey) { countPostcode(code, of: address, at: position) }
            } else if let code = Self.postcodeKey(postcode[...]) {
                countPostcode(code, of: address, at: position)
            }
        }
        return candidate
    }

    /// The city the POIs and address points in the cell of `position` and the eight around it name most
    /// (``mostNamed(_:)``); `nil` when none names one. A street's ways come after the nodes of the file, so every
    /// address node has been counted by then.
    private func cityAround(_ position: Coordinate) -> String? {
        var counts: [String: Int] = [:]
        for north: Int64 in -1...1 {
            for east: Int64 in -1...1 {
                for (city, count) in citiesByCell[Self.cityCell(of: position, north: north, east: east)] ?? [:] {
                    counts[city, default: 0] += count
                }
            }
        }
        return Self.mostNamed(counts)
    }

    /// The key in ``citiesByCell`` of the cell `position` lies in, or of the one `north` and `east` cells from it.
    private static func cityCell(of position: Coordinate, north: Int64 = 0, east: Int64 = 0) -> Int64 {
        (Int64((position.latitude + 180) * 50) + north) << 32 | (Int64((position.longitude + 180) * 25) + east)
    }

    /// The name counted most; of two counted as often, the first in alphabetical order, so that an import always
    /// gives the same answer (a dictionary lists its keys in another order in every process).
    private static func mostNamed(_ counts: [String: Int]) -> String? {
        counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key
    }

    /// An OSM object's id in the index (`osm:way/22906934`).
    private static func placeID(_ type: OSMElementType, _ id: Int64) -> PlaceID {
        PlaceID(provider: "osm", nativeID: "\(type.rawValue)/\(id)")
    }

    /// Counts an object at `position` whose `address` names `code` in that postcode's area there. The areas are
    /// changed where they are stored: a copy taken out and put back was copied again, with its counts, for each
    /// of a country's addresses.
    private mutating func countPostcode(_ code: String, of address: PostalAddress, at position: Coordinate) {
        let index: Int
        if let found = postcodes[code]?.firstIndex(where: { Self.isWithin(Self.postcodeReach, $0.first, position) }) {
            index = found
        } else {
            postcodes[code, default: []].append(PostcodeArea(first: position))
            index = postcodes[code]!.count - 1
        }
        postcodes[code]![index].add(position, city: address.city, country: address.countryCode)
    }

    /// A postcode as written once (upper case, single spaces: "sw1a  1aa" is "SW1A 1AA"); `nil` for text that is no
    /// postcode: every country's has a digit and at most ten characters. Most are already written so (digits and
    /// capitals), and are taken as they are.
    static func postcodeKey(_ text: Substring) -> String? {
        let bytes = text.utf8
        if bytes.count <= 10, bytes.contains(where: { $0 &- UInt8(ascii: "0") < 10 }),
           bytes.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 || $0 &- UInt8(ascii: "A") < 26 }) {
            return String(text)
        }
        let code = text.split(whereSeparator: \.isWhitespace).joined(separator: " ").uppercased()
        guard !code.isEmpty, code.count <= 10, code.contains(where: \.isNumber) else { return nil }
        return code
    }

    /// The postcodes the file's POIs and address points named, each a place of its own ("00100", as Nominatim finds
    /// the area a postcode covers): at the mean position of the objects naming it, in the city and country they
    /// name most (``mostNamed(_:)``). A code named again beyond ``postcodeReach`` is another place:
    /// `osm:postcode/1000/2`, numbered in the order the file names them. Call once every object has been consumed.
    func postcodeCandidates() -> [Candidate] {
        postcodes.sorted { $0.key < $1.key }.flatMap { code, areas in
            areas.enumerated().map { number, area in
                let address = PostalAddress(postcode: code, city: Self.mostNamed(area.cities),
                                            countryCode: Self.mostNamed(area.countries))
                let place = Place(id: PlaceID(provider: "osm", nativeID: "postcode/\(code)" + (number == 0 ? "" : "/\(number + 1)")),
                                  name: code,
                                  coordinate: Coordinate(latitude: area.latitudeSum / area.count, longitude: area.longitudeSum / area.count),
                                  address: address, formattedAddress: address.formatted, categories: ["postcode"],
                                  attribution: Self.attribution)
                return Candidate(place: place, kind: .area, keywords: ["postcode"], rawPhone: nil, importance: 0.3)
            }
        }
    }

    /// The candidate `feature` makes (a street placed on itself: the centroid of a bent road can lie in a block
    /// beside it), in the city its neighbours name when it names none; `nil` when a street or an area of its kind
    /// and name already stands within ``sameFeatureReach``.
    private mutating func candidate(for feature: Feature, of element: OSMElement, at centroid: Coordinate) -> Candidate? {
        var position = centroid
        if feature.kind == .street, case .way(let way) = element, let middle = middleNode(of: way) { position = middle }
        guard isFirstOfItsName(feature.sameNameKey, at: position) else { return nil }
        var address = feature.address
        if address?.city == nil, let city = cityAround(position) {
            address = address ?? PostalAddress()
            address?.city = city
        }
        let place = Place(id: Self.placeID(element.type, element.id), name: feature.name,
                          coordinate: position, address: address, formattedAddress: address?.formatted,
                          categories: [feature.label, feature.tag], category: nil, attribution: Self.attribution)
        return Candidate(place: place, kind: feature.kind, keywords: [feature.label], rawPhone: nil,
                         alternateNames: Self.alternateNames(feature.alternateNameTags, name: feature.name),
                         importance: feature.importance)
    }

    /// Whether no street (or area) of this kind and name (``Feature/sameNameKey``) was placed within
    /// ``sameFeatureReach`` of `position` yet; if none was, it is recorded. The first way of a street in the file
    /// stands for it; a `place` node, which comes before ways and relations, stands for the boundary of the same
    /// name around it.
    private mutating func isFirstOfItsName(_ key: String, at position: Coordinate) -> Bool {
        if let placed = placedFeatures[key], placed.contains(where: { Self.isWithin(Self.sameFeatureReach, position, $0) }) {
            return false
        }
        placedFeatures[key, default: []].append(position)
        return true
    }

    /// The position of the way's middle node (or the nearest resolvable one after it).
    private mutating func middleNode(of way: OSMWay) -> Coordinate? {
        let refs = way.nodeRefs
        guard !refs.isEmpty else { return nil }
        for ref in refs[(refs.count / 2)...] + refs[..<(refs.count / 2)] {
            if let location = nodes.location(of: ref) { return location }
        }
        return nil
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

    private static func tagged(type: OSMElementType, id: Int64, tags: [String: String]) -> Tagged? {
        let read = ReadTags(tags)
        let poiTags = Self.poiReadKeys.compactMap { key in
            read[key].flatMap { value in Self.poiValues[key.tag].map { $0.contains(value) } ?? true ? (key.tag, value) : nil }
        }
        // Most tagged objects (buildings, roads, barriers) are neither a named POI nor an address point:
        // they only vote for the file's country, without building an address.
        let feature = Self.feature(type: type, read)
        guard (!poiTags.isEmpty && read[.name] != nil) || feature != nil || read[.houseNumber] != nil else {
            guard let country = read[.country]?.trimmedOfSpaces, !country.isEmpty else { return nil }
            return Tagged(candidate: nil, country: country.uppercased())
        }
        let address = Self.address(read)
        let unplaced = Coordinate(latitude: 0, longitude: 0)
        if let name = read[.name]?.trimmedOfSpaces, !name.isEmpty, !poiTags.isEmpty {
            let categories = poiTags.map { "\($0.0)=\($0.1)" }
            let category = categories.lazy.compactMap(PlaceCategory.normalize).first
            var keywords = poiTags.map { $0.1.replacing(ascii: "_", with: " ") }
            if let category { keywords.append(category.replacing(ascii: "_", with: " ")) }
            if let cuisine = read[.cuisine] { keywords.append(cuisine.replacing(ascii: ";", with: " ").replacing(ascii: "_", with: " ")) }
            let rawPhone = (read[.phone] ?? read[.contactPhone] ?? read[.contactMobile])
                .flatMap { $0.split(separator: ";").first.map { $0.trimmedOfSpaces } }
            let place = Place(
                id: Self.placeID(type, id), name: name, coordinate: unplaced, address: address, formattedAddress: address?.formatted,
                phone: rawPhone, website: read[.website] ?? read[.contactWebsite] ?? read[.url],
                categories: categories, category: category, brand: read[.brand],
                openingHoursText: read[.openingHours], attribution: Self.attribution)
            return Tagged(candidate: Candidate(place: place, kind: .poi, keywords: keywords, rawPhone: rawPhone,
                                               alternateNames: Self.alternateNames(read.alternateNameTags, name: name),
                                               importance: Self.importance(read, poiTags: poiTags)),
                          country: address?.countryCode)
        }
        if let feature, let name = read[.name]?.trimmedOfSpaces, !name.isEmpty {
            let key = (feature.kind == .street ? "street " : "area ") + SearchText.words(name).joined(separator: " ")
            return Tagged(candidate: nil, feature: Feature(name: name, kind: feature.kind, label: feature.label, tag: feature.tag,
                                                           importance: feature.importance, sameNameKey: key,
                                                           alternateNameTags: read.alternateNameTags, address: address),
                          country: address?.countryCode)
        }
        if let address, address.houseNumber != nil, address.street != nil {
            let label = [address.street, address.houseNumber].compactMap { $0 }.joined(separator: " ")
            let place = Place(id: Self.placeID(type, id), name: label, coordinate: unplaced, address: address,
                              formattedAddress: address.formatted, attribution: Self.attribution)
            return Tagged(candidate: Candidate(place: place, kind: .address, keywords: [], rawPhone: nil), country: address.countryCode)
        }
        return Tagged(candidate: nil, country: address?.countryCode)
    }

    /// What a named object that is not a POI stands for when it is a street or an area: its kind; a label (the
    /// category shown, and the word indexed for its kind: "street" for every road, which is what a user calls
    /// them, where the first way of a shopping street may be tagged `service`), then the tag it came from; and its
    /// importance. That is above a POI's 0.1 (a street's name is what its POIs' addresses hold, and the street
    /// comes before them); a part of a city ranks with a linked landmark, as Nominatim ranks suburbs above
    /// streets and streets above POIs.
    private static func feature(type: OSMElementType, _ read: ReadTags) -> (kind: IndexedKind, label: String, tag: String, importance: Double)? {
        guard read[.name] != nil else { return nil }
        if let value = read[.placeType], namedAreaPlaceValues.contains(value) {
            return (.area, value, "place=\(value)", value == "square" || value == "islet" ? 0.3 : 0.35)
        }
        if type == .way, let value = read[.highway], streetHighwayValues.contains(value) {
            return (.street, "street", "highway=\(value)", 0.2)
        }
        if type == .relation, read[.boundary] == "administrative",
           let level = read[.adminLevel].flatMap({ Int($0.trimmedOfSpaces) }), level >= lowestDistrictAdminLevel {
            return (.area, level == lowestDistrictAdminLevel ? "district" : "neighbourhood", "boundary=administrative", 0.35)
        }
        return nil
    }

    /// The values of the tags ``tagged(type:id:tags:)`` reads, found in one pass over an object's tags: one hash of
    /// each of its keys, where asking its dictionary for each of the ~35 keys read hashed every key asked for (a
    /// fifth of the decoding threads' time went to `Hasher`).
    struct ReadTags {
        /// Each key read besides the other names (``OSMPlaceExtractor/alternateNameKeys``, `name:*`).
        enum Key: Int, CaseIterable {
            case amenity, shop, tourism, leisure, office, craft, historic, railway
            case name, cuisine, phone, contactPhone, contactMobile, website, contactWebsite, url, brand, openingHours
            case wikidata, wikipedia, building
            case placeType, highway, boundary, adminLevel
            case houseNumber, street, place, unit, flats, postcode, city, suburb, district, state, province, country

            var tag: String {
                switch self {
                case .amenity: "amenity"
                case .shop: "shop"
                case .tourism: "tourism"
                case .leisure: "leisure"
                case .office: "office"
                case .craft: "craft"
                case .historic: "historic"
                case .railway: "railway"
                case .name: "name"
                case .cuisine: "cuisine"
                case .phone: "phone"
                case .contactPhone: "contact:phone"
                case .contactMobile: "contact:mobile"
                case .website: "website"
                case .contactWebsite: "contact:website"
                case .url: "url"
                case .brand: "brand"
                case .openingHours: "opening_hours"
                case .wikidata: "wikidata"
                case .wikipedia: "wikipedia"
                case .building: "building"
                case .placeType: "place"
                case .highway: "highway"
                case .boundary: "boundary"
                case .adminLevel: "admin_level"
                case .houseNumber: "addr:housenumber"
                case .street: "addr:street"
                case .place: "addr:place"
                case .unit: "addr:unit"
                case .flats: "addr:flats"
                case .postcode: "addr:postcode"
                case .city: "addr:city"
                case .suburb: "addr:suburb"
                case .district: "addr:district"
                case .state: "addr:state"
                case .province: "addr:province"
                case .country: "addr:country"
                }
            }
        }

        private static let keyOfTag = Dictionary(uniqueKeysWithValues: Key.allCases.map { ($0.tag, $0) })

        /// By ``Key/rawValue``.
        private var values: [String?]
        /// The object's other names (``OSMPlaceExtractor/alternateNameKeys`` and `name:*`), sorted by key.
        private(set) var alternateNameTags: [(key: String, value: String)] = []

        init(_ tags: [String: String]) {
            values = Array(repeating: nil, count: Key.allCases.count)
            for (key, value) in tags {
                if let read = Self.keyOfTag[key] {
                    values[read.rawValue] = value
                } else if key.hasPrefix("name:") || OSMPlaceExtractor.alternateNameKeys.contains(key) {
                    alternateNameTags.append((key, value))
                }
            }
            if alternateNameTags.count > 1 { alternateNameTags.sort { $0.key < $1.key } }
        }

        subscript(key: Key) -> String? { values[key.rawValue] }

        /// The first of `keys` with a value that is not blank, trimmed.
        func trimmed(_ keys: Key...) -> String? {
            for key in keys {
                if let value = self[key]?.trimmedOfSpaces, !value.isEmpty { return value }
            }
            return nil
        }
    }

    /// Every other name of an object, each once (compared folded), without its main name. Tags holding
    /// several names separate them with `;`.
    /// - Parameter tags: the object's other-name tags, sorted by key (``ReadTags/alternateNameTags``).
    static func alternateNames(_ tags: [(key: String, value: String)], name: String) -> [String] {
        // Most objects have no other name: their main name's words are not needed.
        guard !tags.isEmpty else { return [] }
        var seen: Set<String> = [SearchText.words(name).joined(separator: " ")]
        var names: [String] = []
        for (_, value) in tags {
            for part in value.split(separator: ";") {
                let alternate = part.trimmedOfSpaces
                let words = SearchText.words(alternate).joined(separator: " ")
                if !words.isEmpty, seen.insert(words).inserted { names.append(alternate) }
            }
        }
        return names
    }

    /// 0.1 for any POI, more with a Wikipedia or Wikidata link and for kinds people look for by name.
    static func importance(_ tags: ReadTags, poiTags: [(String, String)]) -> Double {
        var importance = 0.1
        if tags[.wikidata] != nil || tags[.wikipedia] != nil { importance += 0.25 }
        if poiTags.contains(where: { prominentKinds.contains($0.1) }) || tags[.building] == "cathedral" { importance += 0.15 }
        return importance
    }

    static func address(_ tags: ReadTags) -> PostalAddress? {
        let address = PostalAddress(
            houseNumber: tags.trimmed(.houseNumber), street: tags.trimmed(.street, .place), unit: tags.trimmed(.unit, .flats),
            postcode: tags.trimmed(.postcode), city: tags.trimmed(.city), district: tags.trimmed(.suburb, .district),
            region: tags.trimmed(.state, .province), countryCode: tags.trimmed(.country)?.uppercased())
        return address.isEmpty ? nil : address
    }
}
