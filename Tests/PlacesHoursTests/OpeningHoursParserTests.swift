import Testing
@testable import PlacesHours

@Suite("Reading opening_hours text")
struct OpeningHoursParserTests {
    @Test("Sloppy but unambiguous spelling is read, with a warning saying how", arguments: [
        ("Mon - Fri 11am - 11pm, Sat 12am - 11pm, Sun 2pm - 10pm", "Mo-Fr 11:00-23:00; Sa 00:00-23:00; Su 14:00-22:00"),
        ("Mo-Fr 10:00-20:00, Sa 10-18, Su 12-18", "Mo-Fr 10:00-20:00; Sa 10:00-18:00; Su 12:00-18:00"),
        ("Mo-Fr 08:00-19:00 Sa 09:00-19:00 Su 12:00-18:00", "Mo-Fr 08:00-19:00; Sa 09:00-19:00; Su 12:00-18:00"),
        ("Mo-su 09:00-19:00", "Mo-Su 09:00-19:00"),
        ("Mo-Fr 09:00–17:00", "Mo-Fr 09:00-17:00; Sa,Su closed"),
        ("Mo-Fr 16:00-, Sa 14:00-", "Mo-Fr 16:00-24:00 unknown \"open end\"; Sa 14:00-24:00 unknown \"open end\"; Su closed"),
    ])
    func lenient(_ text: String, _ summary: String) {
        let hours = OpeningHours(osm: text)
        #expect(hours.isParsed)
        #expect(!hours.warnings.isEmpty)
        #expect(DayHours.summary(hours.week(containing: LocalDate(year: 2026, month: 11, day: 21))) == summary)
    }

    @Test("Canonical text reads without warnings", arguments: [
        "Mo-Fr 09:00-19:00; Sa 09:00-18:00; PH off", "24/7", "Jun-Aug: Su-Sa 09:00-24:00; Sep-May: Su-Sa 09:00-18:00",
        "2017 Jul 1 - 2017 Aug 8 off; PH off", "Mo-Fr 08:00-16:00 || \"on appointment\"", "Dec 24-26 off",
        "week 01-53/2 Mo 10:00-12:00", "Su[-1] 10:00-14:00", "PH Mo-Fr 10:00-12:00", "Mo-Fr 18:00-26:00",
        "Mo-Fr 11:00-15:00 open \"Lunch\"", "Sa-Su 12:00-16:00; Tu-Fr 11:00-17:00",
    ])
    func canonical(_ text: String) {
        let hours = OpeningHours(osm: text)
        #expect(hours.syntaxError == nil)
        #expect(hours.warnings.isEmpty)
    }

    @Test("Text whose meaning is in doubt is an error that says why", arguments: [
        ("Mo-Fr 8-02;Sa 8-02 Su 8", "has no end"),
        ("Seasonal, only summer time", "where a rule should start"),
        ("Mo-Fr 09:30 - 15:00. Lunch Mo-Fr 11:00 - 13:30", "unexpected character '.'"),
        ("Mo-Fr 09:00-17:00 \"closed on", "closing '\"'"),
        ("Mo-Fr 15:00-17:00 | Sa off", "'||'"),
        ("Fr 44:00-12:00", "start time '44:00' is after 24:00"),
        ("Mo-Th 14:00-23:00; Fr, 25:00-27:00", "start time '25:00' is after 24:00"),
        ("Mo-Fr 10:00-16:00/01:30", "repeating"),
        ("Feb 30 off", "does not exist"),
        ("Mo-Fr 09:00-17:00;", nil),
        ("", "empty"),
        ("Mo-Fr 09:00-17:00 ||", "after a rule separator"),
        ("PH +1 day off", "offsets"),
    ] as [(String, String?)])
    func errors(_ text: String, _ reason: String?) {
        let hours = OpeningHours(osm: text)
        if let reason {
            #expect(!hours.isParsed)
            #expect(hours.syntaxError?.message.contains(reason) == true, "\(hours.syntaxError?.message ?? "parsed")")
        } else {
            // A trailing ';' is harmless.
            #expect(hours.isParsed)
        }
    }

    @Test("Errors point at the offending character")
    func errorPosition() throws {
        let error = try #require(OpeningHours(osm: "Mo-Fr 08:00-16:00; Xy 10:00-12:00").syntaxError)
        #expect(error.offset == 19)
        #expect(error.description.hasSuffix("(at character 20)"))
    }
}
