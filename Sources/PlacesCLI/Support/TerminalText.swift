/// Text from files and providers made safe to print on a terminal.
///
/// A place or spot name can hold control characters (a GeoJSON import, a provider's reply): ESC starts an
/// escape sequence that recolours or clears the screen, BEL rings, CR rewrites the line so the table lies.
/// JSON output escapes them already; tables and messages show each one as a visible `\u{1B}`-style escape.
enum TerminalText {
    /// `text` with every control character (C0, DEL, C1) escaped; newlines too unless `keepingNewlines`,
    /// for multi-line text built by the program itself.
    static func safe(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) && !(keepingNewlines && $0 == "\n") }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) && !(keepingNewlines && scalar == "\n") {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `text` wrapped at spaces to lines of at most `width` columns, every line (the first too) indented by `indent`
    /// spaces; a word longer than a line (a URL) is cut into line-sized pieces rather than run past the edge.
    static func wrap(_ text: String, width: Int, indent: Int) -> String {
        let room = max(10, width - indent)
        let margin = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for var word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            if !line.isEmpty && line.count + 1 + word.count <= room {
                line += " " + word
                continue
            }
            if !line.isEmpty { lines.append(line) }
            while word.count > room {
                lines.append(String(word.prefix(room)))
                word = String(word.dropFirst(room))
            }
            line = word
        }
        lines.append(line)
        return lines.map { margin + $0 }.joined(separator: "\n")
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
