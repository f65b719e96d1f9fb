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

    /// The inputs run on a thread of their own, as under libFuzzer: a target that waits for async work
    /// (the `command` target's spot commands) must not hold one of the few cooperative-pool threads that
    /// the work it waits for, and every other suite, need.
    @Test(arguments: FuzzTarget.allCases)
    func everyCorpusInputRunsToTheEnd(target: FuzzTarget) async throws {
        let folder = Self.corpus.appendingPathComponent(target.rawValue)
        let inputs = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .sorted(by: { $0.lastPathComponent < $1.lastPathComponent })
            .map { try Data(contentsOf: $0) }
        #expect(!inputs.isEmpty, "no seeds in \(folder.path)")
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            Thread {
                for input in inputs { target.run(input) }
                finished.resume()
            }.start()
        }
    }
}
