import Foundation
import PlacesCore
import Testing
@testable import PlacesHours

/// Every provider numbers weekdays differently; these tests pin each numbering to ISO (1 = Monday).
@Suite("Provider hours shapes")
struct ProviderHoursTests {
    private func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test("Google: day 0 is Sunday, and a period with no close is open around the clock")
    func google() throws {
        let periods = try decode([ProviderHours.GooglePeriod].self, """
            [{"open": {"day": 0, "hour": 12, "minute": 0}, "close": {"day": 0, "hour": 18, "minute": 0}},
             {"open": {"day": 1, "hour": 9, "minute": 30}, "close": {"day": 1, "hour": 17, "minute": 0}},
             {"open": {"day": 6, "hour": 22, "minute": 0}, "close": {"day": 0, "hour": 2, "minute": 0}}]
            """)
        let weekly = try ProviderHours.google(periods: periods)
        #expect(weekly == [
            WeeklyOpenPeriod(open: WeekTime(weekday: 7, minute: 720), close: WeekTime(weekday: 7, minute: 1080)),
            WeeklyOpenPeriod(open: WeekTime(weekday: 1, minute: 570), close: WeekTime(weekday: 1, minute: 1020)),
            WeeklyOpenPeriod(open: WeekTime(weekday: 6, minute: 1320), close: WeekTime(weekday: 7, minute: 120)),
        ])
        let hours = OpeningHours(periods: weekly)
        let clock = LocalClock(timeZone: helsinki)
        // Saturday night runs into Sunday 02:00; Sunday opens again at 12:00.
        let night = hours.evaluate(at: try clock.parse("2026-11-22T01:00"), timeZone: helsinki)
        #expect(night.state == .open)
        #expect(night.nextChange?.localTime == "2026-11-22T02:00:00+02:00")
        #expect(hours.evaluate(at: try clock.parse("2026-11-22T13:00"), timeZone: helsinki).state == .open)
        #expect(hours.evaluate(at: try clock.parse("2026-11-23T09:00"), timeZone: helsinki).state == .closed)
        #expect(night.summary == "Mo 09:30-17:00; Tu-Fr closed; Sa 22:00-02:00; Su 12:00-18:00")

        let allDay = try ProviderHours.google(periods: [.init(open: .init(day: 0, hour: 0, minute: 0), close: nil)])
        let always = OpeningHours(periods: allDay).evaluate(at: try clock.parse("2026-11-25T03:00"), timeZone: helsinki)
        #expect(always.state == .open)
        #expect(always.nextChange == nil)
        #expect(always.summary == "24/7")
    }

    @Test("Yelp: day 0 is Monday, times are HHMM, is_overnight moves the end to the next day")
    func yelp() throws {
        let open = try decode([ProviderHours.YelpOpen].self, """
            [{"is_overnight": false, "start": "1730", "end": "2200", "day": 0},
             {"is_overnight": true, "start": "2200", "end": "0200", "day": 6}]
            """)
        let weekly = try ProviderHours.yelp(open: open)
        #expect(weekly == [
            WeeklyOpenPeriod(open: WeekTime(weekday: 1, minute: 1050), close: WeekTime(weekday: 1, minute: 1320)),
            WeeklyOpenPeriod(open: WeekTime(weekday: 7, minute: 1320), close: WeekTime(weekday: 1, minute: 120)),
        ])
        let hours = OpeningHours(periods: weekly)
        let clock = LocalClock(timeZone: helsinki)
        // Sunday 22:00 to Monday 02:00, then Monday 17:30 to 22:00.
        let mondayNight = hours.evaluate(at: try clock.parse("2026-11-23T01:00"), timeZone: helsinki)
        #expect(mondayNight.state == .open)
        #expect(mondayNight.nextChange?.localTime == "2026-11-23T02:00:00+02:00")
        let afternoon = hours.evaluate(at: try clock.parse("2026-11-23T12:00"), timeZone: helsinki)
        #expect(afternoon.nextChange?.localTime == "2026-11-23T17:30:00+02:00")
    }

    @Test("Foursquare: day 1 is Monday, a '+' close is on the next day")
    func foursquare() throws {
        let regular = try decode([ProviderHours.FoursquareDay].self, """
            [{"close": "1700", "day": 1, "open": "0900"}, {"close": "+0200", "day": 7, "open": "2200"}]
            """)
        let weekly = try ProviderHours.foursquare(regular: regular)
        #expect(weekly == [
            WeeklyOpenPeriod(open: WeekTime(weekday: 1, minute: 540), close: WeekTime(weekday: 1, minute: 1020)),
            WeeklyOpenPeriod(open: WeekTime(weekday: 7, minute: 1320), close: WeekTime(weekday: 1, minute: 120)),
        ])
        let clock = LocalClock(timeZone: helsinki)
        let hours = OpeningHours(periods: weekly)
        #expect(hours.evaluate(at: try clock.parse("2026-11-23T01:30"), timeZone: helsinki).state == .open)
        #expect(hours.evaluate(at: try clock.parse("2026-11-23T10:00"), timeZone: helsinki).state == .open)
        #expect(hours.evaluate(at: try clock.parse("2026-11-24T10:00"), timeZone: helsinki).state == .closed)
    }

    @Test("A malformed entry is an error, not a silently closed day")
    func malformed() {
        #expect(throws: InputError.self) { try ProviderHours.yelp(open: [.init(day: 7, start: "0900", end: "1700", isOvernight: false)]) }
        #expect(throws: InputError.self) { try ProviderHours.yelp(open: [.init(day: 1, start: "9am", end: "1700", isOvernight: false)]) }
        #expect(throws: InputError.self) { try ProviderHours.foursquare(regular: [.init(day: 0, open: "0900", close: "1700")]) }
        #expect(throws: InputError.self) { try ProviderHours.google(periods: [.init(open: .init(day: 7, hour: 9, minute: 0), close: nil)]) }
    }

    @Test("Periods longer than two days are split by day and still read as one stretch")
    func multiDayPeriod() throws {
        // Open Monday 08:00 straight through to Friday 18:00 (a Google shape for round-the-clock weekdays).
        let periods = [WeeklyOpenPeriod(open: WeekTime(weekday: 1, minute: 480), close: WeekTime(weekday: 5, minute: 1080))]
        let result = OpeningHours(periods: periods)
            .evaluate(at: try LocalClock(timeZone: helsinki).parse("2026-11-25T03:00"), timeZone: helsinki)
        #expect(result.state == .open)
        #expect(result.nextChange?.localTime == "2026-11-27T18:00:00+02:00")
    }
}
