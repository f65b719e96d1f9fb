import Foundation
import Testing

/// Inputs the fuzzers (Tests/Fuzz) found crashing the program, run through the built binary the way a
/// user meets them: each now gets one line on stderr and a non-zero exit, and nothing is written.
@Suite("Fuzz findings, through the CLI")
struct FuzzFindingsCLITests {
    @Test func aConfigTableNameStartingWithANonKeyCharacterIsOneLineNotAnAbort() throws {
        let cli = try CLIHarness.fresh()
        try Data("[providers.google]\nenabled = true\n[é]\n".utf8).write(to: cli.home.appendingPathComponent("config.toml"))
        let result = try cli.run("config", "show")
        #expect(result.status == 2, "stderr: \(result.stderr)")  // bad input: exit 2
        #expect(result.stderr.contains("config.toml:3: invalid TOML: a table name must start with"), "stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
    }

    /// XML with a name that is not UTF-8 (the bytes the gpx and kml fuzzers found), by file extension.
    static let notUTF8: [(String, Data)] = [
        ("gpx", Data(#"<gpx><wpt lat="60.1" lon="24.9" cr"#.utf8) + [0xE5] + Data(#"ator="x"><name>Kiasma</name></wpt></gpx>"#.utf8)),
        ("kml", Data("<kml><Do".utf8) + [0xFF, 0xFF] + Data("cument/></kml>".utf8)),
    ]

    @Test(arguments: notUTF8)
    func aSpotFileThatIsNotUTF8IsRefusedAndNothingIsSaved(fileExtension: String, contents: Data) throws {
        let cli = try CLIHarness.fresh()
        let file = cli.home.appendingPathComponent("spots.\(fileExtension)")
        try contents.write(to: file)
        let result = try cli.run("spots", "import", file.path)
        #expect(result.status == 2, "stderr: \(result.stderr)")  // bad input: exit 2
        #expect(result.stderr.contains("is not UTF-8 (invalid byte at offset"), "stderr: \(result.stderr)")
        let listed = try cli.run("spots", "list", "--json")
        #expect(listed.status == 0 && listed.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "[]",
                "stdout: \(listed.stdoutText)")
    }
}
