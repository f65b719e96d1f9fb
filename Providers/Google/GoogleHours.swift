import PlacesCore

/// Google numbers days 0 = Sunday … 6 = Saturday; the place model uses ISO 1 = Monday … 7 = Sunday.
enum GoogleHours {
    static func isoWeekday(googleDay: Int) -> Int? {
        guard (0...6).contains(googleDay) else { return nil }
        return googleDay == 0 ? 7 : googleDay
    }

    /// A period without `close` means open around the clock (Google's 24/7), kept as `close == nil`.
    static func periods(_ periods: [GoogleWire.Period]) -> [WeeklyOpenPeriod] {
        periods.compactMap { period in
            guard let open = weekTime(period.open) else { return nil }
            guard let closePoint = period.close else { return WeeklyOpenPeriod(open: open, close: nil) }
            guard let close = weekTime(closePoint) else { return nil }
            return WeeklyOpenPeriod(open: open, close: close)
        }
    }

    private static func weekTime(_ point: GoogleWire.Point) -> WeekTime? {
        guard let day = point.day, let weekday = isoWeekday(googleDay: day) else { return nil }
        let minute = (point.hour ?? 0) * 60 + (point.minute ?? 0)
        guard (0...1440).contains(minute) else { return nil }
        return WeekTime(weekday: weekday, minute: minute)
    }
}
