import Foundation

/// Finds the malformed TOML that toml++ (the parser inside TOMLKit) does not report but asserts on,
/// aborting the process: a table header whose name starts with a character no key can start with
/// (`[é]`, `[.a]`, a lone `[`), and a bare value shaped like a date-time that is not one
/// (`2026-05-01Tx09:15`), a closer or a comma where a value belongs (`[}`, `[,`). Found by the config fuzzer (Tests/Fuzz). Everything else is left to toml++,
/// which reports it with its line.
///
/// A small scan, not a parser: it skips strings and comments and tracks which brackets are open, so a
/// `[` inside a value is never taken for a header and a key is never taken for a value.
enum TOMLPreflight {
    struct Problem: Equatable {
        var line: Int
        var message: String
    }

    static func firstProblem(in text: String) -> Problem? {
        let bytes = Array(text.utf8)
        func byte(at index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
        func isBlank(_ byte: UInt8?) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var index = 0, line = 1
        var open: [UInt8] = []  // the `[` and `{` of the values being read
        var lineHasContent = false
        var expectsValue = false  // after `=`, or after `[` / `,` inside an array
        while index < bytes.count {
            let current = bytes[index]
            switch current {
            case UInt8(ascii: "\n"):
                line += 1
                lineHasContent = false
                index += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "#"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let isMultiline = byte(at: index + 1) == current && byte(at: index + 2) == current
                index += isMultiline ? 3 : 1
                while index < bytes.count {
                    let inner = bytes[index]
                    if inner == UInt8(ascii: "\\") && current == UInt8(ascii: "\"") { index += 2; continue }
                    if inner == UInt8(ascii: "\n") {
                        if !isMultiline { break }  // unterminated: toml++ reports it
                        line += 1
                    }
                    if inner == current && (!isMultiline || (byte(at: index + 1) == current && byte(at: index + 2) == current)) {
                        index += isMultiline ? 3 : 1
                        break
                    }
                    index += 1
                }
                lineHasContent = true
                expectsValue = false
            case UInt8(ascii: "[") where open.isEmpty && !lineHasContent:
                var next = index + 1
                while isBlank(byte(at: next)) { next += 1 }
                if byte(at: next) == UInt8(ascii: "[") {
                    next += 1
                    while isBlank(byte(at: next)) { next += 1 }
                }
                if let first = byte(at: next), !canStartTableName(first) {
                    return Problem(line: line, message: "a table name must start with a letter, a digit, '_', '-' or a quote (write [\"name\"] for any other name)")
                }
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                open.append(current)
                lineHasContent = true
                expectsValue = current == UInt8(ascii: "[")
                index += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                // `[}`, `{]` and a stray closer: toml++ asserts on a closer where it expects a value.
                let opener = current == UInt8(ascii: "]") ? UInt8(ascii: "[") : UInt8(ascii: "{")
                guard open.popLast() == opener else {
                    return Problem(line: line, message: "'\(Character(Unicode.Scalar(current)))' closes nothing open here (check the brackets and braces)")
                }
                lineHasContent = true
                expectsValue = false
                index += 1
            case UInt8(ascii: "="):
                lineHasContent = true
                expectsValue = true
                index += 1
            case UInt8(ascii: ","):
                // `[,` and `a = ,`: toml++ asserts on a comma where it expects a value.
                if expectsValue { return Problem(line: line, message: "a value is missing before ','") }
                lineHasContent = true
                expectsValue = open.last == UInt8(ascii: "[")
                index += 1
            default:
                let start = index
                while index < bytes.count, !endsBareToken(bytes[index]) { index += 1 }
                // `1979-05-27 07:32:00`: a date, one space, then a time is one value.
                if expectsValue, isDate(bytes[start..<index]), byte(at: index) == UInt8(ascii: " "),
                   let digit = byte(at: index + 1), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) {
                    index += 1
                    while index < bytes.count, !endsBareToken(bytes[index]) { index += 1 }
                }
                if expectsValue, let problem = dateTimeProblem(bytes[start..<index]) {
                    return Problem(line: line, message: problem)
                }
                lineHasContent = true
                expectsValue = false
            }
        }
        return nil
    }

    private static func canStartTableName(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "\""), UInt8(ascii: "'"),
             UInt8(ascii: "]"):  // toml++ reports `[]` itself
            true
        default: false
        }
    }

    private static func endsBareToken(_ byte: UInt8) -> Bool {
        [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: ","),
         UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "#"), UInt8(ascii: "="), UInt8(ascii: "["),
         UInt8(ascii: "{"), UInt8(ascii: "\""), UInt8(ascii: "'")].contains(byte)
    }

    private static func isDate(_ token: ArraySlice<UInt8>) -> Bool {
        String(decoding: token, as: UTF8.self).wholeMatch(of: #/\d{4}-\d{2}-\d{2}/#) != nil
    }

    /// A value with a `:`, or starting like a date (`2026-`), must be a TOML date, time or date-time.
    private static func dateTimeProblem(_ token: ArraySlice<UInt8>) -> String? {
        let text = String(decoding: token, as: UTF8.self)
        guard text.contains(":") || text.prefixMatch(of: #/\d{4}-/#) != nil else { return nil }
        if text.wholeMatch(of: #/\d{4}-\d{2}-\d{2}/#) != nil || text.wholeMatch(of: #/\d{2}:\d{2}(:\d{2}(\.\d+)?)?/#) != nil
            || text.wholeMatch(of: #/\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})?/#) != nil {
            return nil
        }
        return "'\(text.prefix(40))' is not a date or time (dates and times look like 1979-05-27, 07:32:00 or 1979-05-27T07:32:00Z)"
    }
}
