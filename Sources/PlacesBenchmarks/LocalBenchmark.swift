import Foundation
import LocalProvider
import PlaceIndex
import PlacesApp
import PlacesCore

/// `places-bench local [DATA_DIR] [--index PATH] [--slowest N]`: import throughput of the Helsinki extract
/// and the full GeoNames cities1000 dump, then search/nearby/reverse/suggest/details latency over an
/// on-disk index holding both. Search runs twice: over a fixed list of everyday queries, and over the
/// labelled set's 219 queries (`bench/local-queries.jsonl`, eight kinds, typo fallbacks included).
///
/// `--index PATH` keeps the index at PATH and, when PATH already holds one, skips the imports: for
/// iterating on query speed without paying for an import each time. `--slowest N` (default 12) lists the
/// N slowest searches and suggestions by CPU time with their kind, so a p99 names its cause. `--only NAME`
/// runs only the series whose name contains NAME (`--only suggest`); `--matching TEXT` keeps, in the series that
/// list their inputs, only the inputs whose label contains TEXT (`--only labelled --matching "cash machine"`), so
/// one slow query can be profiled on its own.
enum LocalBenchmark {
    static func run(arguments: [String]) async throws {
        func option(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
        }
        let positional = arguments.enumerated().filter { index, argument in
            !argument.hasPrefix("--") && (index == 0 || !arguments[index - 1].hasPrefix("--"))
        }.map(\.element)
        let dataDirectory = positional.first.map { URL(fileURLWithPath: $0) } ?? defaultDataDirectory()
        let slowest = option("--slowest").flatMap(Int.init) ?? 12
        let only = option("--only")
        let matching = option("--matching")
        let pbf = dataDirectory.appendingPathComponent("helsinki.osm.pbf")
        let cities = dataDirectory.appendingPathComponent("geonames-cities1000.txt.gz")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("places-bench-local-\(UUID().uuidString)")
        let indexFile = option("--index").map { URL(fileURLWithPath: $0) } ?? scratch.appendingPathComponent("index.sqlite")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        let series = Series(only: only, matching: matching, slowest: slowest)
        if try PlaceIndexStore(path: indexFile).isEmpty {
            // Imported through a store of its own: when it is released, its last connection folds the
            // write-ahead log into the file, so the size below is the index at rest.
            let importer = LocalImporter(index: try PlaceIndexStore(path: indexFile))
            var cpuStart = processCPUSeconds()
            let osm = try importer.importFile(pbf)
            report("local.import.pbf.seconds", osm.elapsedSeconds, "s")
            report("local.import.pbf.cpu_seconds", processCPUSeconds() - cpuStart, "s")
            report("local.import.pbf.throughput", osm.objectsPerSecond, "objects/s")
            cpuStart = processCPUSeconds()
            let geonames = try importer.importFile(cities)
            let geonamesCPU = processCPUSeconds() - cpuStart
            report("local.import.geonames.seconds", geonames.elapsedSeconds, "s")
            report("local.import.geonames.cpu_seconds", geonamesCPU, "s")
            report("local.import.geonames.throughput", geonames.objectsPerSecond, "objects/s")
            report("local.import.geonames.throughput_cpu", Double(geonames.objectsRead) / geonamesCPU, "objects/cpu-s")
            report("local.import.geonames.cities", Double(geonames.citiesIndexed), "cities")
        } else {
            print("local.import skipped: \(indexFile.path) already holds an index")
        }
        let index = try PlaceIndexStore(path: indexFile)
        let bytes = Double(fileSize(atPath: indexFile.path) ?? 0)
        let wal = Double(fileSize(atPath: indexFile.path + "-wal") ?? 0)
        report("local.index.size", (bytes + wal) / 1_048_576, "MiB")
        report("local.index.names", Double(try index.sources().map(\.names).reduce(0, +)), "names")

        let center = Coordinate(latitude: 60.1700, longitude: 24.9410)
        let searches: [(String, Coordinate?)] = [
            ("maya bar", Coordinate(latitude: 60.1721, longitude: 24.9450)), ("cafe", center), ("helsinki", nil),
            ("stockholm", nil), ("pizza", center), ("burger king", center), ("hotel", center), ("kiasma", nil),
            ("san francisco", nil), ("cafe strindberg", nil), ("museum", center), ("paris", Coordinate(latitude: 48.85, longitude: 2.35)),
            // Issue 12's kinds: other names, addresses, run-together names, category words, typos (the
            // fallbacks that run only when nothing matched exactly).
            ("tukholma", nil), ("milano", nil), ("finlands nationalteater", nil), ("mikonkatu 18", nil),
            ("18 mikonkatu, helsinki", nil), ("rkioski", center), ("mcdonalds", center), ("chemist", center),
            ("cash machine", center), ("kaisma", nil), ("stokmann", center), ("helsinkki", nil), ("akateeminen kirjakaupa", center),
        ]
        let box = (lat: 60.1642...60.1791, lon: 24.9352...24.9534)
        var generator = SplitMix64(seed: 42)
        func randomPoint() -> Coordinate {
            Coordinate(latitude: Double.random(in: box.lat, using: &generator), longitude: Double.random(in: box.lon, using: &generator))
        }
        let iterations = 2_000
        try series.measure("local.search", iterations, label: { i in "\(searches[i % searches.count].0)" }) { i in
            let (text, near) = searches[i % searches.count]
            _ = try index.search(text: text, near: near, limit: 10)
        }
        let labelled = try LocalQueryEvaluation.queries()
        try series.measure("local.search.labelled", iterations, label: { i in
            let query = labelled[i % labelled.count]
            return "[\(query.kind)] \(query.query)\(query.near.map { " near \($0)" } ?? "")"
        }) { i in
            let query = labelled[i % labelled.count]
            _ = try index.search(text: query.query, near: query.near.flatMap { try? Coordinate(parsing: $0) }, limit: 10)
        }
        try series.measure("local.nearby", iterations) { i in
            _ = try index.nearby(center: randomPoint(), radius: i % 2 == 0 ? 300 : 1_000, category: i % 2 == 0 ? "cafe" : nil)
        }
        try series.measure("local.reverse", iterations) { _ in _ = try index.reverse(randomPoint()) }
        let prefixes = ["m", "ma", "may", "maya b", "kia", "hel", "sto", "caf", "stri", "bur", "tukh", "rkio"]
        try series.measure("local.suggest", iterations, label: { i in "\(prefixes[i % prefixes.count]) near" }) { i in
            _ = try index.suggest(prefix: prefixes[i % prefixes.count], near: center)
        }
        let letters = "abcdefghijklmnoprstuvy".map(String.init)
        try series.measure("local.suggest.one_letter", iterations,
                    label: { i in letters[i % letters.count] + (i % 2 == 0 ? " near" : "") }) { i in
            _ = try index.suggest(prefix: letters[i % letters.count], near: i % 2 == 0 ? center : nil)
        }
        // Two letters, with and without a point: the other prefixes short enough to match a large share of names.
        let pairs = ["ma", "sa", "ka", "be", "st", "la", "he", "ko", "po", "ch", "ne", "al"]
        try series.measure("local.suggest.two_letters", iterations,
                    label: { i in pairs[i % pairs.count] + (i % 2 == 0 ? " near" : "") }) { i in
            _ = try index.suggest(prefix: pairs[i % pairs.count], near: i % 2 == 0 ? center : nil)
        }
        // What `places details --json` and an uncached server DETAILS do: read the place, give it its
        // city's time zone (for opening hours), encode the JSON.
        let ids = try index.nearby(center: center, radius: 2_000, limit: 500).map(\.id)
        try series.measure("local.details", iterations) { i in
            var place = try index.place(id: ids[i % ids.count])!
            place.timeZone = try index.cities(near: [place.coordinate])[0]?.timeZone
            _ = try PlacesJSON.place(place)
        }
    }

    private static func processCPUSeconds() -> Double { cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) }
    fileprivate static func threadCPUSeconds() -> Double { cpuSeconds(CLOCK_THREAD_CPUTIME_ID) }

    private static func cpuSeconds(_ clock: clockid_t) -> Double {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    fileprivate static func report(_ name: String, _ value: Double, _ unit: String) {
        print(name, String(format: value >= 100 ? "%.0f" : "%.3f", value), unit)
    }

    /// `../shared/data` next to the repository this was built from.
    private static func defaultDataDirectory() -> URL {
        URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/data").standardizedFileURL
    }
}

/// How `places-bench local` runs each latency series: which ones (`--only`), which of their inputs (`--matching`) and
/// how many slowest inputs to list.
private struct Series {
    var only: String?
    var matching: String?
    var slowest: Int

    /// Runs `body` `iterations` times and reports wall and CPU p50/p99; with `label`, also the `slowest`
    /// distinct inputs by their median CPU time (and their worst), so a p99 can be traced to the queries behind it.
    func measure(_ name: String, _ iterations: Int, label: ((Int) -> String)? = nil, _ body: (Int) throws -> Void) throws {
        if let only, !name.contains(only) { return }
        var inputs = Array(0..<iterations)
        if let matching, let label {
            inputs = inputs.filter { label($0).contains(matching) }
            guard !inputs.isEmpty else { return print("\(name): no input's label contains \"\(matching)\"") }
        }
        func run(_ i: Int) throws { try body(inputs[i % inputs.count]) }
        let label = label.map { label in { (i: Int) in label(inputs[i % inputs.count]) } }
        for i in 0..<50 { try run(i) }  // Warm the page cache and statement caches.
        // Wall time is what a user waits; thread CPU time is the same work without the scheduler's
        // share of a busy machine, so both are reported.
        var wall: [Double] = [], cpu: [Double] = []
        var byLabel: [String: [Double]] = [:]
        wall.reserveCapacity(iterations)
        cpu.reserveCapacity(iterations)
        for i in 0..<iterations {
            let startCPU = LocalBenchmark.threadCPUSeconds()
            let start = DispatchTime.now().uptimeNanoseconds
            try run(i)
            wall.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            cpu.append((LocalBenchmark.threadCPUSeconds() - startCPU) * 1e3)
            if let label { byLabel[label(i), default: []].append(cpu.last!) }
        }
        wall.sort()
        cpu.sort()
        LocalBenchmark.report("\(name).p50", percentile(wall, 50), "ms")
        LocalBenchmark.report("\(name).p99", percentile(wall, 99), "ms")
        LocalBenchmark.report("\(name).cpu.p50", percentile(cpu, 50), "ms")
        LocalBenchmark.report("\(name).cpu.p99", percentile(cpu, 99), "ms")
        let medians = byLabel.mapValues { times in
            let sorted = times.sorted()
            return (median: percentile(sorted, 50), worst: sorted.last!)
        }
        for (key, time) in medians.sorted(by: { $0.value.median > $1.value.median }).prefix(slowest) {
            print("  \(name).slowest", String(format: "cpu p50 %.3f ms max %.3f ms", time.median, time.worst), key)
        }
    }
}
