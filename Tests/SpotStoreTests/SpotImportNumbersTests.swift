import Foundation
import PlacesCore
import SpotStore
import Testing

/// Issue 16 item 1 for every import format: a point far off the Earth is a skipped entry with its reason,
/// never a crash, and the good entries next to it are kept.
@Suite struct SpotImportNumbersTests {
    static let files: [(SpotFormat, String)] = [
        (.geojson, #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Far"},"geometry":{"type":"Point","coordinates":[1e19,1e19]}},{"type":"Feature","properties":{"name":"Kiasma"},"geometry":{"type":"Point","coordinates":[24.9366,60.1718]}}]}"#),
        (.geojson, #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"Title":"Far","Location":{"Geo Coordinates":{"Latitude":"99999999999999999999","Longitude":"0"}}},"geometry":{"type":"Point","coordinates":[0,0]}},{"type":"Feature","properties":{"name":"Kiasma"},"geometry":{"type":"Point","coordinates":[24.9366,60.1718]}}]}"#),
        (.gpx, #"<gpx><wpt lat="1e19" lon="0"><name>Far</name></wpt><wpt lat="60.1718" lon="24.9366"><name>Kiasma</name></wpt></gpx>"#),
        (.kml, #"<kml><Document><Placemark><name>Far</name><Point><coordinates>0,1e19</coordinates></Point></Placemark><Placemark><name>Kiasma</name><Point><coordinates>24.9366,60.1718</coordinates></Point></Placemark></Document></kml>"#),
        (.csv, "name,lat,lon\nFar,-1e19,0\nKiasma,60.1718,24.9366\n"),
    ]

    @Test(arguments: 0..<files.count)
    func aPointOffTheEarthIsSkippedWithItsReason(index: Int) throws {
        let (format, text) = Self.files[index]
        let archive = try SpotFiles.parse(Data(text.utf8), format: format)
        #expect(archive.spots.map(\.name) == ["Kiasma"], "\(format)")
        #expect(archive.skipped.count == 1, "\(format): \(archive.skipped)")
        #expect(archive.skipped.first?.contains("is outside") == true, "\(format): \(archive.skipped)")
    }
}
