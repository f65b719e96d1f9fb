import Foundation
import Testing
@testable import PlacesMatching

/// The two labelled sets, each matched one-to-one by `RecordMatcher` and checked against its truth file.
///
/// - Helsinki: real OSM names (left) against the same places perturbed the way other providers list
///   them, plus chain branches and similar-named neighbours (right), all with coordinates. Built by
///   `bench/matching_fixture.py`.
/// - US/UK: invented listings as two guide publishers print them, without coordinates: street types,
///   ordinals, suites, phone formats, city qualifiers, inverted articles, taglines, hotel venues, and
///   hard negatives (generic-word decoys, same-name venues of other kinds, sub-venues, branches).
///   Built by `bench/matching_usuk_fixture.py`.
@Suite struct LabelledSetTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    struct Quality {
        var found: Int, truePositives: Int, truth: Int, comparisons: Int
        var precision: Double { Double(truePositives) / Double(max(1, found)) }
        var recall: Double { Double(truePositives) / Double(max(1, truth)) }
        var f1: Double { 2 * precision * recall / max(1e-9, precision + recall) }
    }

    static func measure(_ folder: URL, region: String?) throws -> (Quality, left: Int, right: Int) {
        let left = try RecordFile.read(folder.appendingPathComponent("left.csv")).records
        let right = try RecordFile.read(folder.appendingPathComponent("right.csv")).records
        let truthText = try String(contentsOf: folder.appendingPathComponent("truth.csv"), encoding: .utf8)
        let truth = Set(truthText.split(separator: "\n").dropFirst().map(String.init))
        let matcher = PlaceMatcher(thresholds: MatchThresholds(defaultRegion: region))
        let run = RecordMatcher(matcher: matcher).run(left: matcher.prepare(left), right: matcher.prepare(right))
        let found = Set(run.pairs.map { "\($0.leftID),\($0.rightID)" })
        let quality = Quality(found: found.count, truePositives: found.intersection(truth).count, truth: truth.count,
                              comparisons: run.comparisons)
        print("\(folder.lastPathComponent): \(quality.found) pairs, \(quality.truePositives) true of \(quality.truth); "
              + "precision \(quality.precision) recall \(quality.recall) f1 \(quality.f1); \(run.comparisons) comparisons")
        return (quality, left.count, right.count)
    }

    @Test func helsinkiSetReachesTheTargetPrecisionAndRecall() throws {
        let (quality, left, right) = try Self.measure(Self.fixtures, region: nil)
        #expect(left > 1_000 && quality.truth > 1_000)
        #expect(quality.precision >= 0.99)
        #expect(quality.recall >= 0.99)
        #expect(quality.comparisons < left * right / 10, "blocking must avoid comparing all pairs")
    }

    @Test func publisherSetWithoutCoordinatesReachesTheTargetF1() throws {
        let (quality, left, right) = try Self.measure(Self.fixtures.appendingPathComponent("usuk"), region: "US")
        #expect(quality.truth >= 1_000 && right - quality.truth >= 400, "at least 1,000 pairs and 400 hard negatives")
        #expect(quality.f1 >= 0.99)
        #expect(quality.precision >= 0.99)
        #expect(quality.comparisons < left * right / 10, "blocking must avoid comparing all pairs")
    }
}
