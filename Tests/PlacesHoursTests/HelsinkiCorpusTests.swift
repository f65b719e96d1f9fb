import Testing
@testable import PlacesHours

/// The strings of the real extract that are *not* opening_hours syntax, each with the reason. The
/// target is none; these four are free text or truncated, and guessing them would send someone to a
/// closed door, so they are kept raw and evaluate to unknown.
let knownUnreadableHelsinkiValues: [String: String] = [
    // Free text: is 11:00-13:30 a lunch break (closed) or lunch service (open)?
    "Mo-Fr 09:30 - 15:00. Lunch Mo-Fr 11:00 - 13:30": "unexpected character '.'",
    // Truncated: Sunday opens at 8 (or 9) and closes when?
    "Mo-Fr 8-02;Sa 8-02 Su 8": "time '8' has no end",
    "Mo-Fr 9-20;Sa 9-20 Su 9": "time '9' has no end",
    // Prose, not hours.
    "Seasonal, only summer time": "unexpected 'Seasonal' where a rule should start",
]

@Suite("Every opening_hours value in the Helsinki extract")
struct HelsinkiCorpusTests {
    @Test("All values but the listed exceptions parse, and each exception fails for its stated reason")
    func corpusParses() {
        #expect(HelsinkiOpeningHours.values.count == 379)
        var failures: [String: String] = [:]
        for value in HelsinkiOpeningHours.values {
            if let error = OpeningHours(osm: value).syntaxError { failures[value] = error.message }
        }
        #expect(Set(failures.keys) == Set(knownUnreadableHelsinkiValues.keys), "unexpected failures: \(failures)")
        for (value, reason) in knownUnreadableHelsinkiValues {
            #expect(failures[value]?.contains(reason) == true, "\(value): \(failures[value] ?? "parsed")")
        }
    }

    @Test("Every parsed value evaluates to a state and a week on a busy Saturday evening")
    func corpusEvaluates() throws {
        let at = try LocalClock(timeZone: helsinki).parse("2026-11-21T17:30")
        var openCount = 0
        for value in HelsinkiOpeningHours.values {
            let hours = OpeningHours(osm: value)
            let result = hours.evaluate(at: at, timeZone: helsinki)
            #expect(result.week.count == 7)
            if hours.isParsed, result.state != .unknown, let next = result.nextChange {
                #expect(next.state != result.state)
                #expect(next.at > at)
            }
            if result.state == .open { openCount += 1 }
        }
        // Most Helsinki shops and bars are open at 17:30 on a Saturday.
        #expect(openCount > HelsinkiOpeningHours.values.count / 2)
    }
}
