import Foundation
import Testing
@testable import PlacesHours

/// Clock changes: the answer must follow the wall clock of the place, and the next change must be
/// the real instant (its offset shows which side of the switch it is on).
@Suite("Daylight-saving switch days")
struct DaylightSavingTests {
    @Test("Helsinki spring forward: a bar open past 03:00 on 29 March closes at 04:00 summer time")
    func helsinkiSpringForward() throws {
        let result = try evaluate("Mo-Su 22:00-04:00", at: "2026-03-28T23:00")
        #expect(result.state == .open)
        #expect(result.nextChange?.localTime == "2026-03-29T04:00:00+03:00")
        // 23:00 EET to 04:00 EEST is four real hours, not five.
        let start = try LocalClock(timeZone: helsinki).parse("2026-03-28T23:00")
        #expect(result.nextChange.map { $0.at.timeIntervalSince(start) } == TimeInterval(4 * 3600))
    }

    @Test("Helsinki spring forward: a closing time inside the skipped hour happens at the jump")
    func helsinkiClosingInTheGap() throws {
        let result = try evaluate("Mo-Su 22:00-03:30", at: "2026-03-29T02:30")
        #expect(result.state == .open)
        #expect(result.nextChange?.localTime == "2026-03-29T04:00:00+03:00")
    }

    @Test("Helsinki fall back: 03:30 on 25 October is the first 03:30, in summer time")
    func helsinkiFallBack() throws {
        let result = try evaluate("Mo-Su 20:00-03:30", at: "2026-10-25T01:00")
        #expect(result.state == .open)
        #expect(result.nextChange?.localTime == "2026-10-25T03:30:00+03:00")
    }

    @Test("Helsinki: the first working day after the switch opens at 09:00 summer time")
    func helsinkiMondayAfterSwitch() throws {
        let result = try evaluate("Mo-Fr 09:00-17:00", at: "2026-03-27T18:00")
        #expect(result.state == .closed)
        #expect(result.nextChange?.localTime == "2026-03-30T09:00:00+03:00")
    }

    @Test("New York spring forward: 02:30 does not exist on 8 March; closing happens at 03:00 EDT")
    func newYorkSpringForward() throws {
        let result = try evaluate("Sa 20:00-02:30", at: "2026-03-07T23:00", in: newYork)
        #expect(result.state == .open)
        #expect(result.nextChange?.localTime == "2026-03-08T03:00:00-04:00")
    }

    @Test("New York fall back: closing at 02:00 on 1 November is five real hours after 22:00")
    func newYorkFallBack() throws {
        let result = try evaluate("Sa 18:00-02:00", at: "2026-10-31T22:00", in: newYork)
        #expect(result.state == .open)
        #expect(result.nextChange?.localTime == "2026-11-01T02:00:00-05:00")
        let start = try LocalClock(timeZone: newYork).parse("2026-10-31T22:00")
        #expect(result.nextChange.map { $0.at.timeIntervalSince(start) } == TimeInterval(5 * 3600))
    }

    @Test("New York: Monday after the switch opens at 09:00 EDT")
    func newYorkMondayAfterSwitch() throws {
        let result = try evaluate("Mo-Fr 09:00-17:00", at: "2026-03-06T18:00", in: newYork)
        #expect(result.nextChange?.localTime == "2026-03-09T09:00:00-04:00")
    }

    @Test("The same instant reads as different wall times in different zones")
    func zoneDecidesTheAnswer() throws {
        let instant = try LocalClock(timeZone: helsinki).parse("2026-11-23T17:30:00Z")
        let hours = OpeningHours(osm: "Mo-Fr 09:00-17:00")
        #expect(hours.evaluate(at: instant, timeZone: helsinki).state == .closed)  // 19:30 in Helsinki
        #expect(hours.evaluate(at: instant, timeZone: newYork).state == .open)  // 12:30 in New York
    }
}
