import Foundation
import PlacesCore
import PlacesHours

/// "Only places open at a moment": the CLI's `--open-now` / `--open-at` and the server's `OPEN NOW` /
/// `OPEN AT time` on search and nearby. Each place's hours are read on its own wall clock (its zone, else
/// its UTC offset, else its GeoNames city's zone), so one moment can find a place open in Helsinki and
/// closed in New York. A place is kept only on a definite "open": places without hours, or whose hours
/// do not say (unreadable text, comments only), are dropped.
public enum OpenHoursFilter: Sendable, Hashable {
    /// Open at the request's time.
    case now
    /// Open at this moment: ISO 8601; a time without an offset (`2026-11-21T20:00`) is each place's local time.
    case at(String)

    /// Checks the moment's text once, so a typo is an error even when nothing matches.
    public func validate() throws(InputError) {
        if case .at(let text) = self { _ = try LocalClock(timeZone: TimeZone(secondsFromGMT: 0)!).parse(text) }
    }

    /// How many results to ask the index for, so that enough remain after filtering.
    public static func fetchLimit(_ limit: Int, filter: OpenHoursFilter?) -> Int {
        filter == nil ? limit : min(InputRange.limits.upperBound, limit * 5)
    }

    /// The places open at the filter's moment, in their order, at most `limit` of them.
    public func keep(_ places: [Place], limit: Int, now: Date) throws(InputError) -> [Place] {
        try validate()
        var kept: [Place] = []
        for place in places where kept.count < limit {
            let moment: Date
            switch self {
            case .now: moment = now
            case .at(let text): moment = try HoursReport.moment(text, for: place, fallback: nil)
            }
            if HoursReport.evaluate(place: place, at: moment, timeZone: nil)?.isDefinitelyOpen == true { kept.append(place) }
        }
        return kept
    }
}
