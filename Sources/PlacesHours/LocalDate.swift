import Foundation
import PlacesCore

/// A calendar day on the place's own wall clock, with no time zone attached.
///
/// Opening hours are written in local days ("Sa", "Dec 24"), so every rule is matched against one of
/// these; only the edges (the moment asked about, the moment of the next change) touch `Date` and
/// `TimeZone`. The arithmetic is proleptic Gregorian on integers, which keeps evaluation cheap.
public struct LocalDate: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var year: Int
    /// 1 = January … 12 = December.
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`; `nil` for anything else or an impossible day.
    public init?(iso text: some StringProtocol) {
        let parts = text.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, let year = Int(parts[0]), let month = Int(parts[1]),
            let day = Int(parts[2]), (1...12).contains(month), (1...LocalDate.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    public var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = (month + 9) % 12
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public init(dayNumber: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        self.init(year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day)
    }

    /// ISO weekday: 1 = Monday … 7 = Sunday (the numbering of ``WeekTime``).
    public var weekday: Int {
        let n = (dayNumber + 3) % 7  // 1970-01-01 was a Thursday.
        return (n < 0 ? n + 7 : n) + 1
    }

    public func adding(days: Int) -> LocalDate { LocalDate(dayNumber: dayNumber + days) }

    /// ISO 8601 week number (1…53), the numbering OSM's `week` selector uses.
    public var isoWeek: Int {
        let thursday = adding(days: 4 - weekday)
        let firstOfYear = LocalDate(year: thursday.year, month: 1, day: 1)
        return (thursday.dayNumber - firstOfYear.dayNumber) / 7 + 1
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public var daysInMonth: Int { LocalDate.daysIn(month: month, year: year) }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    public var description: String {
        "\(LocalDate.pad(year, 4))-\(LocalDate.pad(month, 2))-\(LocalDate.pad(day, 2))"
    }

    /// `value` in at least `width` digits, zeros in front (a minus sign before them). Dates and clock
    /// times of every opening-hours report go through here, so the usual case builds one small string.
    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value.magnitude)
        let zeros = width - digits.utf8.count
        if value >= 0, zeros <= 0 { return digits }
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, zeros)) + digits
    }
}

/// The days on which `PH` (public holiday) and `SH` (school holiday) rules apply.
///
/// `places` ships no holiday data: a wrong holiday list would silently close or open places. Without
/// a calendar, `PH`/`SH` rules never match and the answer carries a caveat instead.
public struct HolidayCalendar: Hashable, Sendable {
    /// `nil` means "unknown", which is different from "no public holidays".
    public var publicHolidays: Set<LocalDate>?
    public var schoolHolidays: Set<LocalDate>?

    public init(publicHolidays: Set<LocalDate>? = nil, schoolHolidays: Set<LocalDate>? = nil) {
        self.publicHolidays = publicHolidays
        self.schoolHolidays = schoolHolidays
    }

    /// Builds a calendar from `YYYY-MM-DD` strings, as a config file would list them.
    public init(isoPublicHolidays publicHolidays: [String], isoSchoolHolidays schoolHolidays: [String]? = nil) throws(InputError) {
        func dates(_ texts: [String]) throws(InputError) -> Set<LocalDate> {
            var result = Set<LocalDate>()
            for text in texts {
                guard let date = LocalDate(iso: text) else {
                    throw InputError("invalid holiday date '\(text)': expected YYYY-MM-DD")
                }
                result.insert(date)
            }
            return result
        }
        self.publicHolidays = try dates(publicHolidays)
        self.schoolHolidays = try schoolHolidays.map { texts throws(InputError) in try dates(texts) }
    }
}
