import Foundation
import LocalProvider
import PlacesHours

/// `places-bench hours [FILE.osm.pbf]`: parse and evaluation throughput over every distinct
/// `opening_hours` value in an extract (default: the bundled Helsinki one).
enum HoursBenchmark {
    static func run(arguments: [String]) async throws {
        let url = arguments.first.map { URL(fileURLWithPath: $0) } ?? bundledExtract
        var distinct = Set<String>()
        try OSMPBFReader(url: url).forEachElement { element in
            if let value = element.tags["opening_hours"] { distinct.insert(value) }
        }
        let values = distinct.sorted()
        guard !values.isEmpty else {
            print("hours.values 0 strings (no opening_hours in \(url.lastPathComponent))")
            return
        }
        print("hours.values \(values.count) strings")

        var parsed: [OpeningHours] = []
        let parseRate = measure(batch: values.count) {
            parsed = values.map { OpeningHours(osm: $0) }
            return parsed.count
        }
        print("hours.parse \(Int(parseRate)) parses per CPU second")
        print("hours.parse_ok \(parsed.filter(\.isParsed).count) of \(values.count)")

        // Moments spread over a week in Helsinki, so rules, overnight spill and next-change search all run.
        let zone = TimeZone(identifier: "Europe/Helsinki")!
        let clock = LocalClock(timeZone: zone)
        let moments = try ["2026-11-21T17:30", "2026-11-22T03:00", "2026-11-23T08:45", "2026-11-25T23:59",
                           "2026-03-29T02:30", "2026-07-04T12:00"].map { try clock.parse($0) }
        let evaluationRate = measure(batch: parsed.count * moments.count) {
            var open = 0
            for hours in parsed {
                for moment in moments where hours.evaluate(at: moment, timeZone: zone).state == .open { open += 1 }
            }
            return open
        }
        print("hours.evaluate \(Int(evaluationRate)) evaluations per CPU second (state and next change)")
    }

    /// Repeats `body` (which handles `batch` items) for at least a second of CPU time; returns items per
    /// CPU second, which a shared machine's load does not skew as it skews wall time (one thread runs).
    private static func measure(batch: Int, _ body: () -> Int) -> Double {
        var rounds = 0
        var checksum = 0
        let start = MatchingBenchmark.cpuSeconds()
        var elapsed = 0.0
        repeat {
            checksum &+= body()
            rounds += 1
            elapsed = MatchingBenchmark.cpuSeconds() - start
        } while elapsed < 1
        if checksum == Int.min { print("") }  // keeps the work observable to the optimiser
        return Double(rounds * batch) / elapsed
    }

    private static var bundledExtract: URL {
        URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PlacesApp/Resources/EmbeddedData/helsinki.osm.pbf")
    }
}
