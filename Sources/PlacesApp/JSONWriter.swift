import Foundation
import PlacesHours

/// Writes JSON into a byte array exactly as `PlacesJSON.encoder()` (Foundation's `JSONEncoder` with sorted
/// keys, unescaped slashes, ISO 8601 dates) would, without its boxing, dictionaries and dynamic casts.
///
/// Every JSON `places` prints or serves for places, lookups, reverse answers, suggestions and hours goes
/// through this one writer, so the CLI and the server cannot drift apart. A profile of a cache-hit LOOKUP
/// spent a third of its CPU in `JSONEncoder`; this writer appends bytes to one buffer and allocates
/// nothing per field. The `Encodable` conformances stay as the reference: `JSONWriterParityTests` compares
/// both over every result shape and every place of the bundled index, byte for byte.
///
/// What "exactly" means here, as measured on Linux's Foundation:
/// - strings escape `"` and `\` with a backslash, `\b \t \n \f \r` by name, other bytes below 0x20 as
///   `\u00xx` (lower-case hex); `/`, DEL, U+2028/U+2029 and all other non-ASCII are written raw (UTF-8);
/// - a `Double` is its shortest round-trip `description` with a trailing `.0` dropped (`60`, `-0`, `1e-05`,
///   `1e+16`); a non-finite number, which `JSONEncoder` refuses, is written as `null` (none reaches here:
///   coordinates and scores are checked finite when they are read);
/// - keys are sorted by their UTF-8 bytes; the shapes below list their keys in that order, derived once
///   from their `CodingKeys`;
/// - pretty output indents by two spaces, separates keys with `" : "`, and writes an empty container as an
///   opening bracket, two newlines, and the closing bracket at the container's indentation.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8]
    public let pretty: Bool
    private var depth = 0
    /// Whether the innermost open container already holds an element (a comma goes before the next).
    private var containerHasElement = false
    /// A key was just written: the next value belongs to it and takes no separator.
    private var afterKey = false

    public init(pretty: Bool = false, capacity: Int = 1_024) {
        self.pretty = pretty
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public var data: Data { Data(bytes) }

    // MARK: Containers

    public mutating func beginObject() {
        beginElement()
        bytes.append(UInt8(ascii: "{"))
        depth += 1
        containerHasElement = false
    }

    public mutating func endObject() { endContainer(UInt8(ascii: "}")) }

    public mutating func beginArray() {
        beginElement()
        bytes.append(UInt8(ascii: "["))
        depth += 1
        containerHasElement = false
    }

    public mutating func endArray() { endContainer(UInt8(ascii: "]")) }

    public mutating func emptyObject() {
        beginObject()
        endObject()
    }

    /// Writes a key of the object being written; the next value written is its value.
    public mutating func key(_ name: String) {
        beginElement()
        writeString(name)
        if pretty {
            bytes.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: " ")])
        } else {
            bytes.append(UInt8(ascii: ":"))
        }
        afterKey = true
    }

    // MARK: Values

    public mutating func null() {
        beginElement()
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
    }

    public mutating func value(_ flag: Bool) {
        beginElement()
        if flag {
            bytes.append(contentsOf: [UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e")])
        } else {
            bytes.append(contentsOf: [UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e")])
        }
    }

    public mutating func value(_ text: String) {
        beginElement()
        writeString(text)
    }

    public mutating func value(_ number: Int) {
        beginElement()
        bytes.append(contentsOf: String(number).utf8)  // a small string: no allocation
    }

    public mutating func value(_ number: Double) {
        guard number.isFinite else { return null() }
        beginElement()
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    /// A date as `.iso8601` writes it: UTC, whole seconds (rounded down), `Z`.
    public mutating func value(_ date: Date) {
        beginElement()
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: LocalDate(dayNumber: days).description.utf8)  // yyyy-MM-dd, a small string
        bytes.append(UInt8(ascii: "T"))
        appendPadded(secondOfDay / 3_600, width: 2)
        bytes.append(UInt8(ascii: ":"))
        appendPadded(secondOfDay / 60 % 60, width: 2)
        bytes.append(UInt8(ascii: ":"))
        appendPadded(secondOfDay % 60, width: 2)
        bytes.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
    }

    public mutating func value(_ text: String?) {
        if let text { value(text) } else { null() }
    }

    public mutating func value(_ number: Double?) {
        if let number { value(number) } else { null() }
    }

    public mutating func value(_ flag: Bool?) {
        if let flag { value(flag) } else { null() }
    }

    public mutating func value(_ texts: [String]) {
        beginArray()
        for text in texts { value(text) }
        endArray()
    }

    /// A `[String: Int]` as `JSONEncoder` writes it: keys sorted, not converted to snake case.
    public mutating func value(_ counts: [String: Int]) {
        beginObject()
        for name in counts.keys.sorted() {
            key(name)
            value(counts[name] ?? 0)
        }
        endObject()
    }

    // MARK: Layout

    private mutating func beginElement() {
        if afterKey {
            afterKey = false
            return
        }
        guard depth > 0 else { return }
        if containerHasElement { bytes.append(UInt8(ascii: ",")) }
        containerHasElement = true
        if pretty { newline() }
    }

    private mutating func endContainer(_ bracket: UInt8) {
        depth -= 1
        if pretty {
            if !containerHasElement { bytes.append(UInt8(ascii: "\n")) }
            newline()
        }
        bytes.append(bracket)
        containerHasElement = true
    }

    private mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        for _ in 0..<depth { bytes.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: " ")]) }
    }

    private mutating func writeString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                default:
                    func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10 }
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                              hexDigit(byte >> 4), hexDigit(byte & 0x0F)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendPadded(_ number: Int, width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = number
        if rest >= divisor * 10 {  // wider than the field (a year past 9999): all digits
            bytes.append(contentsOf: String(rest).utf8)
            return
        }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
