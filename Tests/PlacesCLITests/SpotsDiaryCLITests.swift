import Foundation
import Testing

/// The food diary from the shell: `spots log` keeps the reverse-geocoded address and the place's IANA zone,
/// reads times as people type them, and `spots visits edit|rm` correct the log.
///
/// The address point Pitkänsillanranta 9 is node 474717179 of the repository's Helsinki extract, read with
/// `osmium getid -f opl … n474717179`: addr:street=Pitkänsillanranta, addr:housenumber=9, addr:city=Helsinki,
/// addr:country=FI at 60.1773657,24.9480831. Helsinki is UTC+3 in May.
@Suite struct SpotsDiaryCLITests {
    static let pitkansillanranta = "60.1773657,24.9480831"

    func visit(_ result: CLIHarness.Result) throws -> [String: Any] {
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try result.json() as? [String: Any], "\(result.stdoutText) \(result.stderr)")
    }

    @Test func aVisitInHelsinkiKeepsItsAddressAndZoneAndATimeWithoutOffsetIsHelsinkiTime() throws {
        let cli = try CLIHarness.fresh()
        let logged = try visit(cli.run("spots", "log", "--at", Self.pitkansillanranta, "--time", "2026-05-01 12:30",
                                       "--note", "Salmon soup", "--json"))
        let address = try #require(logged["address"] as? [String: Any])
        #expect(address["street"] as? String == "Pitkänsillanranta")
        #expect(address["house_number"] as? String == "9")
        #expect(address["city"] as? String == "Helsinki")
        #expect(address["country"] as? String == "FI")
        #expect(logged["time_zone"] as? String == "Europe/Helsinki")
        #expect(logged["time"] as? String == "2026-05-01T12:30:00+03:00")

        let table = try cli.run("spots", "visits")
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdoutText.contains("12:30"), "\(table.stdoutText)")
        #expect(table.stdoutText.contains("Pitkänsillanranta 9, Helsinki, FI"), "\(table.stdoutText)")

        let export = try cli.run("spots", "export", "--format", "geojson")
        #expect(export.status == 0, "\(export.stderr)")
        let features = try #require((try export.json() as? [String: Any])?["features"] as? [[String: Any]])
        let exported = try #require(features.first { ($0["properties"] as? [String: Any])?["places_kind"] as? String == "visit" })
        let properties = try #require(exported["properties"] as? [String: Any])
        #expect(properties["street"] as? String == "Pitkänsillanranta" && properties["house_number"] as? String == "9")
        #expect(properties["city"] as? String == "Helsinki" && properties["country"] as? String == "FI")
    }

    @Test func relativeAndDayTimesAreAccepted() throws {
        let cli = try CLIHarness.fresh()
        let before = Date()
        let recent = try visit(cli.run("spots", "log", "--at", Self.pitkansillanranta, "--time", "-30m", "--json"))
        let after = Date()
        let time = try #require((recent["time"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
        // Second precision in the printed time: allow a second either side of the half hour.
        #expect(time >= before.addingTimeInterval(-1801) && time <= after.addingTimeInterval(-1799), "\(time)")
        let evening = try visit(cli.run("spots", "log", "--at", Self.pitkansillanranta, "--time", "yesterday 19:30", "--json"))
        #expect((evening["time"] as? String)?.contains("T19:30:00+0") == true, "\(evening)")
        let bad = try cli.run("spots", "log", "--at", Self.pitkansillanranta, "--time", "soon")
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("invalid time 'soon': expected now, -30m"), "\(bad.stderr)")
        #expect(bad.stderr.split(separator: "\n").count <= 2, "\(bad.stderr)")
    }

    @Test func aVisitIsEditedAndDeletedByItsIdPrefix() throws {
        let cli = try CLIHarness.fresh()
        let logged = try visit(cli.run("spots", "log", "--at", Self.pitkansillanranta, "--time", "2026-05-01 12:30",
                                       "--note", "Soup", "--json"))
        let id = try #require(logged["id"] as? String)
        let prefix = String(id.prefix(6))
        let edited = try visit(cli.run("spots", "visits", "edit", prefix, "--time", "2026-05-01 13:15", "--note", "Salmon soup", "--json"))
        #expect(edited["id"] as? String == id)
        #expect(edited["time"] as? String == "2026-05-01T13:15:00+03:00")
        #expect(edited["note"] as? String == "Salmon soup")
        #expect((edited["address"] as? [String: Any])?["street"] as? String == "Pitkänsillanranta")
        let nothing = try cli.run("spots", "visits", "edit", prefix)
        #expect(nothing.status == 2 && nothing.stderr.contains("--time, --note or --spot"), "\(nothing.stderr)")

        let removed = try cli.run("spots", "visits", "rm", prefix)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdoutText.contains("deleted \(id.prefix(8))"), "\(removed.stdoutText)")
        let days = try #require(try cli.run("spots", "visits", "--json").json() as? [[String: Any]])
        #expect(days.isEmpty)
        let again = try cli.run("spots", "visits", "rm", prefix)
        #expect(again.status == 2)
        #expect(again.stderr.contains("unknown visit '\(prefix)'"), "\(again.stderr)")
    }
}
