import Foundation
import PlacesCore

/// Everything `places` says about a place's hours at one moment, in the JSON shape scripts read:
///
/// ```json
/// {"hours": {"raw": "Mo-Fr 09:00-19:00; Sa 09:00-18:00; PH off", "parsed": true, "source": "osm",
///            "summary": "Mo-Fr 09:00-19:00; Sa 09:00-18:00; Su closed", "time_zone": "Europe/Helsinki",
///            "week": [{"day": "Mo", "date": "2026-11-16", "intervals": [{"from": "09:00", "to": "19:00", "state": "open"}]}, …]},
///  "open_now": true,
///  "next_change": {"at": "2026-11-21T18:00:00+02:00", "state": "closed"},
///  "caveats": ["depends on public holidays (no holiday calendar configured)"]}
/// ```
public struct HoursReport: Sendable, Encodable {
    public var hours: Hours
    /// `nil` when the hours do not say (unreadable text, a comment-only rule, unknown time zone).
    public var openNow: Bool?
    public var state: HoursState
    public var nextChange: HoursChange?
    public var caveats: [String]

    /// The structured schedule and where it came from.
    public struct Hours: Sendable, Encodable {
        public var raw: String?
        public var parsed: Bool
        /// `osm` for `opening_hours` text, `periods` for a provider's structured hours.
        public var source: String
        public var summary: String
        public var timeZone: String?
        public var week: [DayHours]
        public var error: String?
        public var warnings: [String]

        enum CodingKeys: String, CodingKey {
            case raw, parsed, source, summary, week, error, warnings
            case timeZone = "time_zone"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(raw, forKey: .raw)
            try container.encode(parsed, forKey: .parsed)
            try container.encode(source, forKey: .source)
            try container.encode(summary, forKey: .summary)
            try container.encode(timeZone, forKey: .timeZone)
            try container.encode(week, forKey: .week)
            try container.encodeIfPresent(error, forKey: .error)
            if !warnings.isEmpty { try container.encode(warnings, forKey: .warnings) }
        }
    }

    /// The hours of `place` at `date`, or `nil` when the place has none.
    ///
    /// The wall clock is the place's own: `place.timeZone`, else `place.utcOffsetMinutes` (a fixed
    /// offset, so DST is not followed and a caveat says so), else `timeZone` (the caller passes the
    /// nearest GeoNames city's zone). Structured periods win over text, since provider text is
    /// usually a display string, not OSM syntax.
    public static func evaluate(
        place: Place, at date: Date, timeZone: TimeZone?, holidays: HolidayCalendar? = nil
    ) -> HoursReport? {
        let hours: OpeningHours
        if let periods = place.openingPeriods, !periods.isEmpty {
            hours = OpeningHours(periods: periods, text: place.openingHoursText)
        } else if let text = place.openingHoursText, !text.trimmedOfSpaces.isEmpty {
            hours = OpeningHours.remembered(osm: text)
        } else {
            return nil
        }
        let zone = Self.timeZone(of: place, fallback: timeZone)
        var report = evaluate(hours, at: date, timeZone: zone, holidays: holidays)
        if place.timeZone.flatMap(TimeZone.init(identifier:)) == nil, zone != nil, place.utcOffsetMinutes != nil {
            report.caveats.insert("evaluated at a fixed UTC offset; daylight-saving changes are not followed", at: 0)
        }
        if let status = place.status, status != .operational {
            report.openNow = false
            report.state = .closed
            report.nextChange = nil
            report.caveats.append(
                status == .closedPermanently ? "the place is reported permanently closed" : "the place is reported temporarily closed")
        }
        return report
    }

    /// The wall clock a place's hours are read on: its IANA zone, else its fixed UTC offset, else `fallback`.
    public static func timeZone(of place: Place, fallback: TimeZone?) -> TimeZone? {
        if let identifier = place.timeZone, let zone = TimeZone(identifier: identifier) { return zone }
        if let minutes = place.utcOffsetMinutes, let fixed = TimeZone(secondsFromGMT: minutes * 60) { return fixed }
        return fallback
    }

    /// Reads a `--at` / `--open-at` value for one place: a time without an offset is the place's own
    /// wall-clock time ("Saturday 20:00 there"); with an offset it is an exact instant.
    public static func moment(_ text: String, for place: Place, fallback: TimeZone?) throws(InputError) -> Date {
        let zone = timeZone(of: place, fallback: fallback) ?? TimeZone(secondsFromGMT: 0)!
        return try LocalClock(timeZone: zone).parse(text)
    }

    /// The report for a schedule on its own (`places hours 'SPEC'`). Without a zone there is no wall
    /// clock to read, so nothing is said about now.
    public static func evaluate(
        _ hours: OpeningHours, at date: Date, timeZone: TimeZone?, holidays: HolidayCalendar? = nil
    ) -> HoursReport {
        func structured(_ week: [DayHours], zone: TimeZone?) -> Hours {
            Hours(
                raw: hours.text, parsed: hours.isParsed, source: hours.source, summary: DayHours.summary(week),
                timeZone: zone?.identifier, week: week, error: hours.syntaxError?.description, warnings: hours.warnings)
        }
        guard let timeZone else {
            let utcDay = LocalClock(timeZone: TimeZone(secondsFromGMT: 0)!).local(date).date
            return HoursReport(
                hours: structured(hours.week(containing: utcDay, holidays: holidays), zone: nil),
                openNow: nil, state: .unknown, nextChange: nil,
                caveats: hours.standingCaveats(holidays: holidays)
                    + ["the place's time zone is unknown, so whether it is open now is unknown"])
        }
        let evaluation = hours.evaluate(at: date, timeZone: timeZone, holidays: holidays)
        return HoursReport(
            hours: structured(evaluation.week, zone: timeZone),
            openNow: evaluation.isOpen, state: evaluation.state, nextChange: evaluation.nextChange,
            caveats: evaluation.caveats)
    }

    /// Whether the place should pass an `--open-now` / `--open-at` filter: only a definite "open" does.
    public var isDefinitelyOpen: Bool { openNow == true }

    enum CodingKeys: String, CodingKey {
        case hours
        case openNow = "open_now"
        case nextChange = "next_change"
        case caveats
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(hours, forKey: .hours)
        try container.encode(openNow, forKey: .openNow)
        try container.encode(nextChange, forKey: .nextChange)
        try container.encode(caveats, forKey: .caveats)
    }
}

extension HoursChange: Encodable {
    enum CodingKeys: String, CodingKey { case at, state }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(localTime, forKey: .at)
        try container.encode(state, forKey: .state)
    }
}
