import ArgumentParser
import PlacesCore

// Typed command-line values. Each option that takes a point, a distance, a count, money or a field list
// declares `transform: <Type>.argument`, so its value is parsed into its type while the command line is
// read: a bad value is refused before anything opens, by every command the same way, in one line that
// names the option and says why (`places: The value '-1' is invalid for '--radius <M>': expected …`, exit 2;
// see ``PlacesCommand/main()``). Rules between options (`--radius` needs `--near`) live in `validate()`.
// Declare such options with `parsing: .unconditional`, so a value beginning with a minus sign
// (`--near -33.87,151.21`) is taken as the value it is, not as an option.

/// Why a typed value was refused; ArgumentParser puts the option and the value in front of it.
struct ArgumentRefusal: Error, CustomStringConvertible {
    var description: String

    init(_ reason: String) { description = reason }
}

extension Coordinate {
    /// `LAT,LON` in decimal degrees.
    static func argument(_ text: String) throws -> Coordinate { try check(parsing: text) }
}

/// A distance in metres (`--radius`, `--max-distance`, …): finite, positive, at most half the Earth.
enum Metres {
    static func argument(_ text: String) throws -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0,
              value <= InputRange.maxRadiusMeters else {
            throw ArgumentRefusal("expected a positive number of metres up to \(Int(InputRange.maxRadiusMeters))")
        }
        return value
    }
}

/// How many results (`--limit`): 1…1000.
enum ResultLimit {
    static func argument(_ text: String) throws -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), InputRange.limits.contains(value) else {
            throw ArgumentRefusal("expected \(InputRange.limits.lowerBound)…\(InputRange.limits.upperBound)")
        }
        return value
    }
}

extension MicroDollars {
    /// Dollars (`--max-cost 0.05`, `$2`).
    static func argument(_ text: String) throws -> MicroDollars {
        do { return try MicroDollars(parsingDollars: text) } catch {
            throw ArgumentRefusal("expected dollars such as 0.05 or $2")
        }
    }
}

/// A comma-separated list of place fields (`--fields phone,website,hours`).
enum FieldList {
    static func argument(_ text: String) throws -> Set<PlaceField> {
        do { return try PlaceField.parseList(text) } catch { throw ArgumentRefusal(error.message) }
    }
}
