import Foundation
import PlacesCore
import SpotStore
import Testing

@Suite("Proximity watch")
struct SpotWatchTests {
    static let start = Date(timeIntervalSince1970: 1_777_000_000)

    static func points(_ spots: [Spot]) -> [SpotPoint] {
        spots.map { SpotPoint(id: $0.id, name: $0.name, coordinate: $0.coordinate) }
    }

    /// A walk east along latitude 60.1700 past Kamppi Chapel, Ateneum and the Cathedral (Market Square stays
    /// 280 m to the south), one fix every 28 m, with inaccurate fixes and edge jitter mixed in.
    static func track() -> [LocationFix] {
        var fixes: [LocationFix] = []
        func add(_ lat: Double, _ lon: Double, accuracy: Double? = 5) {
            fixes.append(LocationFix(coordinate: Coordinate(latitude: lat, longitude: lon), accuracy: accuracy,
                                     time: start.addingTimeInterval(Double(fixes.count) * 10)))
        }
        for step in 0...60 {
            let lon = 24.9300 + Double(step) * 0.0005
            if step == 5 { add(HelsinkiSpots.kamppiChapel.latitude, HelsinkiSpots.kamppiChapel.longitude, accuracy: 65) }
            add(60.1700, lon)
            if step == 30 { add(HelsinkiSpots.marketSquare.latitude, HelsinkiSpots.marketSquare.longitude, accuracy: 21) }
            if abs(lon - 24.9505) < 1e-9 {
                // Standing at the Cathedral's edge: 115 m, 90 m, 115 m, 90 m from it.
                for offset in [0.00207, 0.00162, 0.00207, 0.00162] { add(60.1700, 24.9522 + offset) }
            }
        }
        return fixes
    }

    func run(_ settings: ProximityWatchSettings, spots: [Spot], fixes: [LocationFix]) -> [ProximityEvent] {
        var watch = ProximityWatch(spots: Self.points(spots), settings: settings)
        return fixes.flatMap { watch.process($0) }
    }

    @Test func walkPastHelsinkiSpotsGivesTheExactEnterExitSequence() {
        let settings = ProximityWatchSettings(radius: 100, exitMargin: 30, minAccuracy: 20)
        let events = run(settings, spots: HelsinkiSpots.all(), fixes: Self.track())
        let sequence = events.map { "\($0.kind.rawValue) \($0.spot.name)" }
        #expect(sequence == [
            "enter Kamppi Chapel", "exit Kamppi Chapel",
            "enter Ateneum", "exit Ateneum",
            "enter Helsinki Cathedral", "exit Helsinki Cathedral",
        ])
        for event in events where event.kind == .enter { #expect(event.distance <= 100) }
        for event in events where event.kind == .exit { #expect(event.distance > 130) }
        // The first enter happens at the fix at longitude 24.9355 (83 m from the chapel), the 7th accepted one.
        let track = Self.track()
        let enterFix = track.first { abs($0.coordinate.longitude - 24.9355) < 1e-9 && $0.coordinate.latitude == 60.17 }
        #expect(events.first?.time == enterFix?.time)
    }

    @Test func inaccurateFixesAreIgnoredInsteadOfTriggeringSpots() {
        // The two bad fixes sit exactly on Kamppi Chapel and Market Square; trusted, they would add events.
        let strict = run(ProximityWatchSettings(radius: 100, exitMargin: 30, minAccuracy: 20), spots: HelsinkiSpots.all(), fixes: Self.track())
        #expect(!strict.contains { $0.spot.name == "Market Square" })
        let lenient = run(ProximityWatchSettings(radius: 100, exitMargin: 30, minAccuracy: 100), spots: HelsinkiSpots.all(), fixes: Self.track())
        #expect(lenient.map { "\($0.kind.rawValue) \($0.spot.name)" }.prefix(4) == [
            "enter Kamppi Chapel", "exit Kamppi Chapel", "enter Kamppi Chapel", "exit Kamppi Chapel",
        ])
        #expect(lenient.contains { $0.kind == .enter && $0.spot.name == "Market Square" })

        var watch = ProximityWatch(spots: Self.points(HelsinkiSpots.all()), settings: ProximityWatchSettings(radius: 100, minAccuracy: 20))
        for fix in Self.track() { _ = watch.process(fix) }
        #expect(watch.ignoredFixes == 2)
    }

    @Test func hysteresisStopsFlappingAtTheEdge() {
        let withMargin = run(ProximityWatchSettings(radius: 100, exitMargin: 30), spots: HelsinkiSpots.all(), fixes: Self.track())
        #expect(withMargin.filter { $0.spot.name == "Helsinki Cathedral" }.count == 2)
        let noMargin = run(ProximityWatchSettings(radius: 100, exitMargin: 0), spots: HelsinkiSpots.all(), fixes: Self.track())
        #expect(noMargin.filter { $0.spot.name == "Helsinki Cathedral" }.map(\.kind) == [.enter, .exit, .enter, .exit, .enter, .exit])
    }

    @Test func onlyTheNearestSpotsAreWatchedUntilTheUserMovesFarEnough() {
        var spots = HelsinkiSpots.all()
        let espoo = Spot(name: "Espoo Cultural Centre", coordinate: Coordinate(latitude: 60.1790, longitude: 24.8035))
        spots.append(espoo)
        var watch = ProximityWatch(spots: Self.points(spots),
                                   settings: ProximityWatchSettings(radius: 100, exitMargin: 30, monitorCount: 1, refreshDistance: 1_500))
        #expect(watch.process(LocationFix(coordinate: HelsinkiSpots.kamppiChapel)).map(\.spot.name) == ["Kamppi Chapel"])
        #expect(watch.monitoredSpots.map(\.name) == ["Kamppi Chapel"])
        // 430 m on, at Ateneum: not watched (no refresh yet), so only the exit from the chapel is reported.
        let atAteneum = watch.process(LocationFix(coordinate: HelsinkiSpots.ateneum))
        #expect(atAteneum.map { "\($0.kind.rawValue) \($0.spot.name)" } == ["exit Kamppi Chapel"])
        // 7 km west: the set is recomputed and the Espoo spot is entered.
        let atEspoo = watch.process(LocationFix(coordinate: espoo.coordinate))
        #expect(atEspoo.map { "\($0.kind.rawValue) \($0.spot.name)" } == ["enter Espoo Cultural Centre"])
        #expect(watch.monitoredSpots.map(\.name) == ["Espoo Cultural Centre"])
        #expect(watch.refreshes == 2)
    }

    @Test func theWatchedSetIsExactlyTheNearestSpots() {
        // 3,000 spots scattered over southern Finland; the grid search must agree with a full scan.
        var seed: UInt64 = 7
        func unit() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        let points = (0..<3_000).map { n in
            SpotPoint(id: UUID(), name: "spot \(n)", coordinate: Coordinate(latitude: 60 + unit() * 2, longitude: 22 + unit() * 6))
        }
        for _ in 0..<40 {
            let here = Coordinate(latitude: 59.5 + unit() * 3, longitude: 21 + unit() * 8)
            var watch = ProximityWatch(spots: points, settings: ProximityWatchSettings(monitorCount: 20))
            _ = watch.process(LocationFix(coordinate: here))
            let expected = points.sorted { GeoMath.distance(here, $0.coordinate) < GeoMath.distance(here, $1.coordinate) }.prefix(20)
            #expect(Set(watch.monitoredSpots.map(\.id)) == Set(expected.map(\.id)))
        }
    }

    @Test func fixLinesParseWithOptionalAccuracyAndTime() throws {
        let plain = try LocationFix(line: "60.1700,24.9522")
        #expect(plain.coordinate == HelsinkiSpots.cathedral && plain.accuracy == nil && plain.time == nil)
        let full = try LocationFix(line: " 60.17 , 24.9522 , 8.5 , 2026-05-01T10:00:00+03:00")
        #expect(full.accuracy == 8.5)
        #expect(full.time == Date(timeIntervalSince1970: 1_777_618_800))
        let noAccuracy = try LocationFix(line: "60.17,24.9522,,2026-05-01T07:00:00Z")
        #expect(noAccuracy.accuracy == nil && noAccuracy.time == full.time)
        #expect(throws: InputError.self) { try LocationFix(line: "60.17;24.95") }
        #expect(throws: InputError.self) { try LocationFix(line: "95,24.95") }
        #expect(throws: InputError.self) { try LocationFix(line: "60.17,24.95,fine") }
        #expect(throws: InputError.self) { try LocationFix(line: "60.17,24.95,5,yesterday") }
    }

    @Test func gpxTracksStreamTheirPointsWithTimes() throws {
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
              <trk><name>Walk</name><trkseg>
                <trkpt lat="60.1700" lon="24.9300"><ele>12</ele><time>2026-05-01T07:00:00Z</time><hdop>2</hdop></trkpt>
                <trkpt lat="60.1700" lon="24.9355"><time>2026-05-01T07:00:10Z</time></trkpt>
                <trkpt lat="60.1700" lon="24.9390"><time>2026-05-01T07:00:20Z</time><hdop>9</hdop></trkpt>
              </trkseg></trk>
            </gpx>
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("track-\(UUID().uuidString).gpx")
        try Data(gpx.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var fixes: [LocationFix] = []
        try GPXTrackReader.read(file) { fixes.append($0) }
        #expect(fixes.count == 3)
        #expect(fixes[1].coordinate == Coordinate(latitude: 60.17, longitude: 24.9355))
        #expect(fixes[1].time == Date(timeIntervalSince1970: 1_777_618_810))
        #expect(fixes[0].accuracy == 10 && fixes[2].accuracy == 45)
        var watch = ProximityWatch(spots: Self.points(HelsinkiSpots.all()), settings: ProximityWatchSettings(radius: 100, exitMargin: 30))
        #expect(fixes.flatMap { watch.process($0) }.map(\.spot.name) == ["Kamppi Chapel"])
    }

    /// `spots watch --gpx /dev/stdin`: a pipe cannot be mapped, so it is read whole, with the same result.
    @Test func gpxTracksAlsoComeThroughAPipe() throws {
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data(#"<gpx><trk><trkseg><trkpt lat="60.17" lon="24.93"/><trkpt lat="60.18" lon="24.94"/></trkseg></trk></gpx>"#.utf8))
        try pipe.fileHandleForWriting.close()
        var fixes: [LocationFix] = []
        try GPXTrackReader.read(URL(fileURLWithPath: "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)")) { fixes.append($0) }
        #expect(fixes.map(\.coordinate) == [Coordinate(latitude: 60.17, longitude: 24.93), Coordinate(latitude: 60.18, longitude: 24.94)])
    }

    /// A DOCTYPE is refused before any point is read, with one line; `<?x?>` (which crashed Foundation's
    /// streaming parser when it read tracks) is a well-formed instruction and skipped.
    @Test func gpxTracksWithADoctypeAreRefusedWithOneLine() throws {
        let text = "<!DOCTYPE gpx [<!ELEMENT gpx ANY>]><gpx><?x?><trk><trkseg><trkpt lat=\"60.17\" lon=\"24.93\"/></trkseg></trk></gpx>"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("track-\(UUID().uuidString).gpx")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var fixes = 0
        #expect {
            try GPXTrackReader.read(file) { _ in fixes += 1 }
        } throws: { error in
            let message = (error as? InputError)?.message ?? ""
            return message.hasPrefix("cannot read the GPX track '\(file.lastPathComponent)': it has a DOCTYPE") && !message.contains("\n")
        }
        #expect(fixes == 0)
        try Data(text.replacingOccurrences(of: "<!DOCTYPE gpx [<!ELEMENT gpx ANY>]>", with: "").utf8).write(to: file)
        try GPXTrackReader.read(file) { _ in fixes += 1 }
        #expect(fixes == 1)
    }
}
