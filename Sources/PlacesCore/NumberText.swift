import Foundation

/// Numbers as people read them, and the ranges every number from outside must fall in.
///
/// Every value printed here may have come from a user, a file or a provider, so nothing in this file may
/// trap: `Int(someDouble)` does when the value is not finite or beyond ±9.2e18, and `1e19` is a valid
/// `Double` literal that anyone can type.
extension Double {
    /// The shortest plain form: `60` for 60.0, `60.17`, `1e+19`; `nan` and `inf` as Swift spells them.
    /// Whole numbers print without a fraction only while they fit an `Int` exactly.
    public var compactText: String {
        if let whole = Int(exactly: self) { return String(whole) }
        return String(self)
    }
}

/// The ranges numbers from outside (options, server arguments, files, provider replies) must fall in, and
/// their one-line errors. The CLI, the server and the file readers all check through here.
public enum InputRange {
    /// Half the Earth's circumference in metres: no two points on it are farther apart, so no radius needs more.
    public static let maxRadiusMeters = 20_037_509.0

    /// How many results a query may ask for.
    public static let limits = 1...1_000

    /// A radius or distance in metres: finite, positive, at most ``maxRadiusMeters``. `name` is how the caller spells
    /// the option (`--radius`, `RADIUS`).
    public static func metres(_ value: Double, named name: String) throws(InputError) -> Double {
        guard value.isFinite, value > 0, value <= maxRadiusMeters else {
            throw InputError("invalid \(name) '\(value.compactText)': expected a positive number of metres up to \(Int(maxRadiusMeters))")
        }
        return value
    }

    /// Metres typed as text (`RADIUS 300`).
    public static func metres(parsing text: String, named name: String) throws(InputError) -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)) else {
            throw InputError("invalid \(name) '\(text.prefix(40))': expected a positive number of metres up to \(Int(maxRadiusMeters))")
        }
        return try metres(value, named: name)
    }

    /// A result count.
    public static func limit(_ value: Int, named name: String) throws(InputError) -> Int {
        guard limits.contains(value) else {
            throw InputError("invalid \(name) \(value): expected \(limits.lowerBound)…\(limits.upperBound)")
        }
        return value
    }

    /// A result count typed as text (`LIMIT 20`).
    public static func limit(parsing text: String, named name: String) throws(InputError) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), limits.contains(value) else {
            throw InputError("invalid \(name) '\(text.prefix(40))': expected \(limits.lowerBound)…\(limits.upperBound)")
        }
        return value
    }
}
