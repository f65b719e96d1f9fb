import Foundation
import Testing
@testable import PlacesCore

@Suite struct CoordinateParsingTests {
    @Test func parsesDecimalDegreesWithOptionalSpaces() throws {
        let c = try Coordinate(parsing: " 60.1699 , 24.9384 ")
        #expect(c.latitude == 60.1699)
        #expect(c.longitude == 24.9384)
    }

    @Test(arguments: [
        ("91,200", "latitude 91 is outside -90…90"),
        ("45,200", "longitude 200 is outside -180…180"),
        ("abc", "expected LAT,LON"),
        ("60.1", "expected LAT,LON"),
        ("60.1,24.9,3", "expected LAT,LON"),
        ("nan,24", "finite"),
    ])
    func rejectsMalformedInputWithAReason(input: String, reason: String) {
        #expect {
            try Coordinate(parsing: input)
        } throws: { error in
            let message = (error as? InputError)?.message ?? ""
            return message.contains(reason) && message.contains("'\(input)'")
        }
    }

    @Test func placeIDKeepsColonsInTheNativePart() throws {
        let id = try PlaceID(parsing: "google:places/ChIJ:x")
        #expect(id.provider == "google")
        #expect(id.nativeID == "places/ChIJ:x")
        #expect(id.description == "google:places/ChIJ:x")
        #expect(throws: InputError.self) { try PlaceID(parsing: "node1234") }
        #expect(throws: InputError.self) { try PlaceID(parsing: "osm:") }
    }

    @Test func placeIDsReadAsBytesOrAsTextAreTheSame() throws {
        // Plain ASCII ids are read byte by byte; spaces, other letters and errors go the general way. Both give these.
        let cases: [(text: String, provider: String, native: String)] = [
            ("osm:node/59622323", "osm", "node/59622323"), ("OSM:Node/1", "osm", "Node/1"), (" osm:node/1 ", "osm", "node/1"),
            ("geo_names-2:658225", "geo_names-2", "658225"), ("Ösm:x", "ösm", "x"), ("osm:ä", "osm", "ä"), ("a::", "a", ":"),
        ]
        for (text, provider, native) in cases {
            let id = try PlaceID(parsing: text)
            #expect(id.provider == provider && id.nativeID == native, "\(text)")
        }
        for text in [":x", "osm", "o.s:x", "o s:x", "osm:", "", " : "] {
            #expect(throws: InputError.self, "\(text)") { try PlaceID(parsing: text) }
        }
    }
}

@Suite struct GeoMathTests {
    let helsinkiCathedral = Coordinate(latitude: 60.170_278, longitude: 24.952_222)
    let railwayStation = Coordinate(latitude: 60.171_111, longitude: 24.941_389)

    @Test func distanceMatchesKnownFigures() {
        // About 600 m between the cathedral and the railway station.
        let d = GeoMath.distance(helsinkiCathedral, railwayStation)
        #expect(abs(d - 602) < 5)
        // One degree of latitude is ~111.2 km on the mean sphere.
        let oneDegree = GeoMath.distance(Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 1, longitude: 0))
        #expect(abs(oneDegree - 111_195) < 5)
        #expect(GeoMath.distance(railwayStation, railwayStation) == 0)
    }

    @Test func bearingAndCompassPoint() {
        let bearing = GeoMath.bearing(from: railwayStation, to: helsinkiCathedral)
        #expect(bearing > 80 && bearing < 100)
        #expect(GeoMath.compassPoint(bearing) == "E")
        #expect(GeoMath.compassPoint(359) == "N")
        #expect(GeoMath.compassPoint(225) == "SW")
    }

    @Test func boundingBoxContainsTheWholeCircle() {
        let box = GeoMath.boundingBox(around: railwayStation, radius: 1_000)
        for bearing in stride(from: 0.0, to: 360, by: 30) {
            let rad = bearing * .pi / 180
            let dLat = 999 * cos(rad) / 111_195
            let dLon = 999 * sin(rad) / (111_195 * cos(railwayStation.latitude * .pi / 180))
            let p = Coordinate(latitude: railwayStation.latitude + dLat, longitude: railwayStation.longitude + dLon)
            #expect(box.contains(p))
        }
    }

    @Test func boxesAcrossTheAntimeridianContinueFromTheOtherEnd() {
        // 500 m at the equator is 500 / 111,195 = 0.0044966° of longitude (and of latitude) each way.
        let span = 500 / 111_195.0
        for (center, pieces) in [(179.999, [(179.999 - span, 180.0), (-180.0, 179.999 + span - 360)]),
                                 (-179.999, [(-180.0, -179.999 + span), (-179.999 - span + 360, 180.0)]),
                                 (24.0, [(24 - span, 24 + span)])] {
            let boxes = GeoMath.boundingBoxes(around: Coordinate(latitude: 0, longitude: center), radius: 500)
            #expect(boxes.count == pieces.count, "\(center)")
            for (box, (west, east)) in zip(boxes, pieces) {
                #expect(abs(box.minLongitude - west) < 1e-6 && abs(box.maxLongitude - east) < 1e-6, "\(center): \(box)")
                #expect(abs(box.minLatitude + span) < 1e-6 && abs(box.maxLatitude - span) < 1e-6)
            }
        }
        // Every point of the circle is in one of the pieces, across 180° too.
        let center = Coordinate(latitude: -16.8, longitude: 179.9995)
        let boxes = GeoMath.boundingBoxes(around: center, radius: 1_000)
        for bearing in stride(from: 0.0, to: 360, by: 15) {
            let rad = bearing * .pi / 180
            var longitude = center.longitude + 999 * sin(rad) / (111_195 * cos(center.latitude * .pi / 180))
            if longitude > 180 { longitude -= 360 }
            let p = Coordinate(latitude: center.latitude + 999 * cos(rad) / 111_195, longitude: longitude)
            #expect(boxes.contains { $0.contains(p) }, "bearing \(bearing)")
        }
        // Near a pole the box is the whole circle of longitude, in one piece.
        #expect(GeoMath.boundingBoxes(around: Coordinate(latitude: 90, longitude: 179.9), radius: 10).map(\.minLongitude) == [-180])
    }
}

/// Issue 16 item 1: `Int(1e19)` traps, and `1e19` is a Double anyone can type.
@Suite struct NumbersFromOutsideTests {
    @Test(arguments: [
        (60.0, "60"), (-0.0, "0"), (60.17, "60.17"), (1e19, "1e+19"), (-1e19, "-1e+19"),
        (Double.infinity, "inf"), (Double.nan, "nan"), (9_007_199_254_740_992.0, "9007199254740992"),
    ])
    func compactTextNeverTraps(value: Double, text: String) {
        #expect(value.compactText == text)
    }

    @Test(arguments: [
        ("1e19,0", "latitude 1e+19 is outside -90…90"),
        ("0,99999999999999999999", "longitude 1e+20 is outside -180…180"),
        ("inf,0", "must be finite"),
        ("-91,0", "latitude -91 is outside -90…90"),
    ])
    func hugeCoordinatesAreRefusedWithTheirValue(text: String, reason: String) {
        #expect(throws: Coordinate.Problem.self) { try Coordinate.check(parsing: text) }
        #expect(((try? Coordinate.check(parsing: text)) == nil))
        do { _ = try Coordinate.check(parsing: text) } catch { #expect(error.description.contains(reason), "\(error)") }
    }

    @Test func southAndWestAreFine() throws {
        #expect(try Coordinate.check(parsing: "-33.87,151.21") == Coordinate(latitude: -33.87, longitude: 151.21))
        #expect(try Coordinate.check(parsing: "-90,-180") == Coordinate(latitude: -90, longitude: -180))
    }

    @Test func radiusAndLimitRanges() throws {
        #expect(try InputRange.metres(parsing: "805", named: "RADIUS") == 805)
        for bad in ["0", "-1", "1e300", "inf", "nan", "20037510", "abc"] {
            #expect(throws: InputError.self, "\(bad)") { try InputRange.metres(parsing: bad, named: "RADIUS") }
        }
        #expect(try InputRange.limit(parsing: "1000", named: "LIMIT") == 1_000)
        for bad in ["0", "1001", "99999999999999999999", "1.5"] {
            #expect(throws: InputError.self, "\(bad)") { try InputRange.limit(parsing: bad, named: "LIMIT") }
        }
    }
}
