import Testing
@testable import PlacesMatching

@Suite struct PlaceNormalizerTests {
    @Test func accentsAndCaseFold() {
        #expect(PlaceNormalizer.normalize("Café Ekberg") == "cafe ekberg")
        #expect(PlaceNormalizer.normalize("KÄMP") == "kamp")
        #expect(PlaceNormalizer.normalize("Søstrene Grene") == "sostrene grene")
    }

    @Test func ampersandBecomesAnd() {
        #expect(PlaceNormalizer.normalize("Marks & Spencer") == "marks and spencer")
        #expect(PlaceNormalizer.normalize("Marks&Spencer") == "marks and spencer")
    }

    @Test func apostrophesAreDeletedNotSpaced() {
        #expect(PlaceNormalizer.normalize("Joe's Pizza") == "joes pizza")
        #expect(PlaceNormalizer.normalize("Joe’s Pizza") == "joes pizza")
    }

    @Test func otherPunctuationSeparatesWordsAndDigitsStay() {
        #expect(PlaceNormalizer.normalize("Bel-Air  Hotel.") == "bel air hotel")
        #expect(PlaceNormalizer.normalize("Pizzeria 21 (Kallio)") == "pizzeria 21 kallio")
    }

    @Test func abbreviationsInNamesAreSpelledOneWay() {
        #expect(PlaceNormalizer.nameTokens("St. Urho's Pub") == ["saint", "urhos", "pub"])
        #expect(PlaceNormalizer.nameTokens("Arts Delicatessen") == PlaceNormalizer.nameTokens("Arts Deli"))
    }

    @Test func coreNameDropsTheGenericWordsAndLegalSuffixes() {
        #expect(PlaceNormalizer.coreName("The Cheesecake Factory") == "cheesecake factory")
        #expect(PlaceNormalizer.coreName("Hotel Bel-Air") == PlaceNormalizer.coreName("Bel-Air Hotel"))
        #expect(PlaceNormalizer.coreName("Ravintola Savoy") == "savoy")
        #expect(PlaceNormalizer.coreName("Fazer Oy") == "fazer")
        #expect(PlaceNormalizer.coreName("Arts Delicatessen") == "arts")
    }

    @Test func coreNameIsNeverEmpty() {
        #expect(PlaceNormalizer.coreName("The Bar") == "the bar")
        #expect(PlaceNormalizer.coreName("Cafe") == "cafe")
    }

    @Test func streetTypesAndDirectionalsAreExpanded() {
        let a = PlaceNormalizer.address("8225 W Sunset Blvd.")
        #expect(a.houseNumber == "8225")
        #expect(a.street == "west sunset boulevard")
        #expect(PlaceNormalizer.address("7 Carmine St").street == "carmine street")
        #expect(PlaceNormalizer.address("12 Main Rd").street == PlaceNormalizer.address("12 Main Road").street)
    }

    @Test func europeanAddressesKeepTheNumberAndDropTheStaircase() {
        let a = PlaceNormalizer.address("Mannerheimintie 12 B, 00100 Helsinki")
        #expect(a.houseNumber == "12")
        #expect(a.street == "mannerheimintie")
    }

    @Test func phonesCompareInE164() {
        #expect(PlaceNormalizer.phone("310/246-1501", defaultRegion: "US") == "+13102461501")
        #expect(PlaceNormalizer.phone("+1 310-246-1501", defaultRegion: nil) == "+13102461501")
        #expect(PlaceNormalizer.phone("(09) 612 1234", defaultRegion: "FI") == PlaceNormalizer.phone("+358 9 6121234", defaultRegion: nil))
        #expect(PlaceNormalizer.phone("00358 9 6121234", defaultRegion: nil) == "+35896121234")
    }

    @Test func coreNameDropsConnectingAndCategoryWords() {
        #expect(PlaceNormalizer.coreName("Maya Bar & Grill") == "maya")
        #expect(PlaceNormalizer.coreName("Maya Bar") == "maya")
        #expect(PlaceNormalizer.coreName("Kahvila ja Leipomo Sävy") == "savy")
        #expect(PlaceNormalizer.coreName("Silta Books Helsinki") == "silta helsinki")
        #expect(PlaceNormalizer.coreName("Apteekki Kamppi") == "kamppi")
        // A name of nothing but such words keeps them all.
        #expect(PlaceNormalizer.coreName("Bar & Grill") == "bar and grill")
    }
}
