import Foundation
import LoopbackSocket
import ScratchDirectory
import Testing

/// Help as a terminal shows it: the argument parser wraps the prose to the width, so the sources hold paragraphs
/// unbroken; and the manual page generated from the same commands names each of them.
@Suite struct HelpTextCLITests {
    let cli = CLIHarness.shared

    /// Every command path, found by walking `--help` from the top.
    func commandPaths() throws -> [[String]] {
        var pending = [[String]()], paths: [[String]] = []
        while let path = pending.popLast() {
            paths.append(path)
            let help = try cli.run(arguments: path + ["--help"]).stdoutText
            pending += EveryCommandCLITests.subcommands(in: help).filter { $0 != "help" }.map { path + [$0] }
        }
        return paths
    }

    @Test func everyHelpFitsEightyColumns() throws {
        let paths = try commandPaths()
        #expect(paths.count > 30)
        for path in paths {
            let result = try cli.run(arguments: path + ["--help"], environment: ["COLUMNS": "80"])
            #expect(result.status == 0)
            for line in result.stdoutText.split(separator: "\n") where line.count > 80 {
                Issue.record("places \(path.joined(separator: " ")) --help: \(line.count) columns: \(line)")
            }
        }
        // The USAGE line too, wrapped between whole options.
        let edit = try cli.run("spots", "edit", "--help", environment: ["COLUMNS": "80"]).stdoutText
        #expect(edit.contains("USAGE: places spots edit <id> [--name <name>]"), "\(edit)")
        #expect(edit.contains("\n       [--"), "\(edit)")
    }

    /// A paragraph broken by hand shows as ragged lines at any other width. Lines of examples, lists and tables
    /// are meant to break; prose runs on with a trailing backslash (Swift's line continuation).
    @Test func helpSourcesDoNotBreakParagraphsByHand() throws {
        let sources = CLIHarness.repositoryRoot.appendingPathComponent("Sources/PlacesCLI")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 10)
        let lowercaseEnd = try Regex("[a-z]+[,;]?$"), lowercaseStart = try Regex("^[a-z]")
        func isExampleOrList(_ line: Substring) -> Bool {
            line.hasPrefix("places ") || line.contains("  #") || line.hasPrefix("- ") || line.hasPrefix("$ ")
        }
        var broken: [String] = []
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            var inString = false
            var paragraphIndent = 0
            func indent(_ line: Substring) -> Int { line.prefix { $0 == " " }.count }
            for (index, line) in lines.enumerated() {
                if line.components(separatedBy: "\"\"\"").count == 2 {
                    inString.toggle()
                    if inString, index + 1 < lines.count { paragraphIndent = indent(lines[index + 1]) }
                    continue
                }
                guard inString, index + 1 < lines.count else { continue }
                let current = line.trimmingCharacters(in: .whitespaces), next = lines[index + 1].trimmingCharacters(in: .whitespaces)
                // Lines indented under the paragraph are examples, lists and tables.
                guard !current.hasSuffix("\\"), !next.contains("\"\"\""), indent(line) == paragraphIndent,
                      indent(lines[index + 1]) == paragraphIndent, !isExampleOrList(Substring(current)),
                      !isExampleOrList(Substring(next)) else { continue }
                if current.contains(lowercaseEnd), next.contains(lowercaseStart) {
                    broken.append("\(file.lastPathComponent):\(index + 1): …\(current.suffix(30)) ⏎ \(next.prefix(30))…")
                }
            }
        }
        #expect(broken.isEmpty, "paragraphs broken by hand:\n\(broken.joined(separator: "\n"))")
    }

    /// `scripts/install-man.sh PREFIX` through swift-argument-parser's real generate-manual tool (built once, here):
    /// the page lands in PREFIX/share/man/man1 and names every command.
    @Test func theManualPageIsInstalledAndNamesEveryCommand() throws {
        let prefix = try ScratchDirectory("places-man")
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/bin/bash")
        script.arguments = [CLIHarness.repositoryRoot.appendingPathComponent("scripts/install-man.sh").path, prefix.url.path]
        var environment = ProcessInfo.processInfo.environment
        environment["PLACES_BIN"] = CLIHarness.executable.path
        environment["CONFIGURATION"] = "debug"
        script.environment = environment
        let log = prefix.url.appendingPathComponent("install.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        script.standardOutput = handle
        script.standardError = handle
        try ProcessLaunch.run(script)
        script.waitUntilExit()
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(script.terminationStatus == 0, "\(output.suffix(2000))")
        let page = prefix.url.appendingPathComponent("share/man/man1/places.1")
        let text = try String(contentsOf: page, encoding: .utf8)
        #expect(text.contains(".Dt PLACES 1"))
        for path in try commandPaths() where !path.isEmpty {
            #expect(text.contains(".It Em \(path.last!)"), "places.1 does not name \(path.joined(separator: " "))")
        }
    }
}
