import Foundation
import Testing
@testable import PlacesHours

/// One row: the hours, a wall-clock moment in Helsinki, and what a person standing at the door would find.
struct EvaluationCase: Sendable, CustomTestStringConvertible {
    var spec: String
    var at: String
    var state: HoursState
    /// The next change on the wall clock with its offset, or `nil` for "never changes".
    var next: String?
    var nextState: HoursState?

    init(_ spec: String, at: String, _ state: HoursState, next: String? = nil, _ nextState: HoursState? = nil) {
        self.spec = spec
        self.at = at
        self.state = state
        self.next = next
        self.nextState = nextState
    }

    var testDescription: String { "\(spec) @ \(at)" }
}

// 2026-11-21 is a Saturday; 2026-11-23 a Monday.
let overnightCases: [EvaluationCase] = [
    .init("Fr-Sa 22:00-04:00", at: "2026-11-21T02:00", .open, next: "2026-11-21T04:00:00+02:00", .closed),
    .init("Fr-Sa 22:00-04:00", at: "2026-11-22T03:59", .open, next: "2026-11-22T04:00:00+02:00", .closed),
    .init("Fr-Sa 22:00-04:00", at: "2026-11-23T01:00", .closed, next: "2026-11-27T22:00:00+02:00", .open),
    .init("Mo-Su 18:00-26:00", at: "2026-11-22T01:30", .open, next: "2026-11-22T02:00:00+02:00", .closed),
    .init("Mo-Fr 11:00-23:00; Sa-Su 12:00-10:00", at: "2026-11-22T09:00", .open, next: "2026-11-22T10:00:00+02:00", .closed),
    .init("Mo-Sa 12:00-00:00", at: "2026-11-21T23:59", .open, next: "2026-11-22T00:00:00+02:00", .closed),
    .init("Mo 10:00-24:00; Tu-Th 10:00-01:00", at: "2026-11-24T00:30", .closed, next: "2026-11-24T10:00:00+02:00", .open),
]

let weekBoundaryCases: [EvaluationCase] = [
    // Sunday's night runs into Monday morning.
    .init("Su 20:00-02:00", at: "2026-11-23T01:00", .open, next: "2026-11-23T02:00:00+02:00", .closed),
    .init("Su 20:00-02:00", at: "2026-11-22T23:59", .open, next: "2026-11-23T02:00:00+02:00", .closed),
    // Sunday 22-24 and Monday 00-06 are one stretch: the next change is Monday 06:00, not midnight.
    .init("Mo 00:00-06:00; Su 22:00-24:00", at: "2026-11-22T23:00", .open, next: "2026-11-23T06:00:00+02:00", .closed),
    .init("Su-Tu 10:00-21:00; We-Sa 10:00-05:00", at: "2026-11-22T04:00", .open, next: "2026-11-22T05:00:00+02:00", .closed),
    .init("Su-Tu 10:00-21:00; We-Sa 10:00-05:00", at: "2026-11-23T04:00", .closed, next: "2026-11-23T10:00:00+02:00", .open),
    .init("Jun-Aug: Su-Sa 09:00-24:00; Sep-May: Su-Sa 09:00-18:00", at: "2026-11-23T08:00", .closed,
          next: "2026-11-23T09:00:00+02:00", .open),
]

let ruleOperatorCases: [EvaluationCase] = [
    .init("Mo-Fr 09:00-19:00; Sa 09:00-18:00; PH off", at: "2026-11-21T17:30", .open, next: "2026-11-21T18:00:00+02:00", .closed),
    .init("24/7", at: "2026-11-21T03:00", .open),
    .init("off", at: "2026-11-21T12:00", .closed),
    .init("closed", at: "2026-11-21T12:00", .closed),
    .init("Mo-Fr 08:00-12:00, Mo-Fr 13:00-17:00", at: "2026-11-23T12:30", .closed, next: "2026-11-23T13:00:00+02:00", .open),
    .init("Mo-Fr 08:00-10:30, 11:00-16:00", at: "2026-11-23T10:45", .closed, next: "2026-11-23T11:00:00+02:00", .open),
    .init("Mo-Fr 08:00-18:00; We 12:00-14:00 off", at: "2026-11-25T13:00", .closed, next: "2026-11-25T14:00:00+02:00", .open),
    .init("Mo-Fr 08:00-20:00; Sa 11:00-17:00, Su closed", at: "2026-11-22T12:00", .closed, next: "2026-11-23T08:00:00+02:00", .open),
    .init("Mo-Sa 09:00-21:00; Sa 09:00-19:00; Su 11:00-18:00", at: "2026-11-21T20:00", .closed, next: "2026-11-22T11:00:00+02:00", .open),
    // `||`: the comment applies only on days the first rule does not mention.
    .init("Mo-Fr 08:00-16:00 || \"on appointment\"", at: "2026-11-21T12:00", .unknown, next: "2026-11-23T00:00:00+02:00", .closed),
    .init("Mo-Fr 08:00-16:00 || \"on appointment\"", at: "2026-11-23T10:00", .open, next: "2026-11-23T16:00:00+02:00", .closed),
    .init("Mo-Fr 08:00-16:00 || Sa 10:00-12:00", at: "2026-11-21T11:00", .open, next: "2026-11-21T12:00:00+02:00", .closed),
    .init("\"for request only\"", at: "2026-11-21T12:00", .unknown),
    .init("Mo-Fr 11:00-15:00 open \"Lunch\"", at: "2026-11-23T12:00", .open, next: "2026-11-23T15:00:00+02:00", .closed),
    .init("Mo-Fr 16:00+", at: "2026-11-23T17:00", .unknown, next: "2026-11-24T00:00:00+02:00", .closed),
    .init("Mo-Fr sunrise-sunset", at: "2026-11-23T12:00", .unknown, next: "2026-11-28T00:00:00+02:00", .closed),
    .init("Seasonal, only summer time", at: "2026-11-21T12:00", .unknown),
]

let calendarCases: [EvaluationCase] = [
    // The summer timetable of a Helsinki shop (real value from the extract).
    .init("Mo-Fr 10:00-18:00; Sa 11:00-16:00; Jun 06-Aug 13 Mo-Fr 11:00-18:00; Jun 06-Aug 13 Sa 10:00-15:00; Jul 02-Jul 30 Sa off",
          at: "2026-07-04T12:00", .closed, next: "2026-07-06T11:00:00+03:00", .open),
    .init("Mo-Fr 10:00-18:00; Sa 11:00-16:00; Jun 06-Aug 13 Mo-Fr 11:00-18:00; Jun 06-Aug 13 Sa 10:00-15:00; Jul 02-Jul 30 Sa off",
          at: "2026-06-13T12:00", .open, next: "2026-06-13T15:00:00+03:00", .closed),
    .init("Mo-Fr 10:00-18:00; Sa 11:00-16:00; Jun 06-Aug 13 Mo-Fr 11:00-18:00; Jun 06-Aug 13 Sa 10:00-15:00; Jul 02-Jul 30 Sa off",
          at: "2026-11-21T12:00", .open, next: "2026-11-21T16:00:00+02:00", .closed),
    .init("Mo-Fr 9:00-18:00; Sa 10:00-15:00; Jun 1 - Aug 31 Sa off; Jun 1 - Aug 31 Mo-Fr 9:00-17:00; PH off",
          at: "2026-08-31T17:30", .closed, next: "2026-09-01T09:00:00+03:00", .open),
    .init("Mo-Fr 9:00-18:00; Sa 10:00-15:00; Jun 1 - Aug 31 Sa off; Jun 1 - Aug 31 Mo-Fr 9:00-17:00; PH off",
          at: "2026-09-01T17:30", .open, next: "2026-09-01T18:00:00+03:00", .closed),
    .init("Mo-Su 10:00-20:00; Dec 24 off", at: "2026-12-24T12:00", .closed, next: "2026-12-25T10:00:00+02:00", .open),
    .init("Mo-Su 10:00-20:00; Dec 24-26 off", at: "2026-12-25T12:00", .closed, next: "2026-12-27T10:00:00+02:00", .open),
    .init("Sep-May: Fr 18:00-22:00", at: "2026-11-20T19:00", .open, next: "2026-11-20T22:00:00+02:00", .closed),
    // Out of season the next opening is months away, and is still found.
    .init("Sep-May: Fr 18:00-22:00", at: "2026-06-19T19:00", .closed, next: "2026-09-04T18:00:00+03:00", .open),
    .init("Sa 10:00-16:00; Mo-Fr 07:30-18:00; 2017 Jul 1 - 2017 Aug 8 Sa off; 2017 Jul 1 - 2017 Aug 8 Mo-Fr 8:00-17:00; PH off",
          at: "2017-07-03T07:45", .closed, next: "2017-07-03T08:00:00+03:00", .open),
    .init("Sa 10:00-16:00; Mo-Fr 07:30-18:00; 2017 Jul 1 - 2017 Aug 8 Sa off; 2017 Jul 1 - 2017 Aug 8 Mo-Fr 8:00-17:00; PH off",
          at: "2018-07-02T07:45", .open, next: "2018-07-02T18:00:00+03:00", .closed),
    .init("2026-2027 Mo 10:00-12:00", at: "2028-01-03T11:00", .closed),
    .init("week 01-53/2 Mo 10:00-12:00", at: "2026-11-16T11:00", .open, next: "2026-11-16T12:00:00+02:00", .closed),
    .init("week 01-53/2 Mo 10:00-12:00", at: "2026-11-23T11:00", .closed, next: "2026-11-30T10:00:00+02:00", .open),
    .init("Su[-1] 10:00-14:00", at: "2026-11-29T12:00", .open, next: "2026-11-29T14:00:00+02:00", .closed),
    .init("Su[-1] 10:00-14:00", at: "2026-11-22T12:00", .closed, next: "2026-11-29T10:00:00+02:00", .open),
    .init("Mo[1,3] 09:00-12:00", at: "2026-11-16T10:00", .open, next: "2026-11-16T12:00:00+02:00", .closed),
]

@Suite("Evaluating opening hours")
struct OpeningHoursEvaluationTests {
    @Test("Hours past midnight belong to the day they start on", arguments: overnightCases)
    func overnight(_ row: EvaluationCase) throws { try check(row) }

    @Test("Sunday into Monday and wrapping weekday ranges", arguments: weekBoundaryCases)
    func weekBoundaries(_ row: EvaluationCase) throws { try check(row) }

    @Test("';' overrides, ',' adds, '||' falls back; comments and open ends are unknown", arguments: ruleOperatorCases)
    func ruleOperators(_ row: EvaluationCase) throws { try check(row) }

    @Test("Date ranges, years, weeks and n-th weekdays", arguments: calendarCases)
    func calendarSelectors(_ row: EvaluationCase) throws { try check(row) }

    private func check(_ row: EvaluationCase) throws {
        let result = try evaluate(row.spec, at: row.at)
        #expect(result.state == row.state)
        #expect(result.nextChange?.localTime == row.next)
        #expect(result.nextChange?.state == row.nextState)
    }

    @Test("Without a holiday calendar, PH rules add a caveat and leave an ordinary day alone")
    func publicHolidaysWithoutCalendar() throws {
        // 2026-12-24 is a Thursday and a Finnish holiday, but nothing tells us so.
        let result = try evaluate("Mo-Fr 10:00-18:00; PH off", at: "2026-12-24T12:00")
        #expect(result.state == .open)
        #expect(result.caveats.contains { $0.contains("depends on public holidays") })
    }

    @Test("With a holiday calendar, PH rules apply on the listed days only")
    func publicHolidaysWithCalendar() throws {
        let calendar = try HolidayCalendar(isoPublicHolidays: ["2026-12-24", "2026-12-25", "2026-12-06"])
        let closed = try evaluate("Mo-Fr 10:00-18:00; PH off", at: "2026-12-24T12:00", holidays: calendar)
        #expect(closed.state == .closed)
        #expect(closed.nextChange?.localTime == "2026-12-28T10:00:00+02:00")
        #expect(closed.caveats.isEmpty)

        let ordinary = try evaluate("Mo-Fr 10:00-18:00; PH off", at: "2026-12-23T12:00", holidays: calendar)
        #expect(ordinary.state == .open)

        // Independence Day falls on a Sunday in 2026: the PH hours replace "closed on Sundays".
        let sunday = try evaluate("Mo-Fr 10:00-18:00; PH 12:00-16:00", at: "2026-12-06T13:00", holidays: calendar)
        #expect(sunday.state == .open)
        #expect(sunday.nextChange?.localTime == "2026-12-06T16:00:00+02:00")

        let either = try evaluate("Su,PH 12:00-16:00", at: "2026-12-25T13:00", holidays: calendar)
        #expect(either.state == .open)
    }

    @Test("School holidays need their own calendar")
    func schoolHolidays() throws {
        let noSchoolList = try HolidayCalendar(isoPublicHolidays: [])
        let unknown = try evaluate("Mo-Fr 08:00-16:00; SH off", at: "2026-10-20T10:00", holidays: noSchoolList)
        #expect(unknown.state == .open)
        #expect(unknown.caveats.contains { $0.contains("school holidays") })

        let calendar = try HolidayCalendar(isoPublicHolidays: [], isoSchoolHolidays: ["2026-10-20"])
        #expect(try evaluate("Mo-Fr 08:00-16:00; SH off", at: "2026-10-20T10:00", holidays: calendar).state == .closed)
    }

    @Test("Unreadable text is kept and answers unknown, never a guess")
    func unreadable() throws {
        let hours = OpeningHours(osm: "Mo-Fr 09:30 - 15:00. Lunch Mo-Fr 11:00 - 13:30")
        #expect(!hours.isParsed)
        #expect(hours.text == "Mo-Fr 09:30 - 15:00. Lunch Mo-Fr 11:00 - 13:30")
        let result = hours.evaluate(at: try LocalClock(timeZone: helsinki).parse("2026-11-23T10:00"), timeZone: helsinki)
        #expect(result.state == .unknown)
        #expect(result.isOpen == nil)
        #expect(result.nextChange == nil)
        #expect(result.caveats.contains { $0.contains("could not be read") })
    }

    @Test("The weekly summary groups days with the same hours")
    func summary() throws {
        #expect(try evaluate("Mo-Fr 09:00-19:00; Sa 09:00-18:00; PH off", at: "2026-11-21T12:00").summary
            == "Mo-Fr 09:00-19:00; Sa 09:00-18:00; Su closed")
        #expect(try evaluate("Fr-Sa 22:00-04:00", at: "2026-11-21T12:00").summary == "Mo-Th closed; Fr,Sa 22:00-04:00; Su closed")
        #expect(try evaluate("24/7", at: "2026-11-21T12:00").summary == "24/7")
        #expect(try evaluate("Mo-Fr 08:00-10:30, 11:00-16:00", at: "2026-11-21T12:00").summary
            == "Mo-Fr 08:00-10:30,11:00-16:00; Sa,Su closed")
        // The summer week of a seasonal schedule differs from the winter one.
        let seasonal = "Mo-Fr 10:00-18:00; Sa 11:00-16:00; Jul 02-Jul 30 Sa off"
        #expect(try evaluate(seasonal, at: "2026-07-08T12:00").summary == "Mo-Fr 10:00-18:00; Sa,Su closed")
    }

    @Test("A ';' rule that silently replaces unrelated hours is flagged, and still evaluated as written")
    func replacedHoursAreFlagged() throws {
        let spec = "Mo-Su 11:00-24:00; Sa-Su 00:00-02:00"
        let result = try evaluate(spec, at: "2026-11-21T12:00")
        #expect(result.state == .closed)
        #expect(result.caveats.contains { $0.contains("replaces the earlier hours on Sa,Su") })
        // An ordinary narrowing override is not flagged.
        #expect(try evaluate("Mo-Sa 09:00-21:00; Sa 09:00-19:00", at: "2026-11-21T12:00").caveats.isEmpty)
    }
}
