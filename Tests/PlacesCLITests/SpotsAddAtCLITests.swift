import Foundation
import Testing

/// `spots add --at LAT,LON` without `--name`: named after the nearest place within 30 m, else after the address.
///
/// Points from the repository's Helsinki extract (OpenStreetMap): Robert's Coffee at Mannerheimintie 20 B
/// (node 1381017836, 60.1696135,24.9381557); the address point Pitkänsillanranta 9 (node 474717179,
/// 60.1773657,24.9480831), whose nearest POI is 71 m away.
@Suite struct SpotsAddAtCLITests {
    @Test func aPointOnAPlaceIsNamedAfterItAndSaysSo() throws {
        let cli = try CLIHarness.fresh()
        let result = try cli.run("spots", "add", "--at", "60.1696135,24.9381557", "--note", "window seat", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let spot = try #require(try result.json() as? [String: Any])
        #expect(spot["name"] as? String == "Robert's Coffee")
        #expect(spot["notes"] as? String == "window seat")
        #expect(result.stderr.contains("named it 'Robert's Coffee' after the nearest place (osm:node/1381017836"), "\(result.stderr)")
    }

    @Test func aPointWithNoPlaceWithin30MetresIsNamedAfterItsAddress() throws {
        let cli = try CLIHarness.fresh()
        let result = try cli.run("spots", "add", "--at", "60.1773657,24.9480831", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let spot = try #require(try result.json() as? [String: Any])
        #expect(spot["name"] as? String == "Pitkänsillanranta 9")
        #expect(result.stderr.contains("named it 'Pitkänsillanranta 9' after its address (no place within 30 m)"), "\(result.stderr)")
    }

    @Test func aNameGivenIsKept() throws {
        let cli = try CLIHarness.fresh()
        let result = try cli.run("spots", "add", "--at", "60.1696135,24.9381557", "--name", "Meeting point", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect((try result.json() as? [String: Any])?["name"] as? String == "Meeting point")
        #expect(!result.stderr.contains("named it"))
    }

    @Test func withoutANameOrAnythingToNameItAfterItAsksForOne() throws {
        let refused = try CLIHarness.shared.run("spots", "add", "--at", "60.1696,24.9381", "--no-address")
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("add --name NAME"), "\(refused.stderr)")
        // Mid-Pacific: the index knows nothing there.
        let cli = try CLIHarness.fresh()
        let nowhere = try cli.run("spots", "add", "--at", "-30.0,-140.0")
        #expect(nowhere.status == 2, "\(nowhere.stderr)")
        #expect(nowhere.stderr.contains("add --name NAME"), "\(nowhere.stderr)")
    }
}
