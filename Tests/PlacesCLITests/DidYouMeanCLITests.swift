import Foundation
import Testing

/// A mistyped subcommand gets one line naming the nearest real one, at any depth.
@Suite struct DidYouMeanCLITests {
    @Test(arguments: [
        (["serch", "maya bar"], "unknown command 'serch': did you mean `places search`?"),
        (["spots", "lsit"], "unknown command 'lsit': did you mean `places spots list`?"),
        (["spots", "visits", "rn", "7c1d"], "unknown command 'rn': did you mean `places spots visits rm`?"),
        (["budegt"], "unknown command 'budegt': did you mean `places budget`?"),
    ])
    func aTypoGetsTheNearestCommand(_ arguments: [String], _ expected: String) throws {
        let result = try CLIHarness.shared.run(arguments: arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(expected), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test func aWordFarFromEveryCommandKeepsTheParsersMessage() throws {
        let result = try CLIHarness.shared.run("xylophone")
        #expect(result.status == 2)
        #expect(!result.stderr.contains("did you mean"), "\(result.stderr)")
    }
}
