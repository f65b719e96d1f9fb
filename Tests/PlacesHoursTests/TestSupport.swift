import Foundation
@testable import PlacesHours

let helsinki = TimeZone(identifier: "Europe/Helsinki")!
let newYork = TimeZone(identifier: "America/New_York")!

/// Evaluates `spec` at a wall-clock time (`2026-11-21T17:30`) in `zone`.
func evaluate(
    _ spec: String, at local: String, in zone: TimeZone = helsinki, holidays: HolidayCalendar? = nil
) throws -> HoursEvaluation {
    let clock = LocalClock(timeZone: zone)
    return OpeningHours(osm: spec).evaluate(at: try clock.parse(local), timeZone: zone, holidays: holidays)
}
