import Foundation

/// Money as an integer count of millionths of a US dollar, so sums and budgets never drift.
public struct MicroDollars: Hashable, Sendable, Comparable, Codable, AdditiveArithmetic, CustomStringConvertible {
    public var value: Int64

    public init(_ value: Int64) { self.value = value }

    public static let zero = MicroDollars(0)

    /// From a price list's "$ per 1,000 calls": $17/1,000 is 17,000 µ$ a call.
    public static func perThousand(dollars: Double) -> MicroDollars {
        MicroDollars(Int64((dollars * 1_000).rounded()))
    }

    /// Parses "$0.05", "0.05", "5" (dollars), as typed after `--max-cost`.
    public init(parsingDollars text: String) throws(InputError) {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("$") { trimmed.removeFirst() }
        // A billion dollars bounds every budget; below it the micro-dollar count fits an Int64 exactly.
        guard let dollars = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")), dollars >= 0,
              dollars <= 1_000_000_000, trimmed.allSatisfy({ $0.isNumber || $0 == "." })
        else {
            throw InputError("invalid amount '\(text.prefix(40))': expected dollars such as 0.05 or $2, at most 1000000000")
        }
        let micros = NSDecimalNumber(decimal: dollars * 1_000_000).int64Value
        self.init(micros)
    }

    public static func + (lhs: MicroDollars, rhs: MicroDollars) -> MicroDollars { MicroDollars(lhs.value + rhs.value) }
    public static func - (lhs: MicroDollars, rhs: MicroDollars) -> MicroDollars { MicroDollars(lhs.value - rhs.value) }
    public static func * (lhs: MicroDollars, rhs: Int64) -> MicroDollars { MicroDollars(lhs.value * rhs) }
    public static func < (lhs: MicroDollars, rhs: MicroDollars) -> Bool { lhs.value < rhs.value }

    /// "$0.017000": six decimals, so one call of any price list stays exact.
    public var description: String {
        let sign = value < 0 ? "-" : ""
        let magnitude = value.magnitude
        return "\(sign)$\(magnitude / 1_000_000).\(String(format: "%06d", Int(magnitude % 1_000_000)))"
    }

    /// Dollars as a floating value, for display and JSON only; never compute with it.
    public var dollars: Double { Double(value) / 1_000_000 }

    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
