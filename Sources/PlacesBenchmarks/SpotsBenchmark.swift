import Foundation
import PlacesCore
import SpotStore

/// `places-bench spots [--spots N] [--queries N] [--fixes N]`: `near` latency on a store of N spots
/// (default 100,000, spread over the Helsinki region like a heavy user's saves) and the watch
/// engine's throughput with 20 monitored spots.
enum SpotsBenchmark {
    static func run(arguments: [String]) async throws {
        func option(_ name: String, _ fallback: Int) -> Int {
            guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let value = Int(arguments[i + 1]) else { return fallback }
            return value
        }
        let spotCount = option("--spots", 100_000), queries = option("--queries", 2_000), fixes = option("--fixes", 1_000_000)
        var generator = SplitMix64(seed: 42)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("places-bench-spots-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteSpotStore(path: directory.appendingPathComponent("spots.sqlite"))
        // 60 x 60 km around Helsinki: about 28 spots per square kilometre.
        func randomPoint() -> Coordinate {
            Coordinate(latitude: 59.95 + generator.unit() * 0.54, longitude: 24.45 + generator.unit() * 1.08)
        }
        let loadStart = Date()
        var batch: [Spot] = []
        for n in 0..<spotCount {
            batch.append(Spot(name: "Spot \(n)", coordinate: randomPoint(), category: ["cafe", "restaurant", "museum", "park"][n % 4]))
            if batch.count == 10_000 { try await store.add(batch); batch.removeAll(keepingCapacity: true) }
        }
        try await store.add(batch)
        print("spots.load_spots \(spotCount) spots in \(String(format: "%.1f", Date().timeIntervalSince(loadStart))) s")

        for radius in [200.0, 805.0] {
            var latencies: [Double] = []
            var found = 0
            for _ in 0..<queries {
                let center = randomPoint()
                let start = DispatchTime.now().uptimeNanoseconds
                found += try await store.near(center, radius: radius).count
                latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
            }
            latencies.sort()
            let label = "spots.near_r\(Int(radius))"
            print("\(label)_p50 \(String(format: "%.3f", percentile(latencies, 50))) ms")
            print("\(label)_p99 \(String(format: "%.3f", percentile(latencies, 99))) ms")
            print("\(label)_mean_results \(String(format: "%.1f", Double(found) / Double(queries))) spots")
        }
        var nearestLatencies: [Double] = []
        for _ in 0..<max(1, queries / 4) {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try await store.nearest(randomPoint(), limit: 20)
            nearestLatencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
        }
        nearestLatencies.sort()
        print("spots.nearest20_p50 \(String(format: "%.3f", percentile(nearestLatencies, 50))) ms")

        // Watch: a walk through the city at 1.4 m/s, one fix a second, with GPS noise and 5 % bad fixes.
        let points = try await store.allPoints()
        var watch = ProximityWatch(spots: points, settings: ProximityWatchSettings(radius: 200, monitorCount: 20))
        var track: [LocationFix] = []
        track.reserveCapacity(100_000)
        var position = Coordinate(latitude: 60.17, longitude: 24.94)
        var heading = 0.0
        for _ in 0..<100_000 {
            heading += (generator.unit() - 0.5) * 0.3
            position.latitude += cos(heading) * 1.4 / 111_195
            position.longitude += sin(heading) * 1.4 / 55_300
            if position.latitude < 59.96 || position.latitude > 60.48 || position.longitude < 24.46 || position.longitude > 25.52 {
                heading += .pi
            }
            let accuracy = generator.unit() < 0.05 ? 60 : 4 + generator.unit() * 8
            track.append(LocationFix(coordinate: position, accuracy: accuracy))
        }
        var events = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<fixes {
            watch.process(track[i % track.count]) { _ in events += 1 }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print("spots.watch_throughput \(Int(Double(fixes) / seconds)) fixes/s")
        print("spots.watch_events \(events) events")
        print("spots.watch_refreshes \(watch.refreshes) refreshes")
    }
}
