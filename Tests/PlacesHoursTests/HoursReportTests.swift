import Foundation
import PlacesCore
import Testing
@testable import PlacesHours

@Suite("Hours report for a place")
struct HoursReportTests {
    private let coordinate = Coordinate(latitude: 60.1699, longitude: 24.9384)

    private func place(hours: String? = nil, periods: [WeeklyOpenPeriod]? = nil, zone: String? = nil, offset: Int? = nil) -> Place {
        Place(id: PlaceID(provider: "osm", nativeID: "node/1"), name: "Kahvila", coordinate: coordinate,
              openingHoursText: hours, openingPeriods: periods, timeZone: zone, utcOffsetMinutes: offset)
    }

    private func json(_ report: HoursReport) throws -> [String: Any] {
        let data = try JSONEncoder().encode(report)
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("A remembered parse is the parse: readable, corrected, unreadable and over-long texts, asked twice")
    func rememberedParseIsTheParse() {
        let long = Array(repeating: "Mo 09:00-10:00", count: 40).joined(separator: ", ")
        for text in ["Mo-Fr 09:00-19:00; Sa 09:00-18:00; PH off", "Mon-Fri 9-17", "24/7", "by appointment", "", long] {
            #expect(OpeningHours.remembered(osm: text) == OpeningHours(osm: text), "\(text)")
            #expect(OpeningHours.remembered(osm: text) == OpeningHours(osm: text), "\(text)")
        }
    }

    @Test("The issue's example: open on an ordinary Saturday, closing at 18:00, with the PH caveat")
    func acceptanceExample() throws {
        let at = try LocalClock(timeZone: helsinki).parse("2026-11-21T17:30")
        let report = try #require(HoursReport.evaluate(
            place: place(hours: "Mo-Fr 09:00-19:00; Sa 09:00-18:00; PH off", zone: "Europe/Helsinki"), at: at, timeZone: nil))
        let object = try json(report)
        #expect(object["open_now"] as? Bool == true)
        let next = try #require(object["next_change"] as? [String: Any])
        #expect(next["at"] as? String == "2026-11-21T18:00:00+02:00")
        #expect(next["state"] as? String == "closed")
        #expect((object["caveats"] as? [String])?.contains { $0.contains("depends on public holidays") } == true)
        let hours = try #require(object["hours"] as? [String: Any])
        #expect(hours["raw"] as? String == "Mo-Fr 09:00-19:00; Sa 09:00-18:00; PH off")
        #expect(hours["parsed"] as? Bool == true)
        #expect(hours["summary"] as? String == "Mo-Fr 09:00-19:00; Sa 09:00-18:00; Su closed")
        let week = try #require(hours["week"] as? [[String: Any]])
        #expect(week.count == 7)
        #expect(week[5]["day"] as? String == "Sa")
        #expect(week[5]["date"] as? String == "2026-11-21")
        let saturday = try #require(week[5]["intervals"] as? [[String: Any]])
        #expect(saturday.first?["from"] as? String == "09:00")
        #expect(saturday.first?["to"] as? String == "18:00")
        #expect((week[6]["intervals"] as? [Any])?.isEmpty == true)
    }

    @Test("A place without hours has no report")
    func noHours() {
        #expect(HoursReport.evaluate(place: place(), at: Date(), timeZone: helsinki) == nil)
        #expect(HoursReport.evaluate(place: place(hours: "  "), at: Date(), timeZone: helsinki) == nil)
    }

    @Test("The place's own zone wins over the caller's; a fixed offset is used with a caveat")
    func zonePrecedence() throws {
        let instant = try LocalClock(timeZone: helsinki).parse("2026-11-23T17:30:00Z")
        let spec = "Mo-Fr 09:00-17:00"
        // 12:30 in New York: open, although the caller's zone (Helsinki, 19:30) would say closed.
        let own = try #require(HoursReport.evaluate(place: place(hours: spec, zone: "America/New_York"), at: instant, timeZone: helsinki))
        #expect(own.openNow == true)
        #expect(own.hours.timeZone == "America/New_York")

        let fallback = try #require(HoursReport.evaluate(place: place(hours: spec), at: instant, timeZone: helsinki))
        #expect(fallback.openNow == false)

        let fixed = try #require(HoursReport.evaluate(place: place(hours: spec, offset: -300), at: instant, timeZone: helsinki))
        #expect(fixed.openNow == true)
        #expect(fixed.caveats.contains { $0.contains("fixed UTC offset") })
    }

    @Test("Without any zone the schedule is shown but open_now is null")
    func noZone() throws {
        let report = try #require(HoursReport.evaluate(place: place(hours: "Mo-Fr 09:00-17:00"), at: Date(), timeZone: nil))
        let object = try json(report)
        #expect(object["open_now"] is NSNull)
        #expect(object["next_change"] is NSNull)
        #expect(report.caveats.contains { $0.contains("time zone is unknown") })
        #expect(report.hours.summary == "Mo-Fr 09:00-17:00; Sa,Su closed")
    }

    @Test("Structured periods win over a provider's display text")
    func periodsWinOverText() throws {
        let periods = [WeeklyOpenPeriod(open: WeekTime(weekday: 1, minute: 600), close: WeekTime(weekday: 1, minute: 1200))]
        let at = try LocalClock(timeZone: helsinki).parse("2026-11-23T12:00")
        let report = try #require(HoursReport.evaluate(
            place: place(hours: "Monday: 10:00 AM – 8:00 PM", periods: periods, zone: "Europe/Helsinki"), at: at, timeZone: nil))
        #expect(report.openNow == true)
        #expect(report.hours.source == "periods")
        #expect(report.hours.raw == "Monday: 10:00 AM – 8:00 PM")
    }

    @Test("A place reported closed is closed whatever its hours say")
    func closedPlace() throws {
        var closed = place(hours: "24/7", zone: "Europe/Helsinki")
        closed.status = .closedPermanently
        let report = try #require(HoursReport.evaluate(place: closed, at: Date(), timeZone: nil))
        #expect(report.openNow == false)
        #expect(report.nextChange == nil)
        #expect(report.caveats.contains { $0.contains("permanently closed") })
    }

    @Test("Unreadable text: raw kept, parsed false, open_now null")
    func unreadable() throws {
        let report = try #require(HoursReport.evaluate(
            place: place(hours: "Seasonal, only summer time", zone: "Europe/Helsinki"), at: Date(), timeZone: nil))
        let object = try json(report)
        #expect(object["open_now"] is NSNull)
        let hours = try #require(object["hours"] as? [String: Any])
        #expect(hours["parsed"] as? Bool == false)
        #expect(hours["raw"] as? String == "Seasonal, only summer time")
        #expect(hours["summary"] as? String == "unknown")
        #expect(hours["error"] is String)
    }
}
