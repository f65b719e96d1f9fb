import Foundation

/// How text is cut into searchable words, the same way for what the index stores and for what people type,
/// so "R-kioski", "R kioski" and "rkioski", or "McDonald's" and "mcdonalds", meet on the same words.
public enum SearchText {
    /// Folded words: case and accents folded (``TextFolding``), apostrophes deleted ("McDonald's" →
    /// "mcdonalds"), every other character that is not a letter or digit separates words ("R-kioski" →
    /// "r", "kioski").
    public static func words(_ text: String) -> [String] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return asciiWords(text) }
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in TextFolding.fold(text).unicodeScalars {
            if scalar == "'" || scalar == "`" || scalar == "\u{00B4}" { continue }
            if isWordScalar(scalar) {
                current.append(scalar)
            } else if !current.isEmpty {
                words.append(String(current))
                current.removeAll(keepingCapacity: true)
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }

    /// Whether a scalar belongs to a word: a letter or a digit (Unicode's `Alphabetic`, or any numeric type). The
    /// one definition of the words of names, brands and records everywhere they are cut or compared. Folded text
    /// is mostly Latin, whose answers are looked up in a table: Unicode's property tables were most of the cost
    /// of cutting a non-ASCII name into words.
    public static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < UInt32(latinWordScalars.count) ? latinWordScalars[Int(scalar.value)] : isLetterOrDigitByProperties(scalar)
    }

    private static func isLetterOrDigitByProperties(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    /// ``isWordScalar(_:)`` of U+0000 to U+024F (Basic Latin to Latin Extended-B), by Unicode's properties.
    private static let latinWordScalars: [Bool] = (0..<0x250).map { isLetterOrDigitByProperties(Unicode.Scalar(UInt32($0))!) }

    /// ``words(_:)`` for ASCII text, byte by byte: the same words (letters lower-cased, digits kept,
    /// apostrophes and backticks deleted, anything else a separator) without Unicode property lookups.
    private static func asciiWords(_ text: String) -> [String] {
        var words: [String] = []
        var current: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): current.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): current.append(byte + 32)
            case UInt8(ascii: "'"), UInt8(ascii: "`"): continue
            default:
                if !current.isEmpty {
                    words.append(String(decoding: current, as: UTF8.self))
                    current.removeAll(keepingCapacity: true)
                }
            }
        }
        if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)) }
        return words
    }

    /// The forms a name is also findable by when typed without its spaces or hyphens: the words of a name
    /// run together ("R-kioski" → "rkioski", "Esplanadin puisto" → "esplanadinpuisto"), and for longer
    /// names each adjacent pair ("Café Art Nouveau" → "cafeart", "artnouveau").
    public static func joinedForms(_ words: [String]) -> [String] {
        guard words.count >= 2 else { return [] }
        var forms = [words.joined()]
        if words.count >= 3 {
            for i in 0..<(words.count - 1) { forms.append(words[i] + words[i + 1]) }
        }
        return forms
    }

    /// A house number as addresses are compared: folded, without spaces ("9 B" → "9b", "9–11" stays two words).
    public static func houseNumber(_ text: String) -> String {
        TextFolding.fold(text).filter { !$0.isWhitespace }
    }

    /// Whether a typed word reads as a house number: digits, optionally one letter after them ("18", "9b").
    public static func isHouseNumber(_ word: String) -> Bool {
        let scalars = Array(word.unicodeScalars)
        guard let first = scalars.first, ("0"..."9").contains(first), scalars.count <= 6 else { return false }
        let digits = scalars.prefix { ("0"..."9").contains($0) }
        return digits.count == scalars.count || (digits.count == scalars.count - 1 && scalars.last!.properties.isAlphabetic)
    }

    /// The optimal-string-alignment distance (insertions, deletions, substitutions and swaps of two
    /// neighbouring letters each cost one), or `nil` when it is above `limit`: how typo candidates are checked.
    public static func editDistance(_ a: String, _ b: String, limit: Int) -> Int? {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if abs(a.count - b.count) > limit { return nil }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) <= limit ? max(a.count, b.count) : nil }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = current[0]
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { value = min(value, previous2[j - 2] + 1) }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return nil }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }

    /// How far a typed word may be from an indexed one: none below 4 letters, one for 4–7, two for 8 and more.
    public static func typoAllowance(_ word: String) -> Int {
        let count = word.unicodeScalars.count
        return count >= 8 ? 2 : count >= 4 ? 1 : 0
    }
}
