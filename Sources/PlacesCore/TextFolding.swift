import Foundation

/// Accent- and case-insensitive text, so "cafe" finds "Café" and "Kaisaniemi" equals "KAISANIEMI".
public enum TextFolding {
    /// Lower case with diacritics removed (NFKD, combining marks dropped). Letters without a
    /// decomposition (ø, ß, ł) are mapped to their common ASCII spelling.
    public static func fold(_ text: String) -> String {
        // ASCII has nothing to decompose or drop: lower case is the whole fold, without Foundation's
        // normalisation (which cost a GeoNames import with alternate names several seconds).
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        // Latin text (most names GeoNames and OSM hold) folds scalar by scalar from a table: NFKD works
        // per character, and a precomposed Latin letter has no marks of its own to reorder.
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard latinFolds.append(scalar, to: &result) else { return foldedSlowly(text) }
        }
        return String(result)
    }

    /// The fold of any text, through Foundation's compatibility decomposition.
    static func foldedSlowly(_ text: String) -> String {
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

    /// ``foldedSlowly(_:)`` of each scalar of Basic Latin, Latin-1, Latin Extended-A and -B and Latin
    /// Extended Additional (plus the two quotation marks the fold turns into apostrophes), computed once.
    private static let latinFolds = ScalarFolds()

    struct ScalarFolds: Sendable {
        static let ranges: [ClosedRange<UInt32>] = [0x0000...0x024F, 0x1E00...0x1EFF, 0x2018...0x2019]
        /// Every scalar's fold, one after the other, and where each begins: one flat array, so folding a
        /// name copies scalars instead of retaining and releasing an array per character.
        private let scalars: [Unicode.Scalar]
        private let starts: [Int32]

        init() {
            var scalars: [Unicode.Scalar] = []
            var starts: [Int32] = []
            for range in Self.ranges {
                for value in range {
                    starts.append(Int32(scalars.count))
                    scalars += TextFolding.foldedSlowly(String(Character(Unicode.Scalar(value)!))).unicodeScalars
                }
            }
            starts.append(Int32(scalars.count))
            self.scalars = scalars
            self.starts = starts
        }

        /// Appends `scalar`'s fold to `result`; `false` (and nothing appended) when the scalar is outside the
        /// table's ranges.
        func append(_ scalar: Unicode.Scalar, to result: inout String.UnicodeScalarView) -> Bool {
            var offset = 0
            for range in Self.ranges {
                if range.contains(scalar.value) {
                    let index = offset + Int(scalar.value - range.lowerBound)
                    for i in Int(starts[index])..<Int(starts[index + 1]) { result.append(scalars[i]) }
                    return true
                }
                offset += range.count
            }
            return false
        }
    }
}
