import Foundation

/// Accent- and case-insensitive text, so "cafe" finds "Café" and "Kaisaniemi" equals "KAISANIEMI".
public enum TextFolding {
    /// Lower case with diacritics removed (NFKD, combining marks dropped). Letters without a
    /// decomposition (ø, ß, ł) are mapped to their common ASCII spelling.
    public static func fold(_ text: String) -> String {
        // ASCII has nothing to decompose or drop: lower case is the whole fold, without Foundation's
        // normalisation (which cost a GeoNames import with alternate names several seconds).
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        let decomposed = text.decomposedStringWithCompatibilityMapping.lowercased()
        var result = String.UnicodeScalarView()
        for scalar in decomposed.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: continue
            default: break
            }
            switch scalar {
            case "ø": result.append(contentsOf: "o".unicodeScalars)
            case "ß": result.append(contentsOf: "ss".unicodeScalars)
            case "ł": result.append(contentsOf: "l".unicodeScalars)
            case "æ": result.append(contentsOf: "ae".unicodeScalars)
            case "œ": result.append(contentsOf: "oe".unicodeScalars)
            case "đ": result.append(contentsOf: "d".unicodeScalars)
            case "\u{2019}", "\u{2018}", "\u{02BC}": result.append("'")
            default: result.append(scalar)
            }
        }
        return String(result)
    }
}
