import Foundation
import PlacesHours

/// The hours shapes of ``HoursReport`` written by ``JSONWriter``, byte for byte what their `Encodable`
/// conformances (in PlacesHours, kept as the reference) give through ``PlacesJSON/encoder(pretty:)``.
extension JSONWriter {
    /// `places hours --json`: `{"caveats": […], "hours": {…}, "next_change": …, "open_now": …}`.
    public mutating func write(_ report: HoursReport) {
        beginObject()
        key("caveats"); value(report.caveats)
        key("hours"); write(report.hours)
        key("next_change")
        if let change = report.nextChange { write(change) } else { null() }
        key("open_now"); value(report.openNow)
        endObject()
    }

    mutating func write(_ hours: HoursReport.Hours) {
        beginObject()
        if let error = hours.error { key("error"); value(error) }
        key("parsed"); value(hours.parsed)
        key("raw"); value(hours.raw)
        key("source"); value(hours.source)
        key("summary"); value(hours.summary)
        key("time_zone"); value(hours.timeZone)
        if !hours.warnings.isEmpty { key("warnings"); value(hours.warnings) }
        key("week")
        beginArray()
        for day in hours.week {
            beginObject()
            key("date"); value(day.date.description)
            key("day"); value(day.weekdayName)
            key("intervals")
            beginArray()
            for interval in day.intervals { write(interval) }
            endArray()
            endObject()
        }
        endArray()
        endObject()
    }

    mutating func write(_ interval: HoursInterval) {
        beginObject()
        if let comment = interval.comment { key("comment"); value(comment) }
        key("from"); value(interval.from)
        if interval.overnight { key("overnight"); value(true) }
        key("state"); value(interval.state.rawValue)
        key("to"); value(interval.to)
        endObject()
    }

    mutating func write(_ change: HoursChange) {
        beginObject()
        key("at"); value(change.localTime)
        key("state"); value(change.state.rawValue)
        endObject()
    }
}

extension PlacesJSON {
    /// `places hours --json`.
    public static func hours(_ report: HoursReport, pretty: Bool = false) -> Data {
        var writer = JSONWriter(pretty: pretty)
        writer.write(report)
        return writer.data
    }
}
