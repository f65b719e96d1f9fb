import Foundation
import Testing

/// CSV as spreadsheet apps write it, and GeoNames zips as downloads leave them, through the real binary.
@Suite struct CSVAndZipCLITests {
    /// Byte order mark, CRLF, ids with commas and quotes, an address over two lines: the pairs come out quoted
    /// (RFC 4180), so a CSV reader gets the ids back exactly.
    @Test func matchReadsSpreadsheetCSVAndQuotesTheIdsItWrites() throws {
        let home = try CLIHarness.fresh()
        let left = home.home.appendingPathComponent("left.csv"), right = home.home.appendingPathComponent("right.csv")
        try Data(("\u{FEFF}id,name,address,lat,lon\r\n\"L,1\",Kiasma,\"Mannerheiminaukio 2\r\nHelsinki\",60.1718,24.9368\r\n"
            + "\"L \"\"2\"\"\",Ateneum,Kaivokatu 2,60.1702,24.9441\r\n").utf8).write(to: left)
        try Data("id,name,lat,lon\nR1,Kiasma,60.17183,24.93684\nR2,Ateneum,60.17025,24.94405\n".utf8).write(to: right)
        let result = try home.run("match", left.path, right.path)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first == "left_id,right_id,score,verdict")
        #expect(Set(lines.dropFirst().map { $0.components(separatedBy: ",R")[0] }) == ["\"L,1\"", "\"L \"\"2\"\"\""])
    }

    @Test func matchNamesTheLineOfARaggedRow() throws {
        let home = try CLIHarness.fresh()
        let left = home.home.appendingPathComponent("left.csv")
        try Data("id,name\n1,\"Kiasma\nmuseum\"\n2,Ateneum,extra\n".utf8).write(to: left)
        let result = try home.run("match", left.path, left.path)
        #expect(result.status == 2)  // bad input exits 2 (PlacesCommand)
        #expect(result.stderr == "places: \(left.path):4: expected 2 fields as in the header, found 3\n")
        #expect(result.stdout.isEmpty)
    }

    /// A GeoNames zip cut short: one line, exit 2 (bad input), and the places imported before are still found.
    @Test func aTruncatedGeoNamesZipIsOneLineAndLosesNothing() throws {
        let home = try CLIHarness.fresh()
        let fixture = CLIHarness.repositoryRoot.appendingPathComponent("Tests/LocalProviderTests/Fixtures/geonames-helsinki-area.zip")
        let zip = home.home.appendingPathComponent("FI.zip")
        try FileManager.default.copyItem(at: fixture, to: zip)
        let imported = try home.run("import", zip.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        let before = try home.run("search", "espoo", "--json")
        #expect(before.stdoutText.contains("geonames:"), "\(before.stdoutText)")

        let whole = try Data(contentsOf: zip)
        try whole.prefix(whole.count - 40).write(to: zip)
        let failed = try home.run("import", zip.path)
        #expect(failed.status == 2)
        #expect(failed.stderr == "places: FI.zip: not a complete zip archive (no readable central directory: a truncated or damaged download?)\n")
        #expect(try home.run("search", "espoo", "--json").stdout == before.stdout)
    }
}
