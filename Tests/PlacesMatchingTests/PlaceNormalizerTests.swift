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

    /// What the lookup's free id probe asks the paid source for: the words that say which place, as typed.
    @Test func distinctiveWordsKeepTheWordsThatSayWhichPlaceAsTyped() {
        #expect(PlaceNormalizer.distinctiveWords(of: "Vamq Bakery") == "Vamq")
        #expect(PlaceNormalizer.distinctiveWords(of: "Ravintola Savoy") == "Savoy")
        #expect(PlaceNormalizer.distinctiveWords(of: "Ravintoal Savoy") == "Savoy")  // a kind word mistyped is still one
        #expect(PlaceNormalizer.distinctiveWords(of: "Fazer Café Oy") == "Fazer")
        #expect(PlaceNormalizer.distinctiveWords(of: "Oyster Bar, The") == "Oyster")
        #expect(PlaceNormalizer.distinctiveWords(of: "Maya Bar & Grill") == "Maya")
        #expect(PlaceNormalizer.distinctiveWords(of: "Vio Gallery") == "Vio")
        #expect(PlaceNormalizer.distinctiveWords(of: "Tola Sushi") == "Tola")
        // The city goes only when it is one of the localities given (the query's, the candidate's).
        #expect(PlaceNormalizer.distinctiveWords(of: "Mito Bistro Helsinki", localities: ["Helsinki"]) == "Mito")
        #expect(PlaceNormalizer.distinctiveWords(of: "Engel in Helsingfors", localities: ["Helsinki"]) == "Engel")
        #expect(PlaceNormalizer.distinctiveWords(of: "Café Paris", localities: ["Helsinki"]) == "Paris")
        #expect(PlaceNormalizer.distinctiveWords(of: "Hotel Helsinki", localities: ["Helsinki"]) == "Helsinki")
        // Nothing distinctive: the whole name, as typed.
        #expect(PlaceNormalizer.distinctiveWords(of: "The Bar") == "The Bar")
        #expect(PlaceNormalizer.distinctiveWords(of: "Mito") == "Mito")
    }

    @Test func aTrailingLocalityIsSplitOffOnlyWhenItIsOneOfTheGivenPlaces() {
        #expect(PlaceNormalizer.trailingLocality(of: "Kiasma Helsinki", localities: ["Helsinki"])?.name == "kiasma")
        #expect(PlaceNormalizer.trailingLocality(of: "Maya Bar, Kallio", localities: ["Kallio"])?.name == "maya bar")
        #expect(PlaceNormalizer.trailingLocality(of: "Engel in Helsingfors", localities: ["Helsinki"])?.name == "engel")
        #expect(PlaceNormalizer.trailingLocality(of: "Chez Marie New York City", localities: ["New York"])?.name == "chez marie")
        #expect(PlaceNormalizer.trailingLocality(of: "Chez Marie New York City", localities: ["NYC"])?.locality == "new york city")
        // Not a locality of this record, nothing distinctive left, or nothing before it.
        #expect(PlaceNormalizer.trailingLocality(of: "Kiasma Espoo", localities: ["Helsinki"]) == nil)
        #expect(PlaceNormalizer.trailingLocality(of: "Hotel Helsinki", localities: ["Helsinki"]) == nil)
        #expect(PlaceNormalizer.trailingLocality(of: "The Helsinki", localities: ["Helsinki"]) == nil)
        #expect(PlaceNormalizer.trailingLocality(of: "Helsinki", localities: ["Helsinki"]) == nil)
        #expect(PlaceNormalizer.trailingLocality(of: "Kiasma Helsinki", localities: []) == nil)
    }

    @Test func coreNameIsNeverEmpty() {
        #expect(PlaceNormalizer.coreName("The Bar") == "the bar")
        #expect(PlaceNormalizer.coreName("Cafe") == "cafe")
    }

    @Test func streetTypesAndDirectionalsAreExpanded() {
        let a = PlaceNormalizer.address("8225 W Sunset Blvd.")
        #expect(a.houseNumber == "8225")
        // A directional at either end is left out: publishers put it before, after or nowhere.
        #expect(a.street == "sunset boulevard")
        #expect(PlaceNormalizer.address("8225 Sunset Blvd W").street == a.street)
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

/// The shapes two guide publishers print one place in (issue 13): each normaliser on its own.
@Suite struct PublisherShapesNormalizerTests {
    @Test func qualifiersInParenthesesAndAfterADashOrAtAreDropped() {
        func primary(_ name: String) -> String { PlaceNormalizer.coreName(PlaceNormalizer.primaryName(name)) }
        #expect(primary("Le Bistro (Los Angeles)") == PlaceNormalizer.coreName("Le Bistro"))
        #expect(primary("Chez Marie [Pasadena]") == "chez marie")
        #expect(primary("Sakura - Japantown") == "sakura")
        #expect(primary("Orchid at the Westin") == "orchid")
        #expect(primary("Orchid @ The Westin") == "orchid")
        // A hyphen inside a word is not a qualifier, and a name that is only a qualifier stays whole.
        #expect(primary("Mira Restaurant-Bar-Cafe") == "mira")
        #expect(primary("(Untitled)") == "untitled")
        #expect(primary("At Home") == "at home")
    }

    @Test func theMatcherComparesNamesWithAndWithoutQualifiers() {
        let matcher = PlaceMatcher()
        func name(_ a: String, _ b: String) -> Double {
            matcher.nameSimilarity(matcher.prepare(MatchRecord(id: "a", name: a)), matcher.prepare(MatchRecord(id: "b", name: b)))
        }
        #expect(name("Le Bistro (Los Angeles)", "Le Bistro") == 1)
        #expect(name("Orchid at the Westin", "Orchid") == 1)
        // A long name that only one side writes with a dash is still the same long name.
        #expect(name("AGMA - Luovan talouden agentit", "AGMA Luovan talouden agentit") == 1)
    }

    @Test func anInvertedArticleAnywhereIsTheSameName() {
        #expect(PlaceNormalizer.coreName("Ivy, The") == PlaceNormalizer.coreName("The Ivy"))
        #expect(PlaceNormalizer.coreName("Oyster Bar  The") == PlaceNormalizer.coreName("The Oyster Bar"))
        #expect(PlaceNormalizer.nameTokens("Bistro, Le") == PlaceNormalizer.nameTokens("Le Bistro"))
    }

    @Test func ordinalWordsAndNumbersAreOneStreet() {
        #expect(PlaceNormalizer.address("120 Ninth Ave.").street == PlaceNormalizer.address("120 9th Avenue").street)
        #expect(PlaceNormalizer.address("120 Ninth Ave.").houseNumber == "120")
        #expect(PlaceNormalizer.address("5 Twelfth Boulevard").street == PlaceNormalizer.address("5 12th Blvd").street)
        #expect(PlaceNormalizer.address("88 1st St").street == PlaceNormalizer.address("88 First Street").street)
        #expect(PlaceNormalizer.nameTokens("First Street Cafe") == PlaceNormalizer.nameTokens("1st Street Cafe"))
    }

    @Test func directionalsAndStreetTypesAtEitherEndAgree() {
        #expect(PlaceNormalizer.address("12 Main St. West").street == PlaceNormalizer.address("12 Main St.").street)
        #expect(PlaceNormalizer.address("12 W Main St").street == "main street")
        #expect(PlaceNormalizer.address("900 Ocean Blvd. S").street == PlaceNormalizer.address("900 Ocean Blvd. S.").street)
        #expect(PlaceNormalizer.address("900 Ocean Blvd. S").street == "ocean boulevard")
        // The street type first is part of the name.
        #expect(PlaceNormalizer.address("1221 Avenue of the Americas").street == "avenue of the americas")
        #expect(PlaceNormalizer.address("4 St. Marks Pl").street == "saint marks place")
    }

    @Test func textAfterTheHouseNumberAndStreetIsDropped() {
        let plain = PlaceNormalizer.address("1779 Quarry Road")
        for written in ["1779 Quarry Rd. between 3rd and 4th sts.", "1779 Quarry Rd Suite 200", "1779 Quarry Rd. #29",
                        "1779 Quarry Road, 2nd Floor", "1779 Quarry Rd (off High St)"] {
            #expect(PlaceNormalizer.address(written) == plain, "\(written)")
        }
    }

    @Test func cityAliasesAndQualifiersReduceToOneCity() {
        #expect(PlaceNormalizer.city("New York City") == PlaceNormalizer.city("New York"))
        #expect(PlaceNormalizer.city("NYC") == "new york")
        #expect(PlaceNormalizer.city("W. Springfield") == PlaceNormalizer.city("Springfield"))
        #expect(PlaceNormalizer.city("Helsinki") == "helsinki")
    }

    @Test func phonesWrittenWithSlashesCompare() {
        #expect(PlaceNormalizer.phone("312/555-0199", defaultRegion: "US") == "+13125550199")
        #expect(PlaceNormalizer.phone("415/ 555-0142", defaultRegion: "US") == PlaceNormalizer.phone("(415) 555-0142", defaultRegion: "US"))
        #expect(PlaceNormalizer.phone("+44 (0)20 7946 0123", defaultRegion: nil) == PlaceNormalizer.phone("020 7946 0123", defaultRegion: "GB"))
    }
}
