/// `--help` laid out for the terminal. ArgumentParser wraps a help's prose to the width (`COLUMNS`, else the
/// terminal's), but prints the USAGE synopsis on one line however long: `places spots edit` ran to 225 columns.
enum HelpLayout {
    /// `help` with its USAGE line wrapped to `width` between whole argument groups (`[--note <note>]` never splits),
    /// continuation lines indented under the command; every other line as it was.
    static func fitted(_ help: String, width: Int) -> String {
        help.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let label = "USAGE: "
            guard line.hasPrefix(label), line.count > width else { return String(line) }
            var lines: [String] = []
            var current = label
            for group in synopsisGroups(line.dropFirst(label.count)) {
                if current.count > label.count, current.count + 1 + group.count > width {
                    lines.append(current)
                    current = String(repeating: " ", count: label.count) + group
                } else {
                    current += (current.count > label.count ? " " : "") + group
                }
            }
            lines.append(current)
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// The words of a synopsis with brackets kept whole, and a repetition mark (`...`) kept with what it repeats.
    static func synopsisGroups(_ synopsis: Substring) -> [String] {
        var groups: [String] = []
        var current = ""
        var depth = 0
        func flush() {
            if current == "...", !groups.isEmpty { groups[groups.count - 1] += " ..." } else if !current.isEmpty { groups.append(current) }
            current = ""
        }
        for character in synopsis {
            if character == " ", depth == 0 { flush(); continue }
            if character == "[" || character == "<" { depth += 1 } else if character == "]" || character == ">" { depth = max(0, depth - 1) }
            current.append(character)
        }
        flush()
        return groups
    }
}
