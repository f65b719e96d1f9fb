import CSVText
import Foundation
import PlacesCore

/// One accepted pairing of a left record with a right record.
public struct MatchedPair: Sendable, Hashable {
    public var leftIndex: Int
    public var rightIndex: Int
    public var leftID: String
    public var rightID: String
    public var score: Double
    public var verdict: MatchVerdict
}

/// The pairs and how much work finding them took.
public struct MatchRun: Sendable {
    public var pairs: [MatchedPair]
    /// Candidate pairs scored; all pairs would be `left.count × right.count`.
    public var comparisons: Int

    /// What `places match` prints: `left_id,right_id,score,verdict`, a header and a row per pair.
    public func csvText() throws(InputError) -> String {
        try CSVText.text([["left_id", "right_id", "score", "verdict"]] + pairs.map { pair in
            [pair.leftID, pair.rightID, String(format: "%.4f", pair.score), pair.verdict.rawValue]
        })
    }
}

/// One-to-one matching of two lists of places: what `places match` and the saved-spots import run.
///
/// It never scores all pairs. Candidates come from blocks: a geographic grid of `maxDistance` cells
/// when both records have coordinates, shared core-name words (for records without coordinates),
/// and equal phone numbers. Scored pairs at or above the minimum score are then assigned greedily,
/// best first, each record used at most once: the rule OSM conflation tools use.
///
/// ```swift
/// let pairs = RecordMatcher().match(left: osmRecords, right: providerRecords)
/// for pair in pairs { print(pair.leftID, pair.rightID, pair.score) }
/// ```
public struct RecordMatcher: Sendable {
    public var matcher: PlaceMatcher
    /// Words found in more right records than this do not open a block by themselves (a record
    /// whose words are all that common still uses its rarest one).
    public var maxWordFrequency: Int

    public init(matcher: PlaceMatcher = PlaceMatcher(), maxWordFrequency: Int = 2_000) {
        self.matcher = matcher
        self.maxWordFrequency = maxWordFrequency
    }

    /// Matched pairs with a score at or above `minimumScore` (by default the accept threshold,
    /// so only `match` verdicts; pass the review threshold to keep `review` pairs too).
    public func match(left: [MatchRecord], right: [MatchRecord], minimumScore: Double? = nil) -> [MatchedPair] {
        run(left: matcher.prepare(left), right: matcher.prepare(right), minimumScore: minimumScore).pairs
    }

    /// The full run over prepared records; `progress(done, total)` is called from worker threads.
    public func run(left: [PreparedRecord], right: [PreparedRecord], minimumScore: Double? = nil,
                    progress: (@Sendable (Int, Int) -> Void)? = nil) -> MatchRun {
        let minimum = minimumScore ?? matcher.thresholds.accept
        let index = BlockIndex(right, cellMeters: max(matcher.thresholds.maxDistance, 1))
        let chunkSize = 512
        let chunkCount = (left.count + chunkSize - 1) / chunkSize
        // Beyond maxDistance without an equal phone or house number a pair scores below review:
        // the grid block is square, this makes it round before any text is compared.
        let pruneFar = minimum >= matcher.thresholds.review
        let maxDistance = matcher.thresholds.maxDistance
        let collector = ChunkCollector(chunks: chunkCount, total: left.count, report: progress)
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            let range = chunk * chunkSize..<min(left.count, (chunk + 1) * chunkSize)
            var seen = [Int32](repeating: -1, count: right.count)
            var candidates: [Int32] = []
            var found: [Candidate] = []
            var compared = 0
            for l in range {
                candidates.removeAll(keepingCapacity: true)
                index.candidates(for: left[l], maxWordFrequency: maxWordFrequency) { r in
                    if seen[Int(r)] != Int32(l) { seen[Int(r)] = Int32(l); candidates.append(r) }
                }
                for r in candidates {
                    if pruneFar, Self.isFar(left[l], right[Int(r)], maxDistance) { continue }
                    let (score, strength) = matcher.scoreAndStrength(left[l], right[Int(r)])
                    compared += 1
                    if score >= minimum {
                        let distance = left[l].coordinate.flatMap { a in right[Int(r)].coordinate.map { GeoMath.distance(a, $0) } }
                        found.append(Candidate(score: score, strength: strength, distance: distance ?? .infinity,
                                               left: Int32(l), right: r))
                    }
                }
            }
            collector.finish(chunk: chunk, found: found, compared: compared, records: range.count)
        }
        let (chunkResults, comparisons) = collector.results()
        var all = chunkResults.flatMap { $0 }
        // Best first; among equal scores the pair with more agreeing evidence (a venue with its own phone
        // rather than its neighbour in the building), then the nearer pair (identical names of one chain).
        all.sort {
            $0.score != $1.score ? $0.score > $1.score : $0.strength != $1.strength ? $0.strength > $1.strength
                : $0.distance != $1.distance ? $0.distance < $1.distance
                : $0.left != $1.left ? $0.left < $1.left : $0.right < $1.right
        }
        var leftUsed = [Bool](repeating: false, count: left.count)
        var rightUsed = [Bool](repeating: false, count: right.count)
        var pairs: [MatchedPair] = []
        for candidate in all where !leftUsed[Int(candidate.left)] && !rightUsed[Int(candidate.right)] {
            leftUsed[Int(candidate.left)] = true
            rightUsed[Int(candidate.right)] = true
            let l = Int(candidate.left), r = Int(candidate.right)
            pairs.append(MatchedPair(leftIndex: l, rightIndex: r, leftID: left[l].record.id, rightID: right[r].record.id,
                                     score: candidate.score, verdict: matcher.verdict(candidate.score)))
        }
        return MatchRun(pairs: pairs, comparisons: comparisons)
    }

    static func isFar(_ a: PreparedRecord, _ b: PreparedRecord, _ maxDistance: Double) -> Bool {
        guard let ca = a.coordinate, let cb = b.coordinate, GeoMath.distance(ca, cb) > maxDistance else { return false }
        if a.phoneKey != 0 && a.phoneKey == b.phoneKey { return false }
        if a.houseKey != 0 && a.houseKey == b.houseKey { return false }
        return true
    }

    struct Candidate {
        var score: Double
        var strength: Double
        var distance: Double
        var left: Int32
        var right: Int32
    }
}

/// Gathers the parallel chunks' candidates and reports progress as chunks finish.
private final class ChunkCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var found: [[RecordMatcher.Candidate]]
    private var compared = 0
    private var done = 0
    private let total: Int
    private let report: (@Sendable (Int, Int) -> Void)?

    init(chunks: Int, total: Int, report: (@Sendable (Int, Int) -> Void)?) {
        found = Array(repeating: [], count: chunks)
        self.total = total
        self.report = report
    }

    func finish(chunk: Int, found candidates: [RecordMatcher.Candidate], compared count: Int, records: Int) {
        lock.lock()
        found[chunk] = candidates
        compared += count
        done += records
        let now = done
        lock.unlock()
        report?(now, total)
    }

    func results() -> ([[RecordMatcher.Candidate]], Int) {
        lock.lock()
        defer { lock.unlock() }
        return (found, compared)
    }
}

/// The blocks of the right-hand records: grid cells, core-name words and phones.
struct BlockIndex: Sendable {
    let cellMeters: Double
    var grid: [Int64: [Int32]] = [:]
    /// Word postings of every right record, for left records without coordinates.
    var words: [UInt64: [Int32]] = [:]
    /// Word postings of right records without coordinates: with coordinates on both sides the grid
    /// is the block, so a left record with coordinates reaches only these through its words.
    var wordsWithoutCoordinate: [UInt64: [Int32]] = [:]
    var phones: [UInt64: [Int32]] = [:]

    init(_ records: [PreparedRecord], cellMeters: Double) {
        self.cellMeters = cellMeters
        for (i, record) in records.enumerated() {
            let id = Int32(i)
            if let c = record.coordinate {
                let (x, y) = Self.cell(c, cellMeters)
                grid[Self.key(x, y), default: []].append(id)
            } else {
                for word in record.words { wordsWithoutCoordinate[word.hash, default: []].append(id) }
            }
            for word in record.words { words[word.hash, default: []].append(id) }
            if record.phoneKey != 0 { phones[record.phoneKey, default: []].append(id) }
        }
    }

    static func cell(_ c: Coordinate, _ size: Double) -> (Int64, Int64) {
        let metresPerDegree = 111_320.0
        let y = c.latitude * metresPerDegree / size
        let x = c.longitude * metresPerDegree * cos(c.latitude * .pi / 180) / size
        return (Int64(x.rounded(.down)), Int64(y.rounded(.down)))
    }

    static func key(_ x: Int64, _ y: Int64) -> Int64 { (x << 32) ^ (y & 0xFFFF_FFFF) }

    /// Calls `visit` with every candidate (possibly more than once).
    func candidates(for record: PreparedRecord, maxWordFrequency: Int, _ visit: (Int32) -> Void) {
        let wordIndex: [UInt64: [Int32]]
        if let c = record.coordinate {
            let (x, y) = Self.cell(c, cellMeters)
            for dx in Int64(-1)...1 { for dy in Int64(-1)...1 { grid[Self.key(x + dx, y + dy)]?.forEach(visit) } }
            wordIndex = wordsWithoutCoordinate
        } else {
            wordIndex = words
        }
        if !wordIndex.isEmpty {
            var rarest: [Int32]?
            var usedWord = false
            for word in record.words {
                guard let postings = wordIndex[word.hash] else { continue }
                if postings.count > maxWordFrequency {
                    if rarest == nil || postings.count < rarest!.count { rarest = postings }
                    continue
                }
                usedWord = true
                postings.forEach(visit)
            }
            if !usedWord, let rarest { rarest.forEach(visit) }
        }
        if record.phoneKey != 0 { phones[record.phoneKey]?.forEach(visit) }
    }
}
