import Foundation

/// String measures over small integer codes, written for the matcher's inner loop: no heap
/// allocation, and bit-parallel LCS (Hyyrö 2004) so a 64-character comparison costs one pass.
///
/// Normalised text is encoded once per record (``TextCode/encode(_:)``) into a 64-letter alphabet:
/// space, a–z, 0–9, and the remaining letters folded into 27 buckets. Buckets can make two different
/// non-Latin letters look alike; that is a small price for a pattern table that fits in 512 bytes.
enum TextCode {
    static let space: UInt8 = 0
    static let alphabetSize = 64

    static func encode(_ normalized: String) -> [UInt8] {
        normalized.unicodeScalars.map(code)
    }

    /// The same codes: lengths, then the bytes with `memcmp` (the generic `elementsEqual` goes element by element).
    @inline(__always)
    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let x = a.baseAddress, let y = b.baseAddress else { return true }
        return memcmp(x, y, a.count) == 0
    }

    @inline(__always)
    static func isDigit(_ code: UInt8) -> Bool { (27...36).contains(code) }

    @inline(__always)
    static func code(_ scalar: Unicode.Scalar) -> UInt8 {
        switch scalar.value {
        case 0x20: return space
        case 0x61...0x7A: return UInt8(scalar.value - 0x61 + 1)
        case 0x30...0x39: return UInt8(scalar.value - 0x30 + 27)
        default: return UInt8(37 + scalar.value % 27)
        }
    }
}

enum EditDistance {
    /// Length of the longest common subsequence.
    static func lcs(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let (pattern, text) = a.count <= b.count ? (a, b) : (b, a)
        if pattern.isEmpty { return 0 }
        let blocks = (pattern.count + 63) / 64
        if blocks == 1 { return lcsShort(pattern, text) }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: TextCode.alphabetSize * blocks) { table in
            table.initialize(repeating: 0)
            for (i, c) in pattern.enumerated() {
                table[Int(c) * blocks + i / 64] |= 1 << UInt64(i % 64)
            }
            return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: blocks) { state in
                state.initialize(repeating: .max)
                for c in text {
                    var carry: UInt64 = 0
                    for w in 0..<blocks {
                        let s = state[w]
                        let u = s & table[Int(c) * blocks + w]
                        let (sum1, overflow1) = s.addingReportingOverflow(u)
                        let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
                        carry = (overflow1 || overflow2) ? 1 : 0
                        state[w] = sum2 | (s &- u)
                    }
                }
                var total = 0
                for w in 0..<blocks {
                    let bits = min(64, pattern.count - w * 64)
                    let mask = bits == 64 ? UInt64.max : (1 << UInt64(bits)) - 1
                    total += (~state[w] & mask).nonzeroBitCount
                }
                return total
            }
        }
    }

    /// ``lcs(_:_:)`` for a pattern of at most 64 codes (almost every name and street): one word of state. Only the
    /// table rows of codes in the pattern are written (the first occurrence sets its row, later ones add their
    /// bit), and a code of the text that the pattern lacks reads one zero row, so the 512-byte table is never
    /// cleared as a whole.
    @inline(__always)
    private static func lcsShort(_ pattern: UnsafeBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>) -> Int {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: TextCode.alphabetSize + 1) { buffer in
            let table = buffer.baseAddress!
            let absent = TextCode.alphabetSize
            table[absent] = 0
            var present: UInt64 = 0
            var bit: UInt64 = 1
            for c in pattern {
                let code = Int(c)
                if present & (1 &<< UInt64(code)) != 0 { table[code] |= bit } else { table[code] = bit }
                present |= 1 &<< UInt64(code)
                bit &<<= 1
            }
            var s = UInt64.max
            for c in text {
                let u = s & table[(present &>> UInt64(c)) & 1 != 0 ? Int(c) : absent]
                s = (s &+ u) | (s &- u)
            }
            let mask = pattern.count == 64 ? UInt64.max : (1 &<< UInt64(pattern.count)) &- 1
            return (~s & mask).nonzeroBitCount
        }
    }

    /// RapidFuzz's `ratio` on a 0…1 scale: 1 − Indel/(len a + len b), which is 2·LCS/(len a + len b).
    static func ratio(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Double {
        let total = a.count + b.count
        if total == 0 { return 1 }
        return Double(2 * lcs(a, b)) / Double(total)
    }

    static func ratio(_ a: [UInt8], _ b: [UInt8]) -> Double {
        a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in ratio(pa, pb) } }
    }

    /// Jaro–Winkler with prefix weight 0.1 over at most four characters, applied when Jaro > 0.7.
    static func jaroWinkler(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Double {
        if a.isEmpty && b.isEmpty { return 1 }
        if a.isEmpty || b.isEmpty { return 0 }
        let window = max(0, max(a.count, b.count) / 2 - 1)
        return withUnsafeTemporaryAllocation(of: Bool.self, capacity: a.count + b.count) { flags in
            flags.initialize(repeating: false)
            var matches = 0
            for i in 0..<a.count {
                let lo = max(0, i - window), hi = min(b.count - 1, i + window)
                if lo > hi { continue }
                for j in lo...hi where !flags[a.count + j] && a[i] == b[j] {
                    flags[i] = true
                    flags[a.count + j] = true
                    matches += 1
                    break
                }
            }
            if matches == 0 { return 0 }
            var transpositions = 0
            var j = 0
            for i in 0..<a.count where flags[i] {
                while !flags[a.count + j] { j += 1 }
                if a[i] != b[j] { transpositions += 1 }
                j += 1
            }
            let m = Double(matches)
            let jaro = (m / Double(a.count) + m / Double(b.count) + (m - Double(transpositions / 2)) / m) / 3
            guard jaro > 0.7 else { return jaro }
            var prefix = 0
            while prefix < min(4, a.count, b.count), a[prefix] == b[prefix] { prefix += 1 }
            return jaro + Double(prefix) * 0.1 * (1 - jaro)
        }
    }

    static func jaroWinkler(_ a: [UInt8], _ b: [UInt8]) -> Double {
        a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in jaroWinkler(pa, pb) } }
    }
}
