import Foundation
import Testing

/// `places match` shows its progress on stderr while it runs (on a terminal, or with `--progress`), never in the
/// CSV on stdout; each redraw covers the whole previous line, and 100 % gives way to the step still running.
@Suite struct ProgressCLITests {
    /// 400 records a side: hand-made rows whose right side is the left side's name with a suffix, a few metres off.
    static func files(in home: CLIHarness) throws -> (left: URL, right: URL) {
        var left = "id,name,lat,lon\n", right = "id,name,lat,lon\n"
        for n in 0..<400 {
            let lat = 60.15 + Double(n % 20) * 0.002, lon = 24.90 + Double(n / 20) * 0.004
            left += "L\(n),Kahvila \(n),\(lat),\(lon)\n"
            right += "R\(n),Kahvila \(n) Oy,\(lat + 0.00001),\(lon)\n"
        }
        let leftURL = home.home.appendingPathComponent("left.csv"), rightURL = home.home.appendingPathComponent("right.csv")
        try Data(left.utf8).write(to: leftURL)
        try Data(right.utf8).write(to: rightURL)
        return (leftURL, rightURL)
    }

    @Test func matchDrawsProgressOnStderrWhenAsked() throws {
        let home = try CLIHarness.fresh()
        let (left, right) = try Self.files(in: home)
        let result = try home.run("match", left.path, right.path, "--progress")
        #expect(result.status == 0, "\(result.stderr)")
        // stdout is the CSV alone.
        #expect(result.stdoutText.hasPrefix("left_id,right_id,score,verdict\n"))
        #expect(!result.stdoutText.contains("\r") && !result.stdoutText.contains("matching"))
        // stderr: redraws separated by carriage returns, then the summary line.
        let draws = result.stderr.components(separatedBy: "\r").filter { !$0.isEmpty }
        #expect(draws.contains { $0.hasPrefix("matching [") }, "\(result.stderr.debugDescription)")
        // At 100 % the bar names the step still running instead of standing still.
        #expect(draws.contains { $0.hasPrefix("matching assigning pairs") }, "\(result.stderr.debugDescription)")
        // No leftovers: every redraw is at least as wide as every line before it, and the bar's last act is a line
        // of blanks, so the summary starts on a clean line.
        var widest = 0
        for draw in draws.dropLast() {
            #expect(draw.count >= widest, "a redraw of \(draw.count) columns after one of \(widest): \(result.stderr.debugDescription)")
            widest = max(widest, draw.count)
        }
        let blank = try #require(draws.dropLast().last)
        #expect(blank.allSatisfy { $0 == " " } && blank.count == widest, "\(result.stderr.debugDescription)")
        #expect(draws.last?.hasPrefix("places: 400 pairs matched") == true, "\(result.stderr.debugDescription)")
    }

    @Test func pipedMatchWithoutTheFlagDrawsNoBar() throws {
        let home = try CLIHarness.fresh()
        let (left, right) = try Self.files(in: home)
        let result = try home.run("match", left.path, right.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("\r") && !result.stderr.contains("matching ["), "\(result.stderr.debugDescription)")
        #expect(result.stderr.hasPrefix("places: 400 pairs matched"), "\(result.stderr)")
    }

    /// On a terminal, `places import` shows the bar, then the index-building step once every byte is read, then
    /// blanks the line before its summary.
    @Test func importOnATerminalNamesTheFinishingStep() throws {
        let home = try EveryCommandCLITests.freshWithIndex()
        // Three GeoNames rows (tab-separated, the dump's 19 columns), written by hand.
        let rows = [
            ["9900001", "Testikylä", "Testikyla", "", "60.30000", "24.50000", "P", "PPL", "FI", "", "01", "", "", "", "1200", "", "20", "Europe/Helsinki", "2026-01-01"],
            ["9900002", "Koekaupunki", "Koekaupunki", "", "60.40000", "24.60000", "P", "PPL", "FI", "", "01", "", "", "", "5400", "", "30", "Europe/Helsinki", "2026-01-01"],
            ["9900003", "Mallila", "Mallila", "", "60.50000", "24.70000", "P", "PPL", "FI", "", "01", "", "", "", "800", "", "25", "Europe/Helsinki", "2026-01-01"],
        ]
        let dump = home.home.appendingPathComponent("cities-test.txt")
        try Data((rows.map { $0.joined(separator: "\t") }.joined(separator: "\n") + "\n").utf8).write(to: dump)
        let result = try home.runOnATerminal(arguments: ["import", dump.path])
        #expect(result.status == 0, "\(result.screen)")
        #expect(result.screen.contains("cities-test.txt building the name index…"), "\(result.screen.debugDescription)")
        let draws = result.screen.components(separatedBy: "\r").filter { !$0.isEmpty && $0 != "\n" }
        let summary = try #require(draws.firstIndex { $0.hasPrefix("places: ") }, "\(result.screen.debugDescription)")
        #expect(summary > 0 && draws[summary - 1].allSatisfy { $0 == " " }, "\(result.screen.debugDescription)")
    }
}
