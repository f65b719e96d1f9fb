import Foundation
import PlacesCore
import SpotStore
import Testing

/// `spots log --time` as people type it. The clock is pinned; expected instants are worked out by hand from the
/// zones' offsets in May 2026 (Helsinki UTC+3, New York UTC−4).
@Suite struct VisitTimeTests {
    static let helsinki = TimeZone(identifier: "Europe/Helsinki")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    func instant(_ iso: String) throws -> Date { try #require(SpotTime.parseDate(iso)) }

    func parse(_ text: String, now: String = "2026-05-10T12:00:00Z", zone: TimeZone = helsinki) throws -> Date {
        try VisitTime.parse(text, now: try instant(now), zone: zone)
    }

    @Test func nowAndRelativeTimesCountBackFromTheClock() throws {
        #expect(try parse("now") == instant("2026-05-10T12:00:00Z"))
        #expect(try parse(" NOW ") == instant("2026-05-10T12:00:00Z"))
        #expect(try parse("-30m") == instant("2026-05-10T11:30:00Z"))
        #expect(try parse("-45min") == instant("2026-05-10T11:15:00Z"))
        #expect(try parse("-2h") == instant("2026-05-10T10:00:00Z"))
        #expect(try parse("-1d") == instant("2026-05-09T12:00:00Z"))
        #expect(try parse("-90s") == instant("2026-05-10T11:58:30Z"))
    }

    @Test func aWallClockTimeIsReadInThePlacesZone() throws {
        #expect(try parse("yesterday 19:30") == instant("2026-05-09T16:30:00Z"))
        #expect(try parse("today 8:05") == instant("2026-05-10T05:05:00Z"))
        #expect(try parse("19:30") == instant("2026-05-10T16:30:00Z"))
        #expect(try parse("2026-05-01 12:30") == instant("2026-05-01T09:30:00Z"))
        #expect(try parse("2026-05-01T12:30:15") == instant("2026-05-01T09:30:15Z"))
        #expect(try parse("yesterday 19:30", zone: Self.newYork) == instant("2026-05-09T23:30:00Z"))
    }

    @Test func todayAndYesterdayAreThePlacesDaysNotUTCs() throws {
        // 22:30 UTC on 10 May is already 01:30 on 11 May in Helsinki: "yesterday" there is 10 May.
        #expect(try parse("yesterday 19:30", now: "2026-05-10T22:30:00Z") == instant("2026-05-10T16:30:00Z"))
    }

    @Test func anExplicitOffsetWins() throws {
        #expect(try parse("2026-05-01T12:30:00+02:00") == instant("2026-05-01T10:30:00Z"))
        #expect(try parse("2026-05-01T12:30:00Z", zone: Self.newYork) == instant("2026-05-01T12:30:00Z"))
    }

    @Test(arguments: ["soon", "yesterday", "25:00", "19:60", "2026-02-30 10:00", "2026-13-01 10:00", "-m", "-5y", "", "+30m"])
    func anythingElseIsOneClearLine(_ text: String) {
        #expect {
            try VisitTime.parse(text, now: Date(timeIntervalSince1970: 1_778_414_400), zone: Self.helsinki)
        } throws: { error in
            let message = (error as? InputError)?.message ?? ""
            return message.hasPrefix("invalid time '\(text)': expected now, -30m") && !message.contains("\n")
        }
    }
}
