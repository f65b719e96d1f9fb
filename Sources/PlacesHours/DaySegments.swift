/// One stretch of a local day in which a place is open or in an unknown state; closed is the
/// absence of a segment. `end` may pass 1440 when hours run past midnight (`22:00-02:00` is 1320…1560).
struct Segment: Hashable, Sendable {
    var start: Int
    var end: Int
    var state: HoursState
    var comment: String?
}

/// Segment lists kept sorted and non-overlapping, so each later rule can carve into earlier ones.
enum SegmentList {
    static func subtract(_ segments: inout [Segment], from start: Int, to end: Int) {
        var result: [Segment] = []
        result.reserveCapacity(segments.count + 1)
        for segment in segments {
            if segment.end <= start || segment.start >= end {
                result.append(segment)
                continue
            }
            if segment.start < start {
                var head = segment
                head.end = start
                result.append(head)
            }
            if segment.end > end {
                var tail = segment
                tail.start = end
                result.append(tail)
            }
        }
        segments = result
    }

    static func insert(_ segments: inout [Segment], _ segment: Segment) {
        subtract(&segments, from: segment.start, to: segment.end)
        let position = segments.firstIndex { $0.start >= segment.end } ?? segments.count
        segments.insert(segment, at: position)
    }
}

extension HoursRule {
    func matches(_ date: LocalDate, holidays: HolidayCalendar?) -> Bool {
        if !years.isEmpty && !years.contains(where: { $0.contains(date.year) }) { return false }
        if !dates.isEmpty && !dates.contains(where: { $0.contains(date) }) { return false }
        if !weeks.isEmpty {
            let week = date.isoWeek
            if !weeks.contains(where: { $0.contains(week) }) { return false }
        }
        for group in dayGroups where !group.contains(where: { $0.matches(date, holidays: holidays) }) {
            return false
        }
        return true
    }

    /// The stretches of the matched day this rule speaks about, with the state it gives them.
    func segments() -> [Segment] {
        let state = effectiveState
        if times.isEmpty { return [Segment(start: 0, end: 1440, state: state, comment: comment)] }
        if usesSolarTime {
            // Without a solar model the edges are unknown; say so for the whole day rather than guess.
            return [Segment(start: 0, end: 1440, state: .unknown, comment: comment ?? "depends on sunrise/sunset")]
        }
        var result: [Segment] = []
        for span in times {
            guard case .clock(let start) = span.start else { continue }
            var end: Int
            if case .clock(let clockEnd) = span.end {
                end = clockEnd
                if end <= start { end += 1440 }
                result.append(Segment(start: start, end: end, state: state, comment: comment))
            } else {
                end = start
            }
            if span.openEnd {
                // `17:00+`: the closing time is not known; until the end of the day nothing is certain.
                let unknownEnd = max(1440, end)
                if unknownEnd > end {
                    result.append(Segment(start: end, end: unknownEnd, state: .unknown, comment: comment ?? "open end"))
                }
            }
        }
        return result
    }
}

extension DayItem {
    func matches(_ date: LocalDate, holidays: HolidayCalendar?) -> Bool {
        switch self {
        case .publicHoliday:
            return holidays?.publicHolidays?.contains(date) ?? false
        case .schoolHoliday:
            return holidays?.schoolHolidays?.contains(date) ?? false
        case .weekdays(let from, let to, let nth):
            let weekday = date.weekday
            let inRange = from <= to ? (weekday >= from && weekday <= to) : (weekday >= from || weekday <= to)
            guard inRange else { return false }
            if nth.isEmpty { return true }
            let fromStart = (date.day - 1) / 7 + 1
            let fromEnd = -((date.daysInMonth - date.day) / 7 + 1)
            return nth.contains { $0.contains(fromStart) || $0.contains(fromEnd) }
        }
    }
}

/// Applies a rule sequence to one day, following the OSM semantics of `;`, `,` and `||`.
enum RuleEvaluator {
    static func segments(of rules: [HoursRule], on date: LocalDate, holidays: HolidayCalendar?) -> [Segment] {
        var segments: [Segment] = []
        var anyRuleMatched = false
        // Indexing (rather than `for rule in rules`) borrows each rule instead of copying its arrays.
        for index in rules.indices {
            if rules[index].joiner == .fallback && anyRuleMatched { continue }
            guard rules[index].matches(date, holidays: holidays) else { continue }
            anyRuleMatched = true
            let pieces = rules[index].pieces
            let isClosing = rules[index].effectiveState == .closed
            switch rules[index].joiner {
            case .normal, .fallback:
                if isClosing && !rules[index].times.isEmpty {
                    // `We 12:00-14:00 off` closes those hours only; a closing rule without times closes the day.
                    for piece in pieces { SegmentList.subtract(&segments, from: piece.start, to: piece.end) }
                } else {
                    segments = isClosing ? [] : pieces
                }
            case .additional:
                for piece in pieces {
                    if isClosing {
                        SegmentList.subtract(&segments, from: piece.start, to: piece.end)
                    } else {
                        SegmentList.insert(&segments, piece)
                    }
                }
            }
        }
        return segments
    }

    /// Sorts a rule's own spans and lets later spans win where they overlap (`10:00-14:00,12:00-18:00`).
    static func normalized(_ pieces: [Segment]) -> [Segment] {
        if pieces.count <= 1 { return pieces }
        var result: [Segment] = []
        for piece in pieces { SegmentList.insert(&result, piece) }
        return result
    }
}
