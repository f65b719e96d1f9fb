/// Why an `opening_hours` string could not be read: what was wrong and where.
public struct HoursSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    /// Offset in UTF-8 bytes from the start of the text.
    public var offset: Int

    public var description: String { "\(message) (at character \(offset + 1))" }
}

/// Reads the OSM `opening_hours` mini-language into rules.
///
/// It is strict about meaning and lenient about spelling: `Mon`, `mo`, `9-17`, `11am`, an en dash, or a
/// missing `;` between two complete rules are read with a warning, because what they mean is not in
/// doubt. Anything whose meaning is in doubt (a lone time such as `Su 8`, free text) is an error, so
/// the caller reports "unknown" instead of guessing.
struct OpeningHoursParser {
    private var tokens: [Token] = []
    private var index = 0
    private(set) var warnings: [String] = []

    static func parse(_ text: String) throws(HoursSyntaxError) -> (rules: [HoursRule], warnings: [String]) {
        var parser = OpeningHoursParser()
        var lexer = Lexer(bytes: Array(text.utf8))
        parser.tokens = try lexer.tokenize()
        parser.warnings = lexer.warnings
        let rules = try parser.parseSequence()
        return (rules, parser.warnings + replacedHoursWarnings(rules))
    }

    /// `Sa 14:00-24:00; Sa-Su 00:00-01:00` means, by the specification, that Saturday is open only
    /// 00:00-01:00: the second rule replaces the first. When the replacing hours do not even overlap
    /// the replaced ones, the author most likely meant `,` (add). The rules are still evaluated as
    /// written; the warning lets the answer say it may not be what was meant.
    static func replacedHoursWarnings(_ rules: [HoursRule]) -> [String] {
        guard rules.count > 1 else { return [] }
        /// Weekdays as bits (Monday = bit 1), or `nil` for a rule that is more than "weekdays + times".
        func plainWeekdays(_ rule: HoursRule) -> UInt8? {
            guard rule.years.isEmpty, rule.dates.isEmpty, rule.weeks.isEmpty, rule.dayGroups.count == 1,
                !rule.times.isEmpty, rule.effectiveState == .open, !rule.usesSolarTime
            else { return nil }
            var days: UInt8 = 0
            for item in rule.dayGroups[0] {
                guard case .weekdays(let from, let to, let nth) = item, nth.isEmpty else { return nil }
                var day = from
                while true {
                    days |= 1 << day
                    if day == to { break }
                    day = day % 7 + 1
                }
            }
            return days
        }
        let weekdays = rules.map(plainWeekdays)
        var warnings: [String] = []
        for index in rules.indices where rules[index].joiner == .normal {
            guard let days = weekdays[index] else { continue }
            var replaced: UInt8 = 0
            for earlier in 0..<index where rules[earlier].joiner != .fallback {
                guard let earlierDays = weekdays[earlier], days & earlierDays != 0 else { continue }
                let overlaps = rules[earlier].pieces.contains { old in
                    rules[index].pieces.contains { $0.start < old.end && old.start < $0.end }
                }
                if !overlaps { replaced |= days & earlierDays }
            }
            if replaced != 0 {
                let names = (1...7).filter { replaced & (1 << $0) != 0 }.map { Vocabulary.weekdayNames[$0 - 1] }
                warnings.append("a later rule replaces the earlier hours on \(names.joined(separator: ",")) (as ';' "
                    + "specifies); if both were meant, they should be joined with ','")
            }
        }
        return warnings
    }

    // MARK: - Rule sequence

    private mutating func parseSequence() throws(HoursSyntaxError) -> [HoursRule] {
        var rules: [HoursRule] = []
        var joiner = HoursRule.Joiner.normal
        while current.kind != .end {
            if current.kind == .semicolon {
                warn("empty rule (doubled ';')")
                advance()
                continue
            }
            var rule = try parseRule()
            rule.joiner = joiner
            rule.pieces = RuleEvaluator.normalized(rule.segments())
            rules.append(rule)
            switch current.kind {
            case .end: return rules
            case .semicolon: joiner = .normal
            case .pipes: joiner = .fallback
            case .comma: joiner = .additional
            default:
                guard canStartRule(current) else { throw unexpected("after a complete rule") }
                warn("missing ';' before '\(current.text)'")
                joiner = .normal
                continue
            }
            advance()
            if joiner != .normal, current.kind == .end { throw unexpected("after a rule separator") }
        }
        guard !rules.isEmpty else { throw HoursSyntaxError(message: "empty opening hours", offset: 0) }
        return rules
    }

    private func canStartRule(_ token: Token) -> Bool {
        if case .word(let word) = token.kind {
            return Vocabulary.weekday(word) != nil || Vocabulary.month(word) != nil
                || ["ph", "sh", "week", "open", "closed", "off", "unknown"].contains(word)
        }
        if case .number = token.kind { return true }
        return token.kind == .comment
    }

    private mutating func parseRule() throws(HoursSyntaxError) -> HoursRule {
        var rule = HoursRule()
        let ruleStart = index
        if case .number(24, _) = current.kind, peek(1).kind == .slash, case .number(7, _) = peek(2).kind {
            index += 3
            rule.times = [TimeSpan(start: .clock(0), end: .clock(1440), openEnd: false)]
        } else {
            try parseWideSelectors(into: &rule)
            if current.kind == .colon {
                guard index > ruleStart else { throw unexpected("at the start of a rule") }
                advance()
            }
            if isDayItemStart(current) {
                rule.dayGroups.append(try parseDayGroup())
                while isDayItemStart(current) { rule.dayGroups.append(try parseDayGroup()) }
            }
            if isTimeStart(current) { rule.times = try parseTimes() }
        }
        if case .word(let word) = current.kind, let state = Vocabulary.state(word) {
            rule.state = state
            advance()
        }
        if case .commentText(let text) = current.kind {
            rule.comment = text
            advance()
        }
        guard index > ruleStart else { throw unexpected("where a rule should start") }
        return rule
    }

    // MARK: - Year, date and week selectors

    private mutating func parseWideSelectors(into rule: inout HoursRule) throws(HoursSyntaxError) {
        if isYear(current) && !isMonth(peek(1)) {
            repeat {
                if !rule.years.isEmpty { advance() }
                rule.years.append(try parseYearRange())
            } while current.kind == .comma && isYear(peek(1)) && !isMonth(peek(2))
        }
        if isMonth(current) || (isYear(current) && isMonth(peek(1))) {
            repeat {
                if !rule.dates.isEmpty { advance() }
                rule.dates.append(try parseDateRange())
            } while current.kind == .comma && (isMonth(peek(1)) || (isYear(peek(1)) && isMonth(peek(2))))
        }
        if case .word("week") = current.kind {
            advance()
            repeat {
                if !rule.weeks.isEmpty { advance() }
                let range = try parseNumberRange(what: "week", allowed: 1...53)
                rule.weeks.append(range)
            } while current.kind == .comma && isNumber(peek(1))
        }
    }

    private mutating func parseYearRange() throws(HoursSyntaxError) -> YearRange {
        let start = try expectYear()
        if current.kind == .plus {
            advance()
            return YearRange(start: start, end: Int.max)
        }
        guard current.kind == .dash, isYear(peek(1)) else { return YearRange(start: start, end: start) }
        advance()
        let end = try expectYear()
        guard end >= start else { throw error("year range \(start)-\(end) runs backwards") }
        var step = 1
        if current.kind == .slash {
            advance()
            step = try expectNumber(what: "year step", allowed: 1...100)
        }
        return YearRange(start: start, end: end, step: step)
    }

    private mutating func parseDateRange() throws(HoursSyntaxError) -> DateRange {
        let start = try parseDatePoint()
        guard current.kind == .dash else { return DateRange(start: start, end: start) }
        advance()
        if isMonth(current) || isYear(current) {
            return DateRange(start: start, end: try parseDatePoint())
        }
        if case .number = current.kind, start.day != nil {
            // `Dec 24-26`: the end shares the start's month.
            let day = try expectNumber(what: "day of month", allowed: 1...31)
            return DateRange(start: start, end: DatePoint(year: start.year, month: start.month, day: day))
        }
        throw unexpected("after '-' in a date range")
    }

    private mutating func parseDatePoint() throws(HoursSyntaxError) -> DatePoint {
        var year: Int?
        if isYear(current) { year = try expectYear() }
        guard case .word(let word) = current.kind, let month = Vocabulary.month(word) else {
            throw unexpected("where a month should be")
        }
        if word.count != 3 || current.text.first?.isUppercase != true {
            warn("month '\(current.text)' written as '\(Vocabulary.monthNames[month - 1])'")
        }
        advance()
        var day: Int?
        if case .number(let value, let digits) = current.kind, digits <= 2, peek(1).kind != .colon {
            guard (1...31).contains(value), (1...LocalDate.daysIn(month: month, year: 2000)).contains(value) else {
                throw error("day \(value) does not exist in \(Vocabulary.monthNames[month - 1])")
            }
            day = value
            advance()
        }
        return DatePoint(year: year, month: month, day: day)
    }

    private mutating func parseNumberRange(what: String, allowed: ClosedRange<Int>) throws(HoursSyntaxError) -> NumberRange {
        let start = try expectNumber(what: what, allowed: allowed)
        var end = start
        var step = 1
        if current.kind == .dash {
            advance()
            end = try expectNumber(what: what, allowed: allowed)
        }
        if current.kind == .slash {
            advance()
            step = try expectNumber(what: "\(what) step", allowed: 1...53)
        }
        return NumberRange(start: start, end: end, step: step)
    }

    // MARK: - Weekday and holiday selectors

    private func isDayItemStart(_ token: Token) -> Bool {
        guard case .word(let word) = token.kind else { return false }
        return Vocabulary.weekday(word) != nil || word == "ph" || word == "sh"
    }

    private mutating func parseDayGroup() throws(HoursSyntaxError) -> [DayItem] {
        var items = [try parseDayItem()]
        while current.kind == .comma && isDayItemStart(peek(1)) {
            advance()
            items.append(try parseDayItem())
        }
        return items
    }

    private mutating func parseDayItem() throws(HoursSyntaxError) -> DayItem {
        guard case .word(let word) = current.kind else { throw unexpected("where a weekday should be") }
        if word == "ph" || word == "sh" {
            if current.text != word.uppercased() { warn("'\(current.text)' written as '\(word.uppercased())'") }
            advance()
            if current.kind == .plus || (current.kind == .dash && isNumber(peek(1))) {
                throw error("holiday offsets ('PH +1 day') are not supported")
            }
            return word == "ph" ? .publicHoliday : .schoolHoliday
        }
        let from = try expectWeekday()
        var to = from
        if current.kind == .dash {
            advance()
            to = try expectWeekday()
        }
        var nth: [NumberRange] = []
        if current.kind == .leftBracket {
            advance()
            repeat {
                if !nth.isEmpty { advance() }
                nth.append(try parseNthRange())
            } while current.kind == .comma
            guard current.kind == .rightBracket else { throw unexpected("where ']' should close the weekday index") }
            advance()
        }
        return .weekdays(from: from, to: to, nth: nth)
    }

    private mutating func parseNthRange() throws(HoursSyntaxError) -> NumberRange {
        var negative = false
        if current.kind == .dash {
            negative = true
            advance()
        }
        let start = try expectNumber(what: "weekday index", allowed: 1...5)
        if negative { return NumberRange(start: -start, end: -start) }
        var end = start
        if current.kind == .dash {
            advance()
            end = try expectNumber(what: "weekday index", allowed: 1...5)
        }
        return NumberRange(start: start, end: end)
    }

    private mutating func expectWeekday() throws(HoursSyntaxError) -> Int {
        guard case .word(let word) = current.kind, let weekday = Vocabulary.weekday(word) else {
            throw unexpected("where a weekday should be")
        }
        let canonical = Vocabulary.weekdayNames[weekday - 1]
        if current.text != canonical { warn("weekday '\(current.text)' written as '\(canonical)'") }
        advance()
        return weekday
    }

    // MARK: - Times

    private func isTimeStart(_ token: Token) -> Bool {
        switch token.kind {
        case .number(_, let digits): digits <= 2
        case .word(let word): Vocabulary.solarEvents.contains(word)
        case .leftParen: true
        default: false
        }
    }

    private mutating func parseTimes() throws(HoursSyntaxError) -> [TimeSpan] {
        var spans = [try parseTimeSpan()]
        while current.kind == .comma && isTimeStart(peek(1)) {
            advance()
            spans.append(try parseTimeSpan())
        }
        return spans
    }

    private mutating func parseTimeSpan() throws(HoursSyntaxError) -> TimeSpan {
        let startToken = current
        let start = try parseTimePoint()
        // Only an end may run past midnight (`22:00-26:00`); a start after 24:00 made evaluation report
        // changes in the past (found by the hours fuzzer: `Fr 44:00-12:00`).
        if case .clock(let minute) = start, minute > 1440 {
            throw HoursSyntaxError(
                message: "start time '\(LocalDate.pad(minute / 60, 2)):\(LocalDate.pad(minute % 60, 2))' is after 24:00: only an end time may run past midnight (22:00-26:00)",
                offset: startToken.offset)
        }
        if current.kind == .plus {
            advance()
            return TimeSpan(start: start, end: nil, openEnd: true)
        }
        guard current.kind == .dash else {
            throw HoursSyntaxError(
                message: "time '\(startToken.text)' has no end: a single moment is not opening hours", offset: startToken.offset)
        }
        advance()
        guard isTimeStart(current) else {
            if [.comma, .semicolon, .pipes, .end].contains(current.kind) {
                let shown = if case .clock(let minute) = start { HoursInterval.clock(minute) } else { startToken.text }
                warn("'\(shown)-' without an end read as an open end ('\(shown)+')")
                return TimeSpan(start: start, end: nil, openEnd: true)
            }
            throw unexpected("where the end time should be")
        }
        let end = try parseTimePoint()
        var openEnd = false
        if current.kind == .plus {
            advance()
            openEnd = true
        }
        if current.kind == .slash { throw error("repeating time ranges ('10:00-16:00/01:30') are not supported") }
        if case .clock(let from) = start, case .clock(let to) = end, from == to {
            throw error("time range starts and ends at the same minute")
        }
        return TimeSpan(start: start, end: end, openEnd: openEnd)
    }

    private mutating func parseTimePoint() throws(HoursSyntaxError) -> TimePoint {
        let token = current
        switch token.kind {
        case .word(let word) where Vocabulary.solarEvents.contains(word):
            advance()
            return .solar(word)
        case .leftParen:
            advance()
            guard case .word(let word) = current.kind, Vocabulary.solarEvents.contains(word) else {
                throw unexpected("where sunrise, sunset, dawn or dusk should be")
            }
            advance()
            guard current.kind == .plus || current.kind == .dash else { throw unexpected("in a sun-relative time") }
            advance()
            _ = try parseTimePoint()
            guard current.kind == .rightParen else { throw unexpected("where ')' should close a sun-relative time") }
            advance()
            return .solar(word)
        case .number(let hour, _):
            advance()
            var minute = 0
            var hourOnly = true
            if current.kind == .colon, case .number(let value, 2) = peek(1).kind {
                guard value < 60 else { throw error("minute \(value) is not a minute") }
                minute = value
                hourOnly = false
                index += 2
            }
            var hours = hour
            if case .word(let suffix) = current.kind, suffix == "am" || suffix == "pm" {
                guard (1...12).contains(hour) else { throw error("\(hour)\(suffix) is not a time") }
                hours = (hour % 12) + (suffix == "pm" ? 12 : 0)
                warn("12-hour time '\(hour)\(hourOnly ? "" : ":\(LocalDate.pad(minute, 2))")\(suffix)' read as \(LocalDate.pad(hours, 2)):\(LocalDate.pad(minute, 2))")
                advance()
            } else if hourOnly {
                warn("hour '\(hour)' read as \(LocalDate.pad(hour, 2)):00")
            }
            guard hours <= 48, hours * 60 + minute <= 2880 else { throw error("\(token.text) is not a time of day") }
            return .clock(hours * 60 + minute)
        default:
            throw unexpected("where a time should be")
        }
    }

    // MARK: - Token helpers

    private var current: Token { tokens[index] }

    private func peek(_ distance: Int) -> Token { tokens[min(index + distance, tokens.count - 1)] }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private mutating func warn(_ message: String) {
        if !warnings.contains(message) { warnings.append(message) }
    }

    private func isYear(_ token: Token) -> Bool {
        if case .number(let value, 4) = token.kind { return value >= 1900 && value <= 2200 }
        return false
    }

    private func isMonth(_ token: Token) -> Bool {
        if case .word(let word) = token.kind { return Vocabulary.month(word) != nil }
        return false
    }

    private func isNumber(_ token: Token) -> Bool {
        if case .number = token.kind { return true }
        return false
    }

    private mutating func expectYear() throws(HoursSyntaxError) -> Int {
        guard isYear(current), case .number(let value, _) = current.kind else { throw unexpected("where a year should be") }
        advance()
        return value
    }

    private mutating func expectNumber(what: String, allowed: ClosedRange<Int>) throws(HoursSyntaxError) -> Int {
        guard case .number(let value, _) = current.kind else { throw unexpected("where a \(what) should be") }
        guard allowed.contains(value) else {
            throw error("\(what) \(value) is outside \(allowed.lowerBound)…\(allowed.upperBound)")
        }
        advance()
        return value
    }

    private func error(_ message: String) -> HoursSyntaxError {
        HoursSyntaxError(message: message, offset: current.offset)
    }

    private func unexpected(_ context: String) -> HoursSyntaxError {
        let what = current.kind == .end ? "end of text" : "'\(current.text)'"
        return HoursSyntaxError(message: "unexpected \(what) \(context)", offset: current.offset)
    }
}

// MARK: - Lexer

struct Token: Sendable {
    enum Kind: Equatable, Sendable {
        /// `digits` tells `2017` (a year) from `09` (an hour) and `1` (a day).
        case number(Int, digits: Int)
        /// Lower-cased letters; ``Token/text`` keeps the original spelling.
        case word(String)
        case commentText(String)
        case colon, dash, comma, semicolon, pipes, plus, slash, leftBracket, rightBracket, leftParen, rightParen
        case dot, end
    }

    var kind: Kind
    var text: String
    var offset: Int
}

extension Token.Kind {
    /// `true` for a quoted comment regardless of its text, so `current.kind == .comment` reads naturally.
    static let comment = Token.Kind.commentText("")

    static func == (lhs: Token.Kind, rhs: Token.Kind) -> Bool {
        switch (lhs, rhs) {
        case (.number(let a, let x), .number(let b, let y)): a == b && x == y
        case (.word(let a), .word(let b)): a == b
        case (.commentText, .commentText): true
        case (.colon, .colon), (.dash, .dash), (.comma, .comma), (.semicolon, .semicolon), (.pipes, .pipes),
            (.plus, .plus), (.slash, .slash), (.leftBracket, .leftBracket), (.rightBracket, .rightBracket),
            (.leftParen, .leftParen), (.rightParen, .rightParen), (.dot, .dot), (.end, .end):
            true
        default: false
        }
    }
}

private struct Lexer {
    let bytes: [UInt8]
    var position = 0
    var warnings: [String] = []

    mutating func tokenize() throws(HoursSyntaxError) -> [Token] {
        var tokens: [Token] = []
        while true {
            skipSpace()
            guard position < bytes.count else { break }
            let start = position
            let byte = bytes[position]
            func single(_ kind: Token.Kind) -> Token {
                position += 1
                return Token(kind: kind, text: String(decoding: bytes[start..<position], as: UTF8.self), offset: start)
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                var value = 0
                while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57, position - start < 6 {
                    value = value * 10 + Int(bytes[position] - 48)
                    position += 1
                }
                tokens.append(Token(
                    kind: .number(value, digits: position - start),
                    text: String(decoding: bytes[start..<position], as: UTF8.self), offset: start))
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                while position < bytes.count, isLetter(bytes[position]) { position += 1 }
                let text = String(decoding: bytes[start..<position], as: UTF8.self)
                tokens.append(Token(kind: .word(text.lowercased()), text: text, offset: start))
            case UInt8(ascii: "\""):
                position += 1
                while position < bytes.count, bytes[position] != UInt8(ascii: "\"") { position += 1 }
                guard position < bytes.count else {
                    throw HoursSyntaxError(message: "comment is missing its closing '\"'", offset: start)
                }
                let text = String(decoding: bytes[(start + 1)..<position], as: UTF8.self)
                position += 1
                tokens.append(Token(kind: .commentText(text), text: "\"\(text)\"", offset: start))
            case UInt8(ascii: "|"):
                guard position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "|") else {
                    throw HoursSyntaxError(message: "a single '|' (the fallback operator is '||')", offset: start)
                }
                position += 2
                tokens.append(Token(kind: .pipes, text: "||", offset: start))
            case UInt8(ascii: ":"): tokens.append(single(.colon))
            case UInt8(ascii: "-"): tokens.append(single(.dash))
            case UInt8(ascii: ","): tokens.append(single(.comma))
            case UInt8(ascii: ";"): tokens.append(single(.semicolon))
            case UInt8(ascii: "+"): tokens.append(single(.plus))
            case UInt8(ascii: "/"): tokens.append(single(.slash))
            case UInt8(ascii: "["): tokens.append(single(.leftBracket))
            case UInt8(ascii: "]"): tokens.append(single(.rightBracket))
            case UInt8(ascii: "("): tokens.append(single(.leftParen))
            case UInt8(ascii: ")"): tokens.append(single(.rightParen))
            case 0xE2 where position + 2 < bytes.count && bytes[position + 1] == 0x80
                && (bytes[position + 2] == 0x93 || bytes[position + 2] == 0x94):
                // En or em dash, common when hours are typed in a word processor.
                position += 3
                warnings.append("typographic dash read as '-'")
                tokens.append(Token(kind: .dash, text: "–", offset: start))
            default:
                let scalar = String(decoding: bytes[start..<min(start + 4, bytes.count)], as: UTF8.self).prefix(1)
                throw HoursSyntaxError(message: "unexpected character '\(scalar)'", offset: start)
            }
        }
        tokens.append(Token(kind: .end, text: "", offset: bytes.count))
        return tokens
    }

    private mutating func skipSpace() {
        while position < bytes.count {
            if bytes[position] == 0x20 || bytes[position] == 0x09 {
                position += 1
            } else if bytes[position] == 0xC2, position + 1 < bytes.count, bytes[position + 1] == 0xA0 {
                position += 2  // no-break space
            } else {
                return
            }
        }
    }

    private func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A)
    }
}

enum Vocabulary {
    static let weekdayNames = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let solarEvents: Set<String> = ["sunrise", "sunset", "dawn", "dusk"]

    private static let weekdays: [String: Int] = [
        "mo": 1, "mon": 1, "monday": 1, "tu": 2, "tue": 2, "tues": 2, "tuesday": 2, "we": 3, "wed": 3, "wednesday": 3,
        "th": 4, "thu": 4, "thur": 4, "thurs": 4, "thursday": 4, "fr": 5, "fri": 5, "friday": 5,
        "sa": 6, "sat": 6, "saturday": 6, "su": 7, "sun": 7, "sunday": 7,
    ]
    private static let months: [String: Int] = {
        var table: [String: Int] = [:]
        let full = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                    "november", "december"]
        for (offset, name) in full.enumerated() {
            table[name] = offset + 1
            table[String(name.prefix(3))] = offset + 1
        }
        table["sept"] = 9
        return table
    }()

    static func weekday(_ word: String) -> Int? { weekdays[word] }
    static func month(_ word: String) -> Int? { months[word] }

    static func state(_ word: String) -> HoursState? {
        switch word {
        case "open": .open
        case "closed", "off": .closed
        case "unknown": .unknown
        default: nil
        }
    }
}
