import Foundation
import PlacesCore
import Synchronization

/// A place's weekly schedule, from OSM `opening_hours` text or from a provider's periods, evaluated
/// the same way whatever its source.
///
/// ```swift
/// let hours = OpeningHours(osm: "Mo-Fr 09:00-19:00; Sa 09:00-18:00; PH off")
/// let now = hours.evaluate(at: Date(), timeZone: TimeZone(identifier: "Europe/Helsinki")!)
/// now.state        // .open
/// now.nextChange   // 18:00 local, .closed
/// ```
///
/// Text that cannot be read is kept (``text``, ``syntaxError``) and always evaluates to `unknown`:
/// a wrong "open" sends someone to a closed door.
public struct OpeningHours: Hashable, Sendable {
    enum Schedule: Hashable, Sendable {
        case rules([HoursRule])
        /// Segments per ISO weekday, index 0 = Monday.
        case weekly([[Segment]])
        case unreadable
    }

    let schedule: Schedule
    let features: Features
    /// The source text (OSM value, or a provider's own description), kept verbatim.
    public let text: String?
    public let syntaxError: HoursSyntaxError?
    /// Spelling the parser had to correct (`Mon` for `Mo`, `9-17`): the meaning is certain, the
    /// text is not canonical OSM. Useful to people who edit OSM data.
    public let warnings: [String]

    /// Reads an OSM `opening_hours` value.
    public init(osm text: String) {
        self.text = text
        do {
            let (rules, warnings) = try OpeningHoursParser.parse(text)
            schedule = .rules(rules)
            features = Features(rules)
            syntaxError = nil
            self.warnings = warnings
        } catch {
            schedule = .unreadable
            features = []
            syntaxError = error
            warnings = []
        }
    }

    /// Builds the schedule from provider-neutral periods (see ``ProviderHours`` for each provider's shape).
    /// A period without a close time means open around the clock.
    public init(periods: [WeeklyOpenPeriod], text: String? = nil) {
        var week = [[Segment]](repeating: [], count: 7)
        for period in periods where (1...7).contains(period.open.weekday) {
            guard let close = period.close, (1...7).contains(close.weekday) else {
                week = [[Segment]](repeating: [Segment(start: 0, end: 1440, state: .open)], count: 7)
                break
            }
            let weekMinutes = 7 * 1440
            let open = ((period.open.weekday - 1) * 1440 + period.open.minute) % weekMinutes
            let closeAt = ((close.weekday - 1) * 1440 + close.minute) % weekMinutes
            var length = (closeAt - open + weekMinutes) % weekMinutes
            if length == 0 { length = weekMinutes }
            var day = open / 1440
            var start = open % 1440
            // Keep an overnight period on the day it opens (`Fr 22:00-02:00`); split longer ones by day.
            while length > 0 {
                let take = start + length <= 2880 ? length : 1440 - start
                SegmentList.insert(&week[day % 7], Segment(start: start, end: start + take, state: .open))
                length -= take
                day += 1
                start = 0
            }
        }
        schedule = .weekly(week)
        features = []
        self.text = text
        syntaxError = nil
        warnings = []
    }

    public var isParsed: Bool { schedule != .unreadable }

    /// `osm` for `opening_hours` text, `periods` for a provider's structured hours.
    public var source: String {
        if case .weekly = schedule { return "periods" }
        return "osm"
    }

    var rules: [HoursRule] {
        if case .rules(let rules) = schedule { return rules }
        return []
    }

    public var mentionsPublicHolidays: Bool { features.contains(.publicHolidays) }
    public var mentionsSchoolHolidays: Bool { features.contains(.schoolHolidays) }
    public var usesSolarTime: Bool { features.contains(.solarTime) }
    private var isSeasonal: Bool { features.contains(.seasonal) }

    /// What the rules depend on, worked out once so each evaluation does not walk the rules again.
    struct Features: OptionSet, Hashable, Sendable {
        let rawValue: UInt8
        static let publicHolidays = Features(rawValue: 1)
        static let schoolHolidays = Features(rawValue: 2)
        static let solarTime = Features(rawValue: 4)
        static let seasonal = Features(rawValue: 8)

        init(rawValue: UInt8) { self.rawValue = rawValue }

        init(_ rules: [HoursRule]) {
            self.init(rawValue: 0)
            for index in rules.indices {
                if rules[index].mentionsPublicHolidays { insert(.publicHolidays) }
                if rules[index].mentionsSchoolHolidays { insert(.schoolHolidays) }
                if rules[index].usesSolarTime { insert(.solarTime) }
                if rules[index].isSeasonal { insert(.seasonal) }
            }
        }
    }

    /// What the schedule says about `date` itself; segments may run past midnight.
    func ownSegments(on date: LocalDate, holidays: HolidayCalendar?) -> [Segment] {
        switch schedule {
        case .rules(let rules): RuleEvaluator.segments(of: rules, on: date, holidays: holidays)
        case .weekly(let week): week[date.weekday - 1]
        case .unreadable: [Segment(start: 0, end: 1440, state: .unknown)]
        }
    }

    /// The day as lived, 0…1440: its own segments on top of what spilled over from the day before.
    private func effectiveSegments(
        on date: LocalDate, holidays: HolidayCalendar?, cache: inout [(day: Int, segments: [Segment])]
    ) -> [Segment] {
        // Consecutive days ask for their neighbour, so the last entry is almost always the hit.
        func own(_ day: LocalDate) -> [Segment] {
            let number = day.dayNumber
            if let cached = cache.last(where: { $0.day == number }) { return cached.segments }
            let segments = ownSegments(on: day, holidays: holidays)
            cache.append((number, segments))
            return segments
        }
        var result: [Segment] = []
        for segment in own(date.adding(days: -1)) where segment.end > 1440 {
            result.append(Segment(
                start: max(0, segment.start - 1440), end: min(1440, segment.end - 1440), state: segment.state,
                comment: segment.comment))
        }
        for segment in own(date) where segment.start < 1440 {
            var clipped = segment
            clipped.end = min(1440, segment.end)
            SegmentList.insert(&result, clipped)
        }
        return result
    }

    /// Evaluates the schedule at `date` on the place's wall clock.
    public func evaluate(at date: Date, timeZone: TimeZone, holidays: HolidayCalendar? = nil) -> HoursEvaluation {
        let clock = LocalClock(timeZone: timeZone)
        let now = clock.local(date)
        var caveats = standingCaveats(holidays: holidays)
        guard isParsed else {
            return HoursEvaluation(
                state: .unknown, comment: nil, nextChange: nil, caveats: caveats, hours: self, date: now.date, holidays: holidays)
        }
        var cache: [(day: Int, segments: [Segment])] = []
        let today = effectiveSegments(on: now.date, holidays: holidays, cache: &cache)
        let current = today.first { $0.start <= now.minute && now.minute < $0.end }
        let state = current?.state ?? .closed
        if state == .unknown, let comment = current?.comment { caveats.append("the hours say \"\(comment)\"") }

        // Walk forward until the state differs. Seasonal rules can change months ahead; a plain
        // weekly schedule that has not changed in eight days never will.
        var nextChange: HoursChange?
        let horizon = isSeasonal ? 370 : 8
        search: for offset in 0...horizon {
            let day = now.date.adding(days: offset)
            let segments = offset == 0 ? today : effectiveSegments(on: day, holidays: holidays, cache: &cache)
            var runs: [(start: Int, end: Int, state: HoursState)] = []
            var cursor = 0
            for segment in segments {
                if segment.start > cursor { runs.append((cursor, segment.start, .closed)) }
                runs.append((segment.start, segment.end, segment.state))
                cursor = segment.end
            }
            if cursor < 1440 { runs.append((cursor, 1440, .closed)) }
            for run in runs where run.state != state && !(offset == 0 && run.end <= now.minute) {
                var instant = clock.instant(day, minute: run.start)
                if instant <= date {
                    // In the hour repeated when clocks go back, the wall time came round a second time.
                    instant = date.addingTimeInterval(Double((offset * 1440 + run.start - now.minute) * 60))
                }
                nextChange = HoursChange(at: instant, state: run.state, timeZone: timeZone)
                break search
            }
        }
        return HoursEvaluation(
            state: state, comment: current?.comment, nextChange: nextChange, caveats: caveats, hours: self, date: now.date,
            holidays: holidays)
    }

    /// Caveats that hold whatever the moment: what the answer depends on but cannot know.
    func standingCaveats(holidays: HolidayCalendar?) -> [String] {
        var caveats: [String] = []
        if let syntaxError {
            caveats.append("opening hours could not be read (\(syntaxError)); open/closed is unknown")
        }
        if mentionsPublicHolidays && holidays?.publicHolidays == nil {
            caveats.append("depends on public holidays (no holiday calendar configured)")
        }
        if mentionsSchoolHolidays && holidays?.schoolHolidays == nil {
            caveats.append("depends on school holidays (no school-holiday calendar configured)")
        }
        caveats += warnings.filter { $0.hasPrefix("a later rule replaces") }
        if usesSolarTime {
            caveats.append("sunrise/sunset times are not computed; those hours are unknown")
        }
        return caveats
    }

    /// The schedule of the ISO week (Monday to Sunday) that contains `date`.
    public func week(containing date: LocalDate, holidays: HolidayCalendar? = nil) -> [DayHours] {
        let monday = date.adding(days: 1 - date.weekday)
        return (0..<7).map { offset in
            let day = monday.adding(days: offset)
            let segments = ownSegments(on: day, holidays: holidays)
            return DayHours(date: day, intervals: segments.map(HoursInterval.init))
        }
    }
}

/// The answer for one moment.
public struct HoursEvaluation: Hashable, Sendable {
    public var state: HoursState
    /// The comment of the rule in force (`"Lunch"`, `"on appointment"`).
    public var comment: String?
    /// `nil` when nothing changes within the horizon (24/7, never open) or the state is unknown throughout.
    public var nextChange: HoursChange?
    public var caveats: [String]
    let hours: OpeningHours
    /// The local day of the moment.
    public var date: LocalDate
    let holidays: HolidayCalendar?

    /// The week containing the moment, as the rules give it. Computed on demand: filters that only
    /// ask "open now?" do not pay for it.
    public var week: [DayHours] { hours.week(containing: date, holidays: holidays) }

    /// `true`/`false`, or `nil` when the hours do not say.
    public var isOpen: Bool? {
        switch state {
        case .open: true
        case .closed: false
        case .unknown: nil
        }
    }

    /// "Mo-Fr 09:00-19:00; Sa 09:00-18:00; Su closed".
    public var summary: String { DayHours.summary(week) }
}

public struct HoursChange: Hashable, Sendable {
    public var at: Date
    /// The state from `at` on.
    public var state: HoursState
    /// The place's zone, to write `at` on its wall clock.
    public var timeZone: TimeZone

    /// `at` in ISO 8601 with the place's offset (`2026-11-21T18:00:00+02:00`).
    public var localTime: String { LocalClock(timeZone: timeZone).iso8601(at) }
}

/// One day of a week's schedule.
public struct DayHours: Hashable, Sendable, Encodable {
    public var date: LocalDate
    public var intervals: [HoursInterval]

    public var weekdayName: String { Vocabulary.weekdayNames[date.weekday - 1] }

    enum CodingKeys: String, CodingKey { case day, date, intervals }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(weekdayName, forKey: .day)
        try container.encode(date.description, forKey: .date)
        try container.encode(intervals, forKey: .intervals)
    }

    /// Groups consecutive days with the same hours: `Mo-Fr 09:00-19:00; Sa 09:00-18:00; Su closed`.
    public static func summary(_ week: [DayHours]) -> String {
        if week.count == 7, week.allSatisfy({ $0.intervals == [HoursInterval.allDay] }) { return "24/7" }
        var unknownDay = HoursInterval.allDay
        unknownDay.state = .unknown
        if week.count == 7, week.allSatisfy({ $0.intervals == [unknownDay] }) { return "unknown" }
        var parts: [String] = []
        var index = 0
        while index < week.count {
            var last = index
            while last + 1 < week.count && week[last + 1].intervals == week[index].intervals { last += 1 }
            let days = last == index
                ? week[index].weekdayName
                : "\(week[index].weekdayName)\(last == index + 1 ? "," : "-")\(week[last].weekdayName)"
            let hours = week[index].intervals.isEmpty
                ? "closed" : week[index].intervals.map(\.description).joined(separator: ",")
            parts.append("\(days) \(hours)")
            index = last + 1
        }
        return parts.joined(separator: "; ")
    }
}

/// An open (or unknown) stretch of one day. `to` is on the next day when `overnight` is true.
public struct HoursInterval: Hashable, Sendable, Encodable, CustomStringConvertible {
    /// Minutes after the day's midnight; `endMinute` may pass 1440.
    public var startMinute: Int
    public var endMinute: Int
    public var state: HoursState
    public var comment: String?

    static let allDay = HoursInterval(startMinute: 0, endMinute: 1440, state: .open, comment: nil)

    init(startMinute: Int, endMinute: Int, state: HoursState, comment: String?) {
        self.startMinute = startMinute
        self.endMinute = endMinute
        self.state = state
        self.comment = comment
    }

    init(_ segment: Segment) {
        self.init(startMinute: segment.start, endMinute: segment.end, state: segment.state, comment: segment.comment)
    }

    public var from: String { Self.clock(startMinute) }
    public var to: String { endMinute == 1440 ? "24:00" : Self.clock(endMinute) }
    public var overnight: Bool { endMinute > 1440 }

    public var description: String {
        var text = "\(from)-\(to)"
        if state == .unknown { text += " unknown" }
        if let comment { text += " \"\(comment)\"" }
        return text
    }

    /// `HH:MM` for minutes after midnight (wrapping past 24:00).
    public static func clock(_ minute: Int) -> String {
        let wrapped = minute % 1440
        return "\(LocalDate.pad(wrapped / 60, 2)):\(LocalDate.pad(wrapped % 60, 2))"
    }

    enum CodingKeys: String, CodingKey { case from, to, overnight, state, comment }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        if overnight { try container.encode(true, forKey: .overnight) }
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(comment, forKey: .comment)
    }
}

extension OpeningHours {
    /// ``init(osm:)``, remembered by text: the same few hundred `opening_hours` values recur across a map
    /// ("Mo-Fr 09:00-17:00"), and a server reads one place's text again on every uncached request, so a parse
    /// (a third of reading a place's hours at a moment) is done once per text. Only the parse is kept:
    /// evaluating depends on the moment. Bounded: texts longer than ``rememberedTextLimit`` bytes are parsed
    /// each time, and at ``rememberedCapacity`` texts the memory starts again empty.
    public static func remembered(osm text: String) -> OpeningHours {
        guard text.utf8.count <= rememberedTextLimit else { return OpeningHours(osm: text) }
        if let known = parsedTexts.withLock({ $0[text] }) { return known }
        let hours = OpeningHours(osm: text)
        parsedTexts.withLock { parsed in
            if parsed.count >= rememberedCapacity { parsed.removeAll(keepingCapacity: true) }
            parsed[text] = hours
        }
        return hours
    }

    static let rememberedTextLimit = 512
    static let rememberedCapacity = 4_096
    private static let parsedTexts = Mutex<[String: OpeningHours]>([:])
}
