import Foundation
import FuzzTargets
import Testing

/// Every seed and every saved finding under Tests/Fuzz/Corpus goes through its fuzz target on each
/// `swift test`, in the debug build (where unsafe-buffer subscripts are bounds-checked), so a fixed crash
/// stays fixed even where no libFuzzer run happens.
@Suite("Fuzz corpus replay")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Corpus")

    @Test(arguments: FuzzTarget.allCases)
    func everyCorpusInputRunsToTheEnd(target: FuzzTarget) throws {
        let folder = Self.corpus.appendingPathComponent(target.rawValue)
        let inputs = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        #expect(!inputs.isEmpty, "no seeds in \(folder.path)")
        for input in inputs.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) {
            target.run(try Data(contentsOf: input))
        }
    }
}
