import Foundation
import LocalProvider
import PlaceIndex
import PlacesCore
import Testing

/// Ranking rules on a small hand-made index, so each rule is checked on its own.
@Suite struct SearchRankingTests {
    static let helsinki = Coordinate(latitude: 60.1699, longitude: 24.9384)
    static let paris = Coordinate(latitude: 48.8534, longitude: 2.3488)

    static func index() throws -> PlaceIndexStore {
        let index = try PlaceIndexStore.inMemory()
        try fill(index)
        return index
    }

    /// Writes the places of ``index()`` into `index`.
    static func fill(_ index: PlaceIndexStore) throws {
        func city(_ id: Int, _ name: String, _ at: Coordinate, population: Int64, alternates: [String] = []) -> (Place, [String], Double) {
            let place = Place(id: PlaceID(provider: "geonames", nativeID: String(id)), name: name, coordinate: at, category: "city")
            return (place, alternates, log10(Double(population) + 1) / 7)
        }
        func poi(_ id: Int, _ name: String, _ at: Coordinate, category: String, tag: String,
                 address: PostalAddress? = nil) -> (Place, [String], Double) {
            let place = Place(id: PlaceID(provider: "osm", nativeID: "node/\(id)"), name: name, coordinate: at, address: address,
                              categories: [tag], category: category)
            return (place, [], 0.1)
        }
        let near = { (metres: Double) in Coordinate(latitude: helsinki.latitude + metres / 111_000, longitude: helsinki.longitude) }
        try index.write { writer in
            for (place, alternates, importance) in [
                city(1, "Paris", paris, population: 2_138_551, alternates: ["Pariisi", "Parigi"]),
                city(2, "Paris", Coordinate(latitude: 33.66, longitude: -95.55), population: 24_171),
                city(3, "Stockholm", Coordinate(latitude: 59.3294, longitude: 18.0687), population: 1_515_017, alternates: ["Tukholma"]),
            ] {
                try writer.insert(place, kind: .city, source: "cities", keywords: ["city"], alternateNames: alternates, importance: importance)
            }
            try writer.finishSource("cities", kind: "geonames", places: 3, cities: 3)
            for (place, _, importance) in [
                poi(10, "Paris", near(300), category: "restaurant", tag: "amenity=restaurant"),
                poi(11, "Pharmacy Bar", near(50), category: "bar", tag: "amenity=bar"),
                poi(12, "Apteekki Kaivopiha", near(400), category: "pharmacy", tag: "amenity=pharmacy"),
                poi(13, "Yliopiston Apteekki", near(900), category: "pharmacy", tag: "amenity=pharmacy"),
                poi(14, "R-kioski", near(200), category: "convenience", tag: "shop=kiosk"),
                poi(15, "Maya Bar & Grill", near(600), category: "restaurant", tag: "amenity=restaurant",
                    address: PostalAddress(houseNumber: "18", street: "Mikonkatu", city: "Helsinki")),
                poi(16, "Kiasma", near(700), category: "museum", tag: "tourism=museum"),
            ] {
                let keywords = place.categories.map { String($0.split(separator: "=")[1]) } + [place.category!]
                try writer.insert(place, kind: .poi, source: "pois", keywords: keywords, importance: importance)
            }
            let addressPoint = Place(id: PlaceID(provider: "osm", nativeID: "node/20"), name: "Mikonkatu 9 B", coordinate: near(650),
                                     address: PostalAddress(houseNumber: "9 B", street: "Mikonkatu"))
            try writer.insert(addressPoint, kind: .address, source: "pois")
            try writer.finishSource("pois", kind: "osm.pbf", places: 7, cities: 0, addressPoints: 1)
        }
    }

    @Test func aNearbyPOIBeatsAFarCityOfTheSameName() throws {
        let found = try Self.index().search(text: "paris", near: Self.helsinki)
        #expect(found.first?.id.description == "osm:node/10")
    }

    @Test func withoutNearTheBigCityBeatsTheSmallOneAndThePOI() throws {
        let found = try Self.index().search(text: "paris")
        #expect(found.map(\.id.description).prefix(2) == ["geonames:1", "geonames:2"])
    }

    @Test func aCategoryMemberBeatsANameContainingTheWord() throws {
        let found = try Self.index().search(text: "pharmacy", near: Self.helsinki)
        #expect(found.map(\.id.description) == ["osm:node/12", "osm:node/13", "osm:node/11"],
                "members nearest first, then the bar named Pharmacy although it is closer")
        #expect(try Self.index().search(text: "chemist", near: Self.helsinki).first?.id.description == "osm:node/12")
    }

    /// An index where a category has thousands of members elsewhere, written before the few near Helsinki (so
    /// they come first in row order), with the nearest ones' keywords as OSM writes them.
    static func crowdedIndex() throws -> PlaceIndexStore {
        let index = try PlaceIndexStore.inMemory()
        let tampere = Coordinate(latitude: 61.4978, longitude: 23.7610)
        try index.write { writer in
            for i in 0..<6_000 {
                let at = Coordinate(latitude: tampere.latitude + Double(i % 80) * 0.001, longitude: tampere.longitude + Double(i / 80) * 0.002)
                let place = Place(id: PlaceID(provider: "osm", nativeID: "node/\(1_000 + i)"), name: "Ravintola \(i)", coordinate: at,
                                  categories: ["amenity=restaurant"], category: "restaurant")
                try writer.insert(place, kind: .poi, source: "pois", keywords: ["restaurant", "restaurant"], importance: 0.1)
            }
            let near = { (metres: Double) in Coordinate(latitude: helsinki.latitude + metres / 111_000, longitude: helsinki.longitude) }
            for (id, metres, keywords, importance) in [
                (3, 900.0, ["restaurant"], 0.1), (1, 120.0, ["nightclub;restaurant"], 0.1), (2, 450.0, ["restaurant"], 0.9),
                (4, 60.0, ["food", "fast"], 0.1), (5, 80.0, ["fast", "food"], 0.1), (6, 30.0, ["fast casual food"], 0.1),
            ] as [(Int, Double, [String], Double)] {
                let place = Place(id: PlaceID(provider: "osm", nativeID: "node/\(id)"), name: "Place \(id)", coordinate: near(metres),
                                  categories: [], category: nil)
                try writer.insert(place, kind: .poi, source: "pois", keywords: keywords, importance: importance)
            }
            try writer.finishSource("pois", kind: "osm.pbf", places: 6_006, cities: 0)
        }
        return index
    }

    @Test func aCategoryFindsItsNearestMembersWhereverTheyAreInTheIndex() throws {
        let index = try Self.crowdedIndex()
        let found = try index.search(text: "restaurant", near: Self.helsinki, limit: 3)
        #expect(found.map(\.id.description) == ["osm:node/1", "osm:node/2", "osm:node/3"],
                "the three near Helsinki, nearest first (one tagged nightclub;restaurant), not three of the 6,000 in Tampere")
        let within = try index.search(text: "restaurant", near: Self.helsinki, radius: 500, limit: 10)
        #expect(within.map(\.id.description) == ["osm:node/1", "osm:node/2"])
        let inTampere = try index.search(text: "restaurant", near: Coordinate(latitude: 61.4978, longitude: 23.7610), limit: 2)
        #expect(inTampere.map(\.id.description) == ["osm:node/1000", "osm:node/1080"])
    }

    @Test func withoutAPointACategoryListsItsMostImportantMembers() throws {
        let found = try Self.crowdedIndex().search(text: "restaurant", limit: 1)
        #expect(found.map(\.id.description) == ["osm:node/2"], "importance 0.9, written after 6,001 members of importance 0.1")
    }

    @Test func aCategoryOfTwoWordsNeedsThemInARow() throws {
        let found = try Self.crowdedIndex().search(text: "fast food", near: Self.helsinki, limit: 10)
        #expect(found.map(\.id.description).first == "osm:node/5",
                "the one member (keywords \"fast food\") before the nearer \"food fast\" and \"fast casual food\", which only match the words")
    }

    /// A word in thousands of places (every address in Tampere holds "tampere") is not ranked place by place:
    /// the main names that are the word or begin with it are found through their index, most important first.
    @Test func aWordInThousandsOfAddressesFindsTheCityAndTheNamesBeginningWithIt() throws {
        let index = try PlaceIndexStore.inMemory()
        let tampere = Coordinate(latitude: 61.4978, longitude: 23.7610)
        try index.write { writer in
            // Written first, so they are the first rows the full-text index holds for the word.
            for i in 0..<2_100 {
                let at = Coordinate(latitude: tampere.latitude + Double(i % 50) * 0.0005, longitude: tampere.longitude + Double(i / 50) * 0.001)
                let point = Place(id: PlaceID(provider: "osm", nativeID: "node/\(1_000 + i)"), name: "Hämeenkatu \(i)", coordinate: at,
                                  address: PostalAddress(houseNumber: String(i), street: "Hämeenkatu", city: "Tampere"))
                try writer.insert(point, kind: .address, source: "pois")
            }
            for (id, name, importance) in [(1, "Casino Tampere", 0.3), (2, "Tampere Hall", 0.2), (3, "Tampere", 0.25)] {
                let place = Place(id: PlaceID(provider: "osm", nativeID: "node/\(id)"), name: name, coordinate: tampere)
                try writer.insert(place, kind: .poi, source: "pois", importance: importance)
            }
            try writer.finishSource("pois", kind: "osm.pbf", places: 3, cities: 0, addressPoints: 2_100)
            let city = Place(id: PlaceID(provider: "geonames", nativeID: "634963"), name: "Tampere", coordinate: tampere, category: "city")
            try writer.insert(city, kind: .city, source: "cities", importance: 0.77)
            try writer.finishSource("cities", kind: "geonames", places: 1, cities: 1)
        }
        // Score 0.6·relevance + 0.4·importance + 0.15 for a whole name: the city 1.058, the POI named Tampere
        // 0.85, Tampere Hall (begins with the word) 0.68, an address 0.3. Casino Tampere (0.72) holds the word
        // later in its name, so only reading the word's rows finds it, and the first 200 of them are addresses.
        let found = try index.search(text: "tampere", limit: 5).map(\.id.description)
        #expect(found.prefix(3) == ["geonames:634963", "osm:node/3", "osm:node/2"])
        #expect(found.count == 5, "addresses fill the page")
    }

    /// Words together in thousands of places ("52 hämeenkatu": every shop of a mall) are not ranked place by place:
    /// a main name holding every word comes first. A city's name typed with a rare word filters the rare word's
    /// places: those whose address names the city.
    @Test func wordsTogetherInThousandsOfPlacesAndACityWithARareWord() throws {
        let index = try PlaceIndexStore.inMemory()
        let tampere = Coordinate(latitude: 61.4978, longitude: 23.7610)
        func place(_ id: Int, _ name: String, street: String, number: String, city: String) -> Place {
            Place(id: PlaceID(provider: "osm", nativeID: "node/\(id)"), name: name, coordinate: tampere,
                  address: PostalAddress(houseNumber: number, street: street, city: city))
        }
        try index.write { writer in
            // Written first, so it is among the first rows the full-text index holds for the words.
            try writer.insert(place(1, "Hämeenkatu 52", street: "Hämeenkatu", number: "52", city: "Tampere"), kind: .address, source: "pois")
            for i in 0..<2_100 {
                try writer.insert(place(1_000 + i, "Shop \(i)", street: "Hämeenkatu", number: "52", city: "Tampere"), kind: .poi, source: "pois",
                                  importance: 0.1)
            }
            try writer.insert(place(2, "Kauppakamari", street: "Kauppakatu", number: "1", city: "Tampere"), kind: .poi, source: "pois")
            try writer.insert(place(3, "Kauppakamari", street: "Linnankatu", number: "1", city: "Turku"), kind: .poi, source: "pois")
            try writer.finishSource("pois", kind: "osm.pbf", places: 2_102, cities: 0, addressPoints: 1)
            let city = Place(id: PlaceID(provider: "geonames", nativeID: "634963"), name: "Tampere", coordinate: tampere, category: "city")
            try writer.insert(city, kind: .city, source: "cities", importance: 0.77)
            try writer.finishSource("cities", kind: "geonames", places: 1, cities: 1)
        }
        let mall = try index.search(text: "52 Hämeenkatu", limit: 3)
        #expect(mall.first?.id.description == "osm:node/1", "the main name holds both words, in another order")
        #expect(mall.count == 3 && mall.allSatisfy { $0.address?.street == "Hämeenkatu" && $0.address?.houseNumber == "52" })
        #expect(try index.search(text: "kauppakamari tampere").map(\.id.description) == ["osm:node/2"])
        #expect(try index.search(text: "tampere kauppakamari").map(\.id.description) == ["osm:node/2"])
    }

    @Test func anotherNameMatchesAndSaysWhichOne() throws {
        let found = try #require(try Self.index().search(text: "tukholma").first)
        #expect(found.name == "Stockholm")
        #expect(found.searchMatch == SearchMatch(matchedName: "Tukholma", fuzzy: false))
        #expect(try Self.index().search(text: "stockholm").first?.searchMatch == nil)
    }

    @Test(arguments: ["rkioski", "R kioski", "r-kioski", "R-Kioski"])
    func punctuationAndSpacingDoNotMatter(query: String) throws {
        #expect(try Self.index().search(text: query).first?.id.description == "osm:node/14")
    }

    @Test(arguments: ["Mikonkatu 18", "18 Mikonkatu", "Mikonkatu 18, Helsinki", "mikonkatu 18, Tampere"])
    func addressesFindTheAddressedPlace(query: String) throws {
        let found = try #require(try Self.index().search(text: query).first)
        #expect(found.id.description == "osm:node/15")
        #expect(found.address?.street == "Mikonkatu")
    }

    /// "Street N, City" when the last part is a city's name: the places on the street whose address names the city
    /// come first, the others on the street after them, also when the street's address is in more places than a
    /// search ranks (then every word is ranked, the city's with them).
    @Test(arguments: [2, 250])
    func aStreetAndACityPutThePlacesInTheCityFirst(elsewhere: Int) throws {
        let index = try PlaceIndexStore.inMemory()
        try index.write { writer in
            func shop(_ id: Int, city: String?) -> Place {
                Place(id: PlaceID(provider: "osm", nativeID: "node/\(id)"), name: "Shop \(id)", coordinate: Self.helsinki,
                      address: PostalAddress(houseNumber: "18", street: "Mikonkatu", city: city))
            }
            // Written first, and with a shorter address than the one in Helsinki: bm25 ranks them above it.
            for id in 1...elsewhere { try writer.insert(shop(id, city: id == 1 ? nil : "Tampere"), kind: .poi, source: "pois") }
            try writer.insert(shop(1_000, city: "Helsinki"), kind: .poi, source: "pois")
            try writer.finishSource("pois", kind: "osm.pbf", places: elsewhere + 1, cities: 0)
            let city = Place(id: PlaceID(provider: "geonames", nativeID: "658225"), name: "Helsinki", coordinate: Self.helsinki, category: "city")
            try writer.insert(city, kind: .city, source: "cities", importance: 0.8)
            try writer.finishSource("cities", kind: "geonames", places: 1, cities: 1)
        }
        let found = try index.search(text: "Mikonkatu 18, Helsinki", limit: 3).map(\.id.description)
        #expect(found.first == "osm:node/1000")
        #expect(found.count == min(3, elsewhere + 1), "places on the street elsewhere follow")
    }

    /// Words typed as beginnings find what they begin, with a category or without; a word that begins no indexed
    /// word is left to typo correction (the beginnings are not merged for nothing).
    @Test(arguments: [("maya gri", "osm:node/15"), ("pharmacy kaivo", "osm:node/12"), ("maya grll", "osm:node/15")])
    func wordsAsBeginningsFindWhatTheyBegin(query: String, expected: String) throws {
        #expect(try Self.index().search(text: query, near: Self.helsinki).first?.id.description == expected)
    }

    @Test func aHouseNumberWithALetterMatchesWithOrWithoutTheSpace() throws {
        #expect(try Self.index().search(text: "Mikonkatu 9b").first?.id.description == "osm:node/20")
    }

    @Test func aTypoIsCorrectedAndMarkedFuzzy() throws {
        let index = try Self.index()
        for typo in ["kaisma", "kiasm", "kiasmaa", "kiasna"] {
            let found = try #require(try index.search(text: typo).first, "\(typo)")
            #expect(found.id.description == "osm:node/16", "\(typo)")
            if typo != "kiasm" { #expect(found.searchMatch?.fuzzy == true, "\(typo)") }  // "kiasm" is a prefix
        }
        #expect(try index.search(text: "kiasma").first?.searchMatch == nil)
    }

    @Test func nothingFoundSaysWhatWasMeant() throws {
        let result = try Self.index().searchExplained(text: "kaisma", near: Self.paris, radius: 100)
        #expect(result.places.isEmpty)
        #expect(result.didYouMean == "kiasma")
        #expect(try Self.index().searchExplained(text: "qqqqzz").didYouMean == nil)
    }

    @Test func suggestCompletesAnyName() throws {
        #expect(try Self.index().suggest(prefix: "tukh").first?.name == "Stockholm")
        #expect(try Self.index().suggest(prefix: "p").first?.id.description == "geonames:1", "one letter: most important first")
    }

    @Test func oneLetterNearAPointCompletesFromTheNeighbourhood() throws {
        let found = try Self.index().suggest(prefix: "k", near: Self.helsinki).map(\.id.description)
        // Kiasma begins with k (700 m); R-kioski only has a later word with it (200 m).
        #expect(found.prefix(2) == ["osm:node/16", "osm:node/14"])
        #expect(!found.contains("geonames:3"), "Stockholm is not a k-name: Tukholma is not its main name")
    }

    @Test func aShortPrefixNearAPointReadsTheSamePlacesWhicheverIndexItUses() throws {
        let index = try PlaceIndexStore.inMemory()
        let near = { (metres: Double) in Coordinate(latitude: Self.helsinki.latitude + metres / 111_000, longitude: Self.helsinki.longitude) }
        try index.write { writer in
            for (id, name, metres) in [(1, "Kauppahalli", 300.0), (2, "Kauppatori", 800), (3, "Vanha Kauppa", 100),
                                       (4, "Kaupunginmuseo", 3_000), (5, "Kaupunki Far", 7_000), (6, "Lasipalatsi", 200)] {
                let place = Place(id: PlaceID(provider: "osm", nativeID: "node/\(id)"), name: name, coordinate: near(metres))
                try writer.insert(place, kind: .poi, source: "pois", importance: 0.1)
            }
            let street = Place(id: PlaceID(provider: "osm", nativeID: "node/7"), name: "Kauppakatu 1", coordinate: near(50))
            try writer.insert(street, kind: .address, source: "pois")
            try writer.finishSource("pois", kind: "osm.pbf", places: 6, cities: 0, addressPoints: 1)
        }
        // Score 0.45·(1, or 0.7 for a later word) + 0.35/(1 + km) + 0.2·0.1: Kauppahalli 0.739, Kauppatori 0.664,
        // Vanha Kauppa 0.653, Kaupunginmuseo (3 km, outside the 1 km box, inside 5 km) 0.558; Kaupunki Far (7 km)
        // only from the most important names after them. One letter reads the R*Tree, two and three the full-text index.
        for prefix in ["k", "ka", "kau"] {
            #expect(try index.suggest(prefix: prefix, near: Self.helsinki).map(\.id.description)
                    == ["osm:node/1", "osm:node/2", "osm:node/3", "osm:node/4", "osm:node/5"], "\(prefix)")
            #expect(try index.suggest(prefix: prefix, near: Self.helsinki, limit: 2).map(\.id.description)
                    == ["osm:node/1", "osm:node/2"], "\(prefix): the 1 km box holds enough, nothing beyond it is read")
        }
    }

    @Test func twoLettersWithoutAPointCompleteTheMostImportantNames() throws {
        let found = try Self.index().suggest(prefix: "pa").map(\.id.description)
        #expect(found == ["geonames:1", "geonames:2", "osm:node/10"], "Paris (2.1 M), Paris, Texas, the restaurant Paris")
    }

    @Test func aShortLastWordIsCheckedOnThePlacesTheOtherWordsFind() throws {
        let index = try Self.index()
        #expect(try index.suggest(prefix: "maya b").map(\.id.description) == ["osm:node/15"])
        #expect(try index.suggest(prefix: "maya x").isEmpty)
        #expect(try index.suggest(prefix: "yliopiston ap").first?.id.description == "osm:node/13")
    }

    @Test func twoLettersSwappedAcrossTheMiddleOfAWordAreCorrected() throws {
        // Neither "kis…" nor "…ama" begins or ends "kiasma": only the swap of its middle letters finds it.
        let found = try #require(try Self.index().search(text: "kisama").first)
        #expect(found.id.description == "osm:node/16")
        #expect(found.searchMatch?.fuzzy == true)
    }

    @Test func theIndexRecordsEachFileAndItsArea() throws {
        let sources = try Self.index().sources()
        let pois = try #require(sources.first { $0.name == "pois" })
        #expect(pois.places == 7)
        #expect(pois.addressPoints == 1)
        let bounds = try #require(pois.bounds)
        #expect(bounds.contains(Coordinate(latitude: 60.172, longitude: 24.9384)))
        #expect(!bounds.contains(Self.paris))
        #expect(sources.first { $0.name == "cities" }?.names == 6, "three cities and three other names")
    }
}
