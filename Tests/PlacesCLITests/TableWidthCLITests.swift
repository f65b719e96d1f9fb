import Foundation
import Testing

/// Every table the CLI prints fits an 80-column terminal: long cells are cut with `…` and wide tables (budget, the
/// index's sources) stack instead of wrapping. The limit comes from `COLUMNS`, as a terminal sets it.
@Suite struct TableWidthCLITests {
    static let longNote = "Cinnamon buns on Tuesdays, the best view of the harbour, and a queue that never ends before noon"
    static let longName = "The Remarkably Long Named Harbour-Side Coffee and Cinnamon Bun Establishment of Helsinki"

    func lines(_ result: CLIHarness.Result, _ command: [String]) -> [Substring] {
        #expect(result.status == 0, "\(command): \(result.stderr)")
        #expect(!result.stdoutText.isEmpty, "\(command) printed nothing")
        return result.stdoutText.split(separator: "\n")
    }

    @Test func everyTableFitsIn80Columns() throws {
        let cli = try EveryCommandCLITests.freshWithIndex()
        let added = try cli.run("spots", "add", "--at", "60.1700,24.9400", "--name", Self.longName, "--category", "cafe",
                                "--tag", "harbour", "--tag", "cinnamon-buns", "--tag", "queues", "--rating", "like",
                                "--note", Self.longNote, "--json", environment: ["COLUMNS": "80"])
        let id = try #require((try added.json() as? [String: Any])?["id"] as? String, "\(added.stderr)")
        #expect(try cli.run("spots", "log", "--at", "60.1773657,24.9480831", "--time", "2026-05-01 12:30",
                            "--note", Self.longNote).status == 0)
        let commands: [[String]] = [
            ["search", "coffee", "--near", "60.1699,24.9384", "--limit", "20"],
            ["nearby", "--at", "60.1699,24.9384", "--limit", "20"],
            ["details", "osm:node/1381017836"],
            ["reverse", "60.1696135,24.9381557"],
            ["spots", "list"],
            ["spots", "list", "--sort", "distance", "--at", "60.17,24.94"],
            ["spots", "list", "--group-by", "category"],
            ["spots", "show", id],
            ["spots", "near", "--at", "60.17,24.94"],
            ["spots", "categories"],
            ["spots", "visits"],
            ["budget"],
            ["index"],
            ["cache", "stats"],
        ]
        for command in commands {
            let result = try cli.run(arguments: command, environment: ["COLUMNS": "80"])
            for line in lines(result, command) {
                #expect(line.count <= 80, "\(command.joined(separator: " ")): \(line.count) columns: \(line)")
            }
        }
        // The cut note still starts as typed and says it was cut.
        let list = try cli.run("spots", "list", environment: ["COLUMNS": "80"]).stdoutText
        #expect(list.contains("Cinnamon buns") && list.contains("…"), "\(list)")
    }

    @Test func aWideTerminalShowsWhatANarrowOneCuts() throws {
        let cli = try CLIHarness.fresh()
        #expect(try cli.run("spots", "add", "--at", "60.1700,24.9400", "--no-address", "--name", Self.longName).status == 0)
        let wide = try cli.run("spots", "list", environment: ["COLUMNS": "200"]).stdoutText
        #expect(wide.contains("Harbour-Side Coffee and Cinnamon Bun"), "\(wide)")
        let narrow = try cli.run("spots", "list", environment: ["COLUMNS": "40"]).stdoutText
        #expect(narrow.split(separator: "\n").allSatisfy { $0.count <= 40 }, "\(narrow)")
        #expect(narrow.contains("The Remarkably"), "\(narrow)")
    }

    @Test func theBudgetStacksOnANarrowTerminal() throws {
        let cli = try CLIHarness.fresh()
        let budget = try cli.run("budget", environment: ["COLUMNS": "60"])
        #expect(budget.status == 0, "\(budget.stderr)")
        #expect(budget.stdoutText.split(separator: "\n").allSatisfy { $0.count <= 60 }, "\(budget.stdoutText)")
        // Stacked: each figure on its own line under its name.
        #expect(budget.stdoutText.contains("\nPROVIDER       overall\n"), "\(budget.stdoutText)")
        #expect(budget.stdoutText.contains("\nMONTH LIMIT    "), "\(budget.stdoutText)")
    }
}
