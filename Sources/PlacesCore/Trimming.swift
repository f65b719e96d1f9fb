extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (what `CharacterSet.whitespaces` holds: tab and
    /// every Unicode space separator), scalar by scalar: Foundation's `trimmingCharacters(in:)` bridges each
    /// string through `NSString`, which was a tenth of an extract's import.
    public var trimmedOfSpaces: String {
        // Most text neither starts nor ends with a space: its first and last bytes tell, when ASCII, without
        // decoding scalars.
        let plainEnds = utf8.withContiguousStorageIfAvailable { bytes in
            guard let first = bytes.first, let last = bytes.last else { return false }
            return first < 0x80 && last < 0x80 && first != UInt8(ascii: " ") && first != UInt8(ascii: "\t")
                && last != UInt8(ascii: " ") && last != UInt8(ascii: "\t")
        }
        if plainEnds == true { return String(self) }
        let scalars = unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return "" }
        if !Self.isSpace(first), !Self.isSpace(last) { return String(self) }
        guard let start = scalars.firstIndex(where: { !Self.isSpace($0) }),
              let end = scalars.lastIndex(where: { !Self.isSpace($0) })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[start...end]))
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == " " || (scalar.value >= 0x80 && scalar.properties.generalCategory == .spaceSeparator)
    }
}

extension String {
    /// The text with every `old` replaced by `new`, both ASCII ("shoe_repair" → "shoe repair"), byte by
    /// byte: an ASCII byte never occurs inside another character's UTF-8. Foundation's
    /// `replacingOccurrences(of:with:)` bridges through `NSString`, a few percent of an extract's import.
    public func replacing(ascii old: Unicode.Scalar, with new: Unicode.Scalar) -> String {
        precondition(old.isASCII && new.isASCII, "replacing(ascii:with:) takes ASCII characters")
        let oldByte = UInt8(old.value), newByte = UInt8(new.value)
        guard utf8.contains(oldByte) else { return self }
        return String(decoding: utf8.map { $0 == oldByte ? newByte : $0 }, as: UTF8.self)
    }
}
