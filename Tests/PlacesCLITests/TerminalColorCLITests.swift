import Foundation
import Testing

/// Colour goes to a terminal only: piped output stays plain text, `--color always` forces it (for `less -R`),
/// `--color never` and `NO_COLOR` (any non-empty value, https://no-color.org) turn it off on a terminal.
@Suite struct TerminalColorCLITests {
    static let escape = "\u{1B}["
    let cli = CLIHarness.shared
    static let search = ["search", "cafe", "--near", "60.1699,24.9384", "--limit", "3"]

    func onATerminal(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (status: Int32, screen: String) {
        try cli.runOnATerminal(arguments: arguments, environment: ["COLUMNS": "100"].merging(extra) { $1 })
    }

    @Test func pipedOutputHasNoEscapeCodes() throws {
        for command in [Self.search, ["providers"], ["budget"], ["index"]] {
            let result = try cli.run(arguments: command)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(!result.stdoutText.isEmpty && !result.stdoutText.contains(Self.escape), "\(command): \(result.stdoutText)")
        }
    }

    @Test func colorAlwaysColoursEvenIntoAPipeAndBeatsNoColor() throws {
        for environment in [[:], ["NO_COLOR": "1"]] {
            let result = try cli.run(arguments: Self.search + ["--color", "always"], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            // The header row is bold (ESC [ 1 m), the rows that follow are plain.
            #expect(result.stdoutText.hasPrefix("\u{1B}[1m#"), "\(environment): \(result.stdoutText)")
            #expect(result.stdoutText.split(separator: "\n").dropFirst().allSatisfy { !$0.contains(Self.escape) })
        }
        let providers = try cli.run("providers", "--color", "always")
        #expect(providers.stdoutText.contains(Self.escape), "\(providers.stdoutText)")
    }

    @Test func aTerminalGetsColourUnlessNoColorOrNever() throws {
        let plain = try onATerminal(Self.search)
        #expect(plain.status == 0, "\(plain.screen)")
        #expect(plain.screen.contains("\u{1B}[1m#"), "\(plain.screen)")
        // NO_COLOR with any non-empty value wins over the default `auto`; an empty one does not count.
        let noColor = try onATerminal(Self.search, environment: ["NO_COLOR": "yes"])
        #expect(noColor.status == 0 && noColor.screen.contains("NAME"), "\(noColor.screen)")
        #expect(!noColor.screen.contains(Self.escape), "\(noColor.screen)")
        let emptyNoColor = try onATerminal(Self.search, environment: ["NO_COLOR": ""])
        #expect(emptyNoColor.screen.contains(Self.escape), "\(emptyNoColor.screen)")
        let never = try onATerminal(Self.search + ["--color", "never"])
        #expect(never.status == 0 && never.screen.contains("NAME") && !never.screen.contains(Self.escape), "\(never.screen)")
    }

    @Test func providersProseWrapsToTheTerminal() throws {
        let result = try cli.run("providers", environment: ["COLUMNS": "44", "YELP_API_KEY": ""])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 44 }, "\(result.stdoutText)")
        // A wrapped line continues under its label, not at the left edge.
        #expect(lines.contains { $0.hasPrefix("  why:    ") }, "\(result.stdoutText)")
        #expect(lines.contains { $0.hasPrefix("          ") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }, "\(result.stdoutText)")
        // Nothing is lost: the reason still says what to set.
        #expect(result.stdoutText.replacingOccurrences(of: "\n          ", with: " ").contains("set YELP_API_KEY"), "\(result.stdoutText)")
    }

    @Test func anUnknownColorChoiceIsOneLine() throws {
        let result = try cli.run(arguments: Self.search + ["--color", "sometimes"])
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("never"), "\(result.stderr)")
    }
}
