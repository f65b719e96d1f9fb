import Foundation

/// A seeded generator, so every run of a suite measures the same data and asks the same questions.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// The nearest-rank percentile of samples sorted ascending: one definition for every suite, so their
/// p50s and p99s compare.
func percentile(_ sorted: [Double], _ percent: Int) -> Double {
    sorted[min(sorted.count - 1, sorted.count * percent / 100)]
}
