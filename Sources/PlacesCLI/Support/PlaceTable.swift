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
            var row = [String(n + 1), name, words(place.categoryLabel ?? "")]
            if let reference {
                row.append(formatDistance(GeoMath.distance(reference, place.coordinate)))
            }
            row.append(place.formattedAddress ?? place.address?.formatted ?? "")
            row.append(place.id.description)
            rows.append(row)
        }
        return render(rows: rows)
    }

    /// Renders `rows` (the first is the header) to fit `width` columns. Too-wide cells are cut with `…`, the widest
    /// column first, down to its floor (its header or 6 characters; an `ID` column is never cut, so it stays
    /// copyable); a table that still does not fit is stacked, one `HEADER  value` line per cell and a blank line
    /// between rows, rather than left to wrap. `header: false` is for label/value lists, whose first row is data.
    static func render(rows: [[String]], header hasHeader: Bool = true, width: Int = TerminalWidth.current) -> String {
        let rows = rows.map { $0.map { TerminalText.safe($0) } }
        guard !rows.isEmpty else { return "" }
        let header = hasHeader ? rows[0] : []
        let columnCount = rows.map(\.count).max() ?? 0
        var widths = (0..<columnCount).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        let floors = (0..<columnCount).map { column -> Int in
            let title = column < header.count ? header[column] : ""
            return title == "ID" ? widths[column] : min(widths[column], max(6, title.count))
        }
        let gaps = 2 * max(0, columnCount - 1)
        while widths.reduce(0, +) + gaps > width,
              let widest = widths.indices.filter({ widths[$0] > floors[$0] }).max(by: { widths[$0] < widths[$1] }) {
            widths[widest] -= 1
        }
        guard widths.reduce(0, +) + gaps <= width || !hasHeader else { return stacked(rows, width: width) }
        return rows.enumerated().map { index, row in
            let line = row.enumerated().map { column, cell in
                let clipped = clip(cell, to: widths[column])
                return column == row.count - 1 ? clipped : clipped.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingTrailingSpaces
            return hasHeader && index == 0 ? TerminalColor.header(line) : line
        }.joined(separator: "\n") + "\n"
    }

    /// One record per row, each cell on its own line under the header's name: how a table too wide for the terminal
    /// (many money columns in `budget`) stays readable.
    static func stacked(_ rows: [[String]], width: Int) -> String {
        guard let header = rows.first else { return "" }
        let labelWidth = min(header.map(\.count).max() ?? 0, max(1, width / 3))
        return rows.dropFirst().map { row in
            row.enumerated().map { column, cell in
                let label = clip(column < header.count ? header[column] : "", to: labelWidth)
                    .padding(toLength: labelWidth, withPad: " ", startingAt: 0)
                return (TerminalColor.header(label) + "  " + clip(cell, to: max(1, width - labelWidth - 2))).trimmingTrailingSpaces
            }.joined(separator: "\n")
        }.joined(separator: "\n\n") + "\n"
    }

    /// `text` cut to `width` characters, the last one `…` when anything was cut.
    static func clip(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        return width <= 1 ? String(text.prefix(width)) : String(text.prefix(width - 1)) + "…"
    }

    /// A category as people read it: `bicycle_rental` → `bicycle rental` (JSON and `--category` keep the key).
    static func words(_ category: String) -> String {
        category.replacing(ascii: "_", with: " ")
    }

    static func formatDistance(_ meters: Double) -> String {
        meters < 1_000 ? "\(Int(meters.rounded())) m" : String(format: "%.1f km", meters / 1_000)
    }
}

/// How many columns a table may use: `COLUMNS` when set, else the terminal's width, else 80.
enum TerminalWidth {
    static var current: Int {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text.trimmingCharacters(in: .whitespaces)),
           columns > 0 {
            return max(20, columns)
        }
        var size = winsize()
        if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
