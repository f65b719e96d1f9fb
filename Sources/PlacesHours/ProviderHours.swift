import PlacesCore

/// Each provider's raw hours shape, turned into ``WeeklyOpenPeriod`` (ISO weekday 1 = Monday … 7 = Sunday)
/// in one place, so the day numbering of every provider is tested side by side.
///
/// The input structs decode straight from the provider's JSON. A malformed entry throws instead of
/// being dropped: a silently missing day would read as "closed that day".
public enum ProviderHours {
    /// Google Places (New) `regularOpeningHours.periods[].open|close`: day 0 = Sunday … 6 = Saturday.
    public struct GooglePoint: Hashable, Sendable, Codable {
        public var day: Int
        public var hour: Int
        public var minute: Int

        public init(day: Int, hour: Int, minute: Int) {
            self.day = day
            self.hour = hour
            self.minute = minute
        }
    }

    public struct GooglePeriod: Hashable, Sendable, Codable {
        public var open: GooglePoint
        /// Absent for a place open around the clock.
        public var close: GooglePoint?

        public init(open: GooglePoint, close: GooglePoint?) {
            self.open = open
            self.close = close
        }
    }

    /// Yelp Fusion `hours[].open[]`: day 0 = Monday … 6 = Sunday, `start`/`end` as `"HHMM"`.
    public struct YelpOpen: Hashable, Sendable, Codable {
        public var day: Int
        public var start: String
        public var end: String
        /// Set when `end` is on the following day.
        public var isOvernight: Bool

        public init(day: Int, start: String, end: String, isOvernight: Bool) {
            self.day = day
            self.start = start
            self.end = end
            self.isOvernight = isOvernight
        }

        enum CodingKeys: String, CodingKey {
            case day, start, end
            case isOvernight = "is_overnight"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            day = try container.decode(Int.self, forKey: .day)
            start = try container.decode(String.self, forKey: .start)
            end = try container.decode(String.self, forKey: .end)
            isOvernight = try container.decodeIfPresent(Bool.self, forKey: .isOvernight) ?? false
        }
    }

    /// Foursquare `hours.regular[]`: day 1 = Monday … 7 = Sunday, `open`/`close` as `"HHMM"`; a close
    /// of `"+0200"` is on the following day.
    public struct FoursquareDay: Hashable, Sendable, Codable {
        public var day: Int
        public var open: String
        public var close: String

        public init(day: Int, open: String, close: String) {
            self.day = day
            self.open = open
            self.close = close
        }
    }

    public static func google(periods: [GooglePeriod]) throws(InputError) -> [WeeklyOpenPeriod] {
        func weekTime(_ point: GooglePoint) throws(InputError) -> WeekTime {
            guard (0...6).contains(point.day), (0...24).contains(point.hour), (0...59).contains(point.minute),
                point.hour * 60 + point.minute <= 1440
            else {
                throw InputError("invalid Google opening time day \(point.day) \(point.hour):\(point.minute)")
            }
            return WeekTime(weekday: point.day == 0 ? 7 : point.day, minute: point.hour * 60 + point.minute)
        }
        var result: [WeeklyOpenPeriod] = []
        for period in periods {
            result.append(WeeklyOpenPeriod(open: try weekTime(period.open), close: try period.close.map(weekTime)))
        }
        return result
    }

    public static func yelp(open: [YelpOpen]) throws(InputError) -> [WeeklyOpenPeriod] {
        var result: [WeeklyOpenPeriod] = []
        for entry in open {
            guard (0...6).contains(entry.day) else { throw InputError("invalid Yelp day \(entry.day): expected 0…6") }
            let start = try minutes(entry.start, provider: "Yelp")
            let end = try minutes(entry.end, provider: "Yelp")
            let weekday = entry.day + 1
            let nextDay = entry.isOvernight || end <= start
            result.append(WeeklyOpenPeriod(
                open: WeekTime(weekday: weekday, minute: start),
                close: WeekTime(weekday: nextDay ? weekday % 7 + 1 : weekday, minute: end)))
        }
        return result
    }

    public static func foursquare(regular: [FoursquareDay]) throws(InputError) -> [WeeklyOpenPeriod] {
        var result: [WeeklyOpenPeriod] = []
        for entry in regular {
            guard (1...7).contains(entry.day) else {
                throw InputError("invalid Foursquare day \(entry.day): expected 1…7")
            }
            let start = try minutes(entry.open, provider: "Foursquare")
            let nextDayMarked = entry.close.hasPrefix("+")
            let end = try minutes(nextDayMarked ? String(entry.close.dropFirst()) : entry.close, provider: "Foursquare")
            let nextDay = nextDayMarked || end <= start
            result.append(WeeklyOpenPeriod(
                open: WeekTime(weekday: entry.day, minute: start),
                close: WeekTime(weekday: nextDay ? entry.day % 7 + 1 : entry.day, minute: end)))
        }
        return result
    }

    /// `"1730"` → 1050.
    private static func minutes(_ text: String, provider: String) throws(InputError) -> Int {
        guard text.count == 4, let value = Int(text), value >= 0, value % 100 < 60, value <= 2400 else {
            throw InputError("invalid \(provider) time '\(text)': expected HHMM")
        }
        return (value / 100) * 60 + value % 100
    }
}
