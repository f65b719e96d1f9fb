import Foundation
import PlacesCore

/// When a visit happened, as a person types it into `spots log --time`: `now`, `-30m`, `-2h`, `-1d`,
/// `yesterday 19:30`, `today 8:05`, `19:30`, `2026-05-01 12:30`, or ISO 8601. Text without an offset is read
/// on the wall clock of the place's own zone, so "19:30" in a Lisbon diary means 19:30 in Lisbon wherever the
/// laptop is. Pure: the clock and the zone are passed in, so tests pin both.
public enum VisitTime {
    /// The forms ``parse(_:now:zone:)`` takes, for error messages and help.
    public static let forms = "now, -30m, -2h, -1d, yesterday 19:30, today 8:05, 19:30, 2026-05-01 12:30 or ISO 8601"

    /// The instant `text` names.
    /// - Parameters:
    ///   - now: the current instant (relative forms count back from it, `today`/`yesterday` take its date in `zone`).
    ///   - zone: the wall clock times without an offset are read on.
    /// - Throws: ``PlacesCore/InputError`` with the accepted forms when `text` is none of them.
    public static func parse(_ text: String, now: Date, zone: TimeZone) throws(InputError) -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let invalid = InputError("invalid time '\(text.prefix(40))': expected \(forms)")
        if trimmed == "now" { return now }
        if let match = trimmed.wholeMatch(of: /-\s*(\d{1,6})\s*(s|m|min|h|d)/) {
            guard let amount = Double(match.1) else { throw invalid }
            let unit: Double = switch match.2 {
            case "s": 1
            case "m", "min": 60
            case "h": 3600
            default: 86_400
            }
            return now.addingTimeInterval(-amount * unit)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        if let match = trimmed.wholeMatch(of: /(?:(today|yesterday)\s+)?(\d{1,2}):(\d{2})/) {
            let daysBack = match.1 == "yesterday" ? 1 : 0
            guard let day = calendar.date(byAdding: .day, value: -daysBack, to: now) else { throw invalid }
            let date = calendar.dateComponents([.year, .month, .day], from: day)
            return try wallClock(year: date.year, month: date.month, day: date.day, hour: Int(match.2), minute: Int(match.3),
                                 second: 0, calendar: calendar, invalid: invalid)
        }
        if let match = trimmed.wholeMatch(of: /(\d{4})-(\d{2})-(\d{2})[ t](\d{1,2}):(\d{2})(?::(\d{2}))?/) {
            return try wallClock(year: Int(match.1), month: Int(match.2), day: Int(match.3), hour: Int(match.4),
                                 minute: Int(match.5), second: match.6.flatMap { Int($0) } ?? 0, calendar: calendar,
                                 invalid: invalid)
        }
        guard let date = SpotTime.parseDate(text.trimmingCharacters(in: .whitespaces)) else { throw invalid }
        return date
    }

    /// The instant a wall-clock time names in `calendar`'s zone; a time skipped by a DST change moves forward.
    private static func wallClock(year: Int?, month: Int?, day: Int?, hour: Int?, minute: Int?, second: Int,
                                  calendar: Calendar, invalid: InputError) throws(InputError) -> Date {
        guard let year, let month, let day, let hour, let minute, (1...12).contains(month), (0...23).contains(hour),
              (0...59).contains(minute), (0...59).contains(second),
              let range = calendar.range(of: .day, in: .month,
                                         for: calendar.date(from: DateComponents(year: year, month: month, day: 1)) ?? .distantPast),
              range.contains(day),
              let date = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute,
                                                            second: second))
        else { throw invalid }
        return date
    }
}
