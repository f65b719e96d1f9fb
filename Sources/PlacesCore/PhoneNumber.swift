import Foundation

/// Phone numbers reduced to E.164 (`+3589123456`), so "310/246-1501" and "+1 310-246-1501" compare equal.
///
/// This is deliberately not a full numbering-plan library: it knows each region's calling code and
/// national trunk prefix, which is what comparing two listings of the same business needs.
public enum PhoneNumber {
    /// Calling code and trunk prefix by ISO region.
    static let regions: [String: (code: String, trunk: String?)] = [
        "US": ("1", "1"), "CA": ("1", "1"), "GB": ("44", "0"), "IE": ("353", "0"), "FI": ("358", "0"),
        "SE": ("46", "0"), "NO": ("47", nil), "DK": ("45", nil), "EE": ("372", nil), "DE": ("49", "0"),
        "FR": ("33", "0"), "NL": ("31", "0"), "BE": ("32", "0"), "ES": ("34", nil), "PT": ("351", nil),
        "IT": ("39", nil), "CH": ("41", "0"), "AT": ("43", "0"), "PL": ("48", nil), "CZ": ("420", nil),
        "RU": ("7", "8"), "JP": ("81", "0"), "CN": ("86", "0"), "KR": ("82", "0"), "IN": ("91", "0"),
        "AU": ("61", "0"), "NZ": ("64", "0"), "BR": ("55", "0"), "MX": ("52", nil), "AR": ("54", "0"),
        "ZA": ("27", "0"), "SG": ("65", nil), "HK": ("852", nil), "TR": ("90", "0"), "IL": ("972", "0"),
        "AE": ("971", "0"), "GR": ("30", nil), "HU": ("36", "06"), "LV": ("371", nil), "LT": ("370", "8"),
        "IS": ("354", nil), "UA": ("380", "0"), "TH": ("66", "0"), "ID": ("62", "0"), "PH": ("63", "0"),
    ]

    /// The E.164 form of `raw`, or `nil` when it has too few digits to be a phone number.
    ///
    /// A number written with `+` or `00` is international; otherwise it is read as national in
    /// `defaultRegion` (its trunk prefix dropped). Without a region, a national number cannot be
    /// placed, and `nil` is returned.
    public static func e164(_ raw: String, defaultRegion: String? = nil) -> String? {
        if let ascii = asciiDigits(raw) { return e164(digits: ascii.digits, international: ascii.international, defaultRegion: defaultRegion) }
        // Extensions ("ext. 12", "x12") are not part of the number.
        var text = raw.lowercased()
        for marker in extensionMarkers {
            if let range = text.range(of: marker) { text = String(text[..<range.lowerBound]) }
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return e164(digits: trimmed.filter(\.isASCII).filter(\.isNumber), international: trimmed.hasPrefix("+"), defaultRegion: defaultRegion)
    }

    /// Where an extension begins, in lower case: the number ends before the first of them.
    private static let extensionMarkers = ["ext", " x", "#"]

    /// What ``e164(_:defaultRegion:)`` reads from an ASCII `raw` (nearly every number), byte by byte: its digits before
    /// any extension and whether it starts with `+` once trimmed of spaces and tabs, exactly as the general path
    /// finds them. That path bridges the text through `NSString` three or four times, a second of CPU per
    /// million numbers and, in an extract's import, on the thread that writes SQLite. `nil` for other text.
    private static func asciiDigits(_ raw: String) -> (digits: String, international: Bool)? {
        var bytes = Array(raw.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        for i in bytes.indices where (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[i]) { bytes[i] += 0x20 }
        var end = bytes.count
        for marker in extensionMarkers {
            let pattern = Array(marker.utf8)
            if let start = bytes[..<end].indices.first(where: { bytes[..<end][$0...].starts(with: pattern) }) { end = start }
        }
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let first = bytes[..<end].firstIndex { !isSpace($0) } ?? end
        let digits = bytes[first..<end].filter { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        return (String(decoding: digits, as: UTF8.self), first < end && bytes[first] == UInt8(ascii: "+"))
    }

    private static func e164(digits: String, international: Bool, defaultRegion: String?) -> String? {
        var digits = digits
        if international || digits.hasPrefix("00") {
            if !international { digits.removeFirst(2) }
            digits = droppingTrunkAfterCountryCode(digits)
            return (8...15).contains(digits.count) ? "+" + digits : nil
        }
        guard let region = defaultRegion?.uppercased(), let plan = regions[region] else { return nil }
        if let trunk = plan.trunk, digits.hasPrefix(trunk), !(plan.code == "1" && digits.count == 10) {
            digits.removeFirst(trunk.count)
        }
        guard digits.count >= 5 else { return nil }
        let number = plan.code + digits
        return number.count <= 15 ? "+" + number : nil
    }

    /// The calling code of an ISO region ("FI" → "358"), when the table knows it.
    public static func callingCode(region: String) -> String? {
        regions[region.uppercased()]?.code
    }

    /// The calling code an E.164 number starts with ("+358912345" → "358"), when the table knows it.
    public static func callingCode(e164 number: String) -> String? {
        let digits = number.drop { $0 == "+" }
        return callingCodesLongestFirst.first { digits.hasPrefix($0) }
    }

    private static let callingCodesLongestFirst: [String] = Array(Set(regions.values.map(\.code))).sorted { $0.count > $1.count }

    /// "+358 09 …" and "+44 (0)20 …" are common ways of writing a number: the national trunk "0" stays
    /// after the country code, where E.164 has none. Only countries whose trunk prefix is "0" qualify
    /// (Italy keeps its leading 0, and has no trunk prefix in the table).
    private static func droppingTrunkAfterCountryCode(_ digits: String) -> String {
        for code in trunkZeroCountryCodes where digits.hasPrefix(code + "0") {
            return code + digits.dropFirst(code.count + 1)
        }
        return digits
    }

    private static let trunkZeroCountryCodes: [String] = Array(Set(regions.values.filter { $0.trunk == "0" }.map(\.code)))
        .sorted { $0.count > $1.count }
}
