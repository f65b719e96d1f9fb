/// Splits an inline request line into arguments with Redis's quoting rules (`sdssplitargs`), so a
/// line typed over `nc` or `telnet` means what it would mean to Redis.
///
/// - Tokens are separated by spaces, tabs, `\r`, `\n`, `\v`, `\f` and NUL.
/// - Inside `"…"`: `\n \r \t \b \a \\ \"` and `\xHH` are escapes; any other `\c` is `c`.
/// - Inside `'…'`: only `\'` is an escape.
/// - A closing quote must be followed by whitespace or the end of the line; an unbalanced quote is
///   a protocol error.
public enum InlineTokenizer {
    public static func split<C: Collection>(_ line: C) throws(RESPProtocolError) -> [[UInt8]] where C.Element == UInt8 {
        let bytes = Array(line)
        var tokens: [[UInt8]] = []
        var i = 0
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0B || b == 0x0C || b == 0 }
        func hexValue(_ b: UInt8) -> UInt8? {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        while true {
            while i < bytes.count && isSpace(bytes[i]) { i += 1 }
            guard i < bytes.count else { return tokens }
            var current: [UInt8] = []
            var inDouble = false
            var inSingle = false
            var done = false
            while !done {
                if inDouble {
                    guard i < bytes.count else { throw .unbalancedQuotes }
                    let b = bytes[i]
                    if b == UInt8(ascii: "\\") && i + 3 < bytes.count && bytes[i + 1] == UInt8(ascii: "x"),
                       let high = hexValue(bytes[i + 2]), let low = hexValue(bytes[i + 3]) {
                        current.append(high << 4 | low)
                        i += 3
                    } else if b == UInt8(ascii: "\\") && i + 1 < bytes.count {
                        i += 1
                        switch bytes[i] {
                        case UInt8(ascii: "n"): current.append(0x0A)
                        case UInt8(ascii: "r"): current.append(0x0D)
                        case UInt8(ascii: "t"): current.append(0x09)
                        case UInt8(ascii: "b"): current.append(0x08)
                        case UInt8(ascii: "a"): current.append(0x07)
                        default: current.append(bytes[i])
                        }
                    } else if b == UInt8(ascii: "\"") {
                        if i + 1 < bytes.count && !isSpace(bytes[i + 1]) { throw .unbalancedQuotes }
                        done = true
                    } else {
                        current.append(b)
                    }
                } else if inSingle {
                    guard i < bytes.count else { throw .unbalancedQuotes }
                    let b = bytes[i]
                    if b == UInt8(ascii: "\\") && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "'") {
                        i += 1
                        current.append(UInt8(ascii: "'"))
                    } else if b == UInt8(ascii: "'") {
                        if i + 1 < bytes.count && !isSpace(bytes[i + 1]) { throw .unbalancedQuotes }
                        done = true
                    } else {
                        current.append(b)
                    }
                } else {
                    if i >= bytes.count { done = true; continue }
                    switch bytes[i] {
                    case let b where isSpace(b): done = true
                    case UInt8(ascii: "\""): inDouble = true
                    case UInt8(ascii: "'"): inSingle = true
                    case let b: current.append(b)
                    }
                    if done { continue }
                }
                i += 1
            }
            tokens.append(current)
        }
    }
}
