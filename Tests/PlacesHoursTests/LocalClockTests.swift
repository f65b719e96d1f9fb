import Foundation
import PlacesCore
import Testing
@testable import PlacesHours

@Suite("Reading --at moments and writing local times")
struct LocalClockTests {
    private let clock = LocalClock(timeZone: helsinki)

    @Test("A time without an offset is read on the place's wall clock", arguments: [
        ("2026-11-21T17:30", "2026-11-21T17:30:00+02:00"),
        ("2026-11-21 17:30:15", "2026-11-21T17:30:15+02:00"),
        ("2026-07-04T12:00", "2026-07-04T12:00:00+03:00"),
        ("2026-11-21", "2026-11-21T00:00:00+02:00"),
    ])
    func localTimes(_ text: String, _ expected: String) throws {
        #expect(clock.iso8601(try clock.parse(text)) == expected)
    }

    @Test("A time with an offset is an exact instant, shown on the place's clock", arguments: [
        ("2026-11-21T15:30:00Z", "2026-11-21T17:30:00+02:00"),
        ("2026-11-21T10:30:00-05:00", "2026-11-21T17:30:00+02:00"),
        ("2026-11-21T17:30+0200", "2026-11-21T17:30:00+02:00"),
        ("2026-11-21T15:30:00.500Z", "2026-11-21T17:30:00+02:00"),
    ])
    func instants(_ text: String, _ expected: String) throws {
        #expect(clock.iso8601(try clock.parse(text)) == expected)
    }

    @Test("Malformed moments are one clear error", arguments: [
        "2026-13-21T17:30", "2026-02-30T10:00", "21.11.2026 17:30", "2026-11-21T25:00", "2026-11-21T17:30+2", "tomorrow", "",
    ])
    func malformed(_ text: String) {
        #expect(throws: InputError.self) { try clock.parse(text) }
    }

    @Test("Day arithmetic agrees with the calendar across leap years and ISO weeks")
    func localDates() {
        let date = LocalDate(year: 2024, month: 2, day: 29)
        #expect(LocalDate(dayNumber: date.dayNumber) == date)
        #expect(date.adding(days: 1) == LocalDate(year: 2024, month: 3, day: 1))
        #expect(date.weekday == 4)  // Thursday
        #expect(LocalDate(year: 1970, month: 1, day: 1).dayNumber == 0)
        #expect(LocalDate(year: 2026, month: 1, day: 1).isoWeek == 1)
        #expect(LocalDate(year: 2027, month: 1, day: 1).isoWeek == 53)  // a Friday: still 2026's last week
        #expect(LocalDate(year: 2026, month: 12, day: 28).isoWeek == 53)
    }
}
