import Foundation
import PlacesCore

/// A plain-text table for people reading results in a terminal.
enum PlaceTable {
    static func render(_ places: [Place], reference: Coordinate?) -> String {
        var rows: [[String]] = [["#", "NAME", "CATEGORY"] + (reference == nil ? [] : ["DIST"]) + ["ADDRESS", "ID"]]
        for (n, place) in places.enumerated() {
            // "Stockholm (Tukholma)": the name that matched, when it was another one; "~" marks a typo match.
            var name = place.name
            if let matched = place.searchMatch?.matchedName { name += " (\(matched))" }
            if place.searchMatch?.fuzzy == true { name = "~" + name }
            var row = [String(n + 1), name, place.category ?? place.categories.first ?? ""]
            if let reference {
                row.append(formatDistance(GeoMath.distance(reference, place.coordinate)))
            }
            row.append(place.formattedAddress ?? place.address?.formatted ?? "")
            row.append(place.id.description)
            rows.append(row)
        }
        return render(rows: rows)
    }

    static func render(rows: [[String]]) -> String {
        let rows = rows.map { $0.map { TerminalText.safe($0) } }
        let columnCount = rows.map(\.count).max() ?? 0
        let widths = (0..<columnCount).map { column in
            min(48, rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0)
        }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let clipped = cell.count > widths[column] ? String(cell.prefix(widths[column] - 1)) + "…" : cell
                return column == row.count - 1 ? clipped : clipped.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }

    static func formatDistance(_ meters: Double) -> String {
        meters < 1_000 ? "\(Int(meters.rounded())) m" : String(format: "%.1f km", meters / 1_000)
    }
}
