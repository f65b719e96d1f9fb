import Foundation
import Testing
@testable import PlacesMatching

/// The labelled Helsinki set: real OSM names (left) against the same places perturbed the way other
/// providers list them, plus chain branches and similar-named neighbours (right). Built by
/// `bench/matching_fixture.py`.
@Suite struct LabelledSetTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    @Test func recordMatcherReachesTheTargetPrecisionAndRecall() throws {
        let left = try RecordFile.read(Self.fixtures.appendingPathComponent("left.csv")).records
        let right = try RecordFile.read(Self.fixtures.appendingPathComponent("right.csv")).records
        let truthText = try String(contentsOf: Self.fixtures.appendingPathComponent("truth.csv"), encoding: .utf8)
        let truth = Set(truthText.split(separator: "\n").dropFirst().map(String.init))
        #expect(left.count > 1_000 && truth.count > 1_000)

        let run = RecordMatcher().run(left: left.map(PlaceMatcher().prepare), right: right.map(PlaceMatcher().prepare))
        let found = Set(run.pairs.map { "\($0.leftID),\($0.rightID)" })
        let truePositives = found.intersection(truth).count
        let precision = Double(truePositives) / Double(max(1, found.count))
        let recall = Double(truePositives) / Double(truth.count)
        print("labelled set: \(found.count) pairs, \(truePositives) true of \(truth.count); precision \(precision) recall \(recall); \(run.comparisons) comparisons")
        #expect(precision >= 0.98)
        #expect(recall >= 0.95)
        #expect(run.comparisons < left.count * right.count / 10, "blocking must avoid comparing all pairs")
    }
}
