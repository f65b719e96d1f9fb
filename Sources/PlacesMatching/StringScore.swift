/// The classic `string_score` algorithm (Joshaven Potter's JavaScript original), reproduced exactly.
///
/// Users of the original expect its numbers, so this keeps its quirks: it is asymmetric, in-order and
/// case-aware. Place matching uses it only as one optional signal; see ``PlaceMatcher`` for the
/// place-aware score.
public enum StringScore {
    /// How well `word` abbreviates `string`, from 0 (no match) to 1 (identical).
    ///
    /// Without `fuzziness` (or with 0), one character of `word` missing from `string` gives 0. With a
    /// fuzziness in (0, 1], each missing character divides the score further instead.
    ///
    /// ```swift
    /// StringScore.score("hello world", "ow")  // 0.35454545454545455
    /// ```
    public static func score(_ string: String, _ word: String, fuzziness: Double? = nil) -> Double {
        if string == word { return 1 }
        if word.isEmpty { return 0 }
        // The original indexes UTF-16 code units and lower-cases the whole string; scalars with a
        // one-scalar lower-case mapping keep the two arrays aligned for every practical input.
        let original = Array(string.unicodeScalars)
        let wordOriginal = Array(word.unicodeScalars)
        let lower = original.map(lowered)
        let wordLower = wordOriginal.map(lowered)
        var runningScore = 0.0
        var fuzzies = 1.0
        var startAt = 0
        for i in 0..<wordLower.count {
            let wanted = wordLower[i]
            var found = -1
            var j = startAt
            while j < lower.count {
                if lower[j] == wanted { found = j; break }
                j += 1
            }
            if found < 0 {
                guard let fuzziness, fuzziness != 0 else { return 0 }
                fuzzies += 1 - fuzziness
                continue
            }
            var charScore: Double
            if found == startAt {
                charScore = 0.7
            } else {
                charScore = 0.1
                if original[found - 1] == " " { charScore += 0.8 }
            }
            if original[found] == wordOriginal[i] { charScore += 0.1 }
            runningScore += charScore
            startAt = found + 1
        }
        var finalScore = 0.5 * (runningScore / Double(original.count) + runningScore / Double(wordOriginal.count)) / fuzzies
        if let first = wordLower.first, let firstString = lower.first, first == firstString, finalScore < 0.85 {
            finalScore += 0.15
        }
        return finalScore
    }

    private static func lowered(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let mapping = scalar.properties.lowercaseMapping.unicodeScalars
        return mapping.count == 1 ? mapping.first! : scalar
    }
}
