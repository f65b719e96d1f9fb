import Foundation
import PlacesCore

/// Converts between instants and the wall clock of one IANA zone, DST included.
///
/// Local time is counted as whole minutes since 1970-01-01 00:00 *local*, so the rules work in
/// plain integers and only these two conversions know about offsets.
public struct LocalClock: Sendable {
    public let timeZone: TimeZone

    public init(timeZone: TimeZone) { self.timeZone = timeZone }

    /// The local day and minute of the day at `date`. In the hour repeated when clocks go back, both
    /// instants read the same wall time, as a person there would read it.
    public func local(_ date: Date) -> (date: LocalDate, minute: Int) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + timeZone.secondsFromGMT(for: date)
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return (LocalDate(dayNumber: day), (seconds - day * 86_400) / 60)
    }

    /// The instant the wall clock shows `minute` on `date` (`minute` may pass 1440).
    ///
    /// A wall time that happens twice (clocks going back) gives the first instant; one that never
    /// happens (clocks going forward) gives the moment of the jump, which is when a place that
    /// "closes at 03:30" on that night actually closes.
    public func instant(_ date: LocalDate, minute: Int) -> Date {
        let local = (date.dayNumber * 1440 + minute) * 60
        let offsets = [
            timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local - 86_400))),
            timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local + 86_400))),
        ]
        let valid = offsets.map { local - $0 }.filter { candidate in
            timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(candidate))) == local - candidate
        }
        if let first = valid.min() { return Date(timeIntervalSince1970: Double(first)) }
        // In the gap: find the transition between the two candidate instants.
        var low = min(local - offsets[0], local - offsets[1])
        var high = max(local - offsets[0], local - offsets[1])
        let offsetAtLow = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(low)))
        while high - low > 1 {
            let middle = (low + high) / 2
            if timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(middle))) == offsetAtLow {
                low = middle
            } else {
                high = middle
            }
        }
        return Date(timeIntervalSince1970: Double(high))
    }

    /// `2026-11-21T18:00:00+02:00`: ISO 8601 with the zone's offset at that instant, so a reader sees
    /// the local time and can still compare instants.
    public func iso8601(_ date: Date) -> String {
        let offset = timeZone.secondsFromGMT(for: date)
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + offset
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let second = seconds - day * 86_400
        let sign = offset < 0 ? "-" : "+"
        let pad = LocalDate.pad
        return "\(LocalDate(dayNumber: day))T\(pad(second / 3600, 2)):\(pad(second / 60 % 60, 2)):\(pad(second % 60, 2))"
            + "\(sign)\(pad(abs(offset) / 3600, 2)):\(pad(abs(offset) / 60 % 60, 2))"
    }

    /// Reads `--at` values: full ISO 8601 (`2026-11-21T17:30:00+02:00`, `…Z`) or a local time without an
    /// offset (`2026-11-21T17:30`, `2026-11-21 17:30:15`), which is read on this clock.
    public func parse(_ text: String) throws(InputError) -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let fail = InputError(
            "invalid time '\(text)': expected ISO 8601 such as 2026-11-21T17:30 or 2026-11-21T17:30:00+02:00")
        guard trimmed.count >= 10, let date = LocalDate(iso: trimmed.prefix(10)) else { throw fail }
        var rest = trimmed.dropFirst(10)
        if rest.isEmpty { return instant(date, minute: 0) }
        guard rest.first == "T" || rest.first == " " else { throw fail }
        rest = rest.dropFirst()
        // Split the clock from a trailing offset (`Z`, `+02:00`, `-0500`).
        var offsetSeconds: Int?
        if rest.hasSuffix("Z") || rest.hasSuffix("z") {
            offsetSeconds = 0
            rest = rest.dropLast()
        } else if let signIndex = rest.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let offsetText = rest[rest.index(after: signIndex)...].replacingOccurrences(of: ":", with: "")
            guard offsetText.count == 4 || offsetText.count == 2, let value = Int(offsetText) else { throw fail }
            let minutes = offsetText.count == 4 ? (value / 100) * 60 + value % 100 : value * 60
            offsetSeconds = (rest[signIndex] == "-" ? -1 : 1) * minutes * 60
            rest = rest[..<signIndex]
        }
        let clock = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(clock.count), clock[0].count == 2, clock[1].count == 2,
            let hour = Int(clock[0]), let minute = Int(clock[1]), hour < 24, minute < 60
        else { throw fail }
        var second = 0.0
        if clock.count == 3 {
            guard let value = Double(clock[2]), value >= 0, value < 61 else { throw fail }
            second = value
        }
        if let offsetSeconds {
            let local = Double((date.dayNumber * 1440 + hour * 60 + minute) * 60) + second
            return Date(timeIntervalSince1970: local - Double(offsetSeconds))
        }
        return instant(date, minute: hour * 60 + minute).addingTimeInterval(second)
    }
}
