/// The parsed form of one OSM `opening_hours` rule: `[wide selectors] [day selector] [times] [state] ["comment"]`.
///
/// Every selector that is empty (or `nil`) matches every day, as the OSM specification says.
struct HoursRule: Hashable, Sendable {
    /// How a rule combines with the ones before it.
    enum Joiner: Hashable, Sendable {
        /// `;`: replaces what earlier rules said about the days it matches.
        case normal
        /// `,`: adds to what earlier rules said.
        case additional
        /// `||`: applies only on days no earlier rule matched.
        case fallback
    }

    var joiner: Joiner = .normal
    var years: [YearRange] = []
    var dates: [DateRange] = []
    var weeks: [NumberRange] = []
    /// Groups are AND-ed (`PH Mo-Fr`); items inside a group are OR-ed (`Mo-Fr,PH`).
    var dayGroups: [[DayItem]] = []
    var times: [TimeSpan] = []
    var state: HoursState?
    var comment: String?
    /// ``segments()`` computed once after parsing: they do not depend on the day.
    var pieces: [Segment] = []

    var hasSelectors: Bool { !years.isEmpty || !dates.isEmpty || !weeks.isEmpty || !dayGroups.isEmpty }
    var usesSolarTime: Bool { times.contains { $0.usesSolarTime } }
    var mentionsPublicHolidays: Bool { dayGroups.contains { $0.contains(.publicHoliday) } }
    var mentionsSchoolHolidays: Bool { dayGroups.contains { $0.contains(.schoolHoliday) } }
    /// Whether the rule can only be resolved against a calendar wider than a week.
    var isSeasonal: Bool { !years.isEmpty || !dates.isEmpty || !weeks.isEmpty || mentionsPublicHolidays || mentionsSchoolHolidays }

    /// The state the rule sets where it applies. A rule that is only a comment (`"on appointment"`)
    /// says nothing certain, so it is `unknown`; otherwise the default is open.
    var effectiveState: HoursState {
        if let state { return state }
        if comment != nil && times.isEmpty { return .unknown }
        return .open
    }
}

/// The state of a place at a moment.
public enum HoursState: String, Hashable, Sendable, Codable {
    case open, closed, unknown
}

struct YearRange: Hashable, Sendable {
    var start: Int
    var end: Int
    var step: Int = 1

    func contains(_ year: Int) -> Bool {
        year >= start && year <= end && (year - start) % step == 0
    }
}

struct NumberRange: Hashable, Sendable {
    var start: Int
    var end: Int
    var step: Int = 1

    func contains(_ value: Int) -> Bool {
        if start <= end { return value >= start && value <= end && (value - start) % step == 0 }
        // Wrapping week ranges (`week 52-02`).
        return value >= start || value <= end
    }
}

/// `[year] Mon [day]`; a missing day means the whole month.
struct DatePoint: Hashable, Sendable {
    var year: Int?
    var month: Int
    var day: Int?
}

struct DateRange: Hashable, Sendable {
    var start: DatePoint
    var end: DatePoint

    func contains(_ date: LocalDate) -> Bool {
        let startDay = start.day ?? 1
        let endDay = end.day ?? LocalDate.daysIn(month: end.month, year: end.year ?? date.year)
        if let startYear = start.year {
            // A dated range: compare full dates. An end without a year belongs to the start's year,
            // or the next one when it comes earlier in the calendar (`2017 Dec 1 - Jan 6`).
            var endYear = end.year ?? startYear
            if end.year == nil, (end.month, endDay) < (start.month, startDay) { endYear += 1 }
            let key = (date.year, date.month, date.day)
            return key >= (startYear, start.month, startDay) && key <= (endYear, end.month, endDay)
        }
        let key = date.month * 100 + date.day
        let from = start.month * 100 + startDay
        let to = end.month * 100 + endDay
        return from <= to ? (key >= from && key <= to) : (key >= from || key <= to)
    }
}

enum DayItem: Hashable, Sendable {
    /// ISO weekdays `from`…`to` (wrapping: `Sa-Mo`); `nth` limits to the n-th such weekday of the
    /// month (`Su[-1]` is the last Sunday).
    case weekdays(from: Int, to: Int, nth: [NumberRange])
    case publicHoliday
    case schoolHoliday
}

enum TimePoint: Hashable, Sendable {
    /// Minutes after local midnight; may exceed 1440 (`26:00`).
    case clock(Int)
    /// `sunrise`, `(sunset-01:00)`: needs the place's position and a solar model.
    case solar(String)
}

struct TimeSpan: Hashable, Sendable {
    var start: TimePoint
    var end: TimePoint?
    /// `17:00+`: open from `start`, closing time not known.
    var openEnd: Bool

    var usesSolarTime: Bool {
        if case .solar = start { return true }
        if case .solar = end { return true }
        return false
    }
}
