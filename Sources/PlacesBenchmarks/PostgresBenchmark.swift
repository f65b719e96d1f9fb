import BudgetLedger
import Foundation
import LookupCache
import PlacesCore
import PostgresStorage
import SpotStore

/// `places-bench postgres --url postgres://… [--clients 50] [--hits N] [--reservations N] [--spots N] [--queries N]`:
/// the shared-state stores against their SQLite twins in the same run (`bench/postgres.sh` starts a throwaway
/// cluster and runs it): cache-hit latency and throughput with 50 concurrent clients, budget reservations per
/// second (reserve then settle, 50 at a time), and `near` (805 m) latency with 100,000 spots.
///
/// The database named by `--url` should be empty: the suite creates its tables there.
enum PostgresBenchmark {
    static func run(arguments: [String]) async throws {
        func option(_ name: String) -> String? {
            guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
            return arguments[i + 1]
        }
        func number(_ name: String, _ fallback: Int) -> Int { option(name).flatMap(Int.init) ?? fallback }
        guard let urlText = option("--url") else {
            FileHandle.standardError.write(Data("places-bench postgres: give --url postgres://user@host:port/database (bench/postgres.sh does)\n".utf8))
            exit(64)
        }
        let clients = number("--clients", 50), hits = number("--hits", 50_000)
        let reservations = number("--reservations", 10_000), spotCount = number("--spots", 100_000), queries = number("--queries", 2_000)

        let database = try await SharedDatabase.open(PostgresStorageConfiguration(url: try PostgresURL(parsing: urlText), poolSize: clients,
                                                                                       timeout: .seconds(120)))  // loading 10,000-spot batches
        defer { database.close() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("places-bench-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let caches: [(String, any LookupCacheStore)] = [
            ("sqlite", try SQLiteLookupCacheStore(path: directory.appendingPathComponent("cache.sqlite"))),
            ("postgres", PostgresLookupCache(database: database)),
        ]
        for (label, cache) in caches {
            try await cacheHits(label, cache, clients: clients, hits: hits)
        }
        // Each store twice: with group commit (the default), and with batches of one, i.e. one transaction and one
        // durable commit per reserve and per settle, as before group commit.
        let ledgers: [(String, any BudgetLedger)] = [
            ("sqlite_one_commit_per_call", try SQLiteBudgetLedger(path: directory.appendingPathComponent("budget-single.sqlite"), maximumBatch: 1)),
            ("sqlite", try SQLiteBudgetLedger(path: directory.appendingPathComponent("budget.sqlite"))),
            ("postgres_one_commit_per_call", PostgresBudgetLedger(database: database, maximumBatch: 1)),
            ("postgres", PostgresBudgetLedger(database: database)),
        ]
        for (label, ledger) in ledgers {
            try await reserve(label, ledger, clients: clients, count: reservations)
        }
        let stores: [(String, any SpotStore)] = [
            ("sqlite", try SQLiteSpotStore(path: directory.appendingPathComponent("spots.sqlite"))),
            ("postgres", PostgresSpotStore(database: database)),
        ]
        for (label, store) in stores {
            try await near(label, store, spots: spotCount, queries: queries)
        }
    }

    /// `clients` tasks read 1,000 stored keys round-robin until `hits` reads are done.
    static func cacheHits(_ label: String, _ cache: any LookupCacheStore, clients: Int, hits: Int) async throws {
        let payload = Data(String(repeating: "x", count: 1_200).utf8)  // about one place's JSON
        for key in 0..<1_000 {
            try await cache.store(key: "lookup|bench \(key)", kind: .answer, payload: payload, providers: ["google"], ttl: 86_400)
        }
        let perClient = hits / clients
        let start = DispatchTime.now().uptimeNanoseconds
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for client in 0..<clients {
                group.addTask {
                    var samples: [Double] = []
                    samples.reserveCapacity(perClient)
                    for n in 0..<perClient {
                        let begin = DispatchTime.now().uptimeNanoseconds
                        guard try await cache.entry(for: "lookup|bench \((client * perClient + n) % 1_000)") != nil else {
                            throw BenchmarkFailure("a stored key was not found")
                        }
                        samples.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1_000_000)
                    }
                    return samples
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }.sorted()
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print("postgres.cache_hit.\(label)_p50 \(String(format: "%.3f", percentile(latencies, 50))) ms (\(clients) clients)")
        print("postgres.cache_hit.\(label)_p99 \(String(format: "%.3f", percentile(latencies, 99))) ms")
        print("postgres.cache_hit.\(label)_per_s \(Int(Double(latencies.count) / seconds))")
    }

    /// `clients` tasks reserve and settle one call each, `count` in all, under a limit none reaches; with the process's
    /// CPU time per reservation.
    static func reserve(_ label: String, _ ledger: any BudgetLedger, clients: Int, count: Int) async throws {
        let quote = PriceQuote(sku: "google.places.text", cost: MicroDollars(32_000))
        let perClient = count / clients
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuBefore = MatchingBenchmark.cpuSeconds()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<clients {
                group.addTask {
                    for _ in 0..<perClient {
                        guard case .granted(let reservation) = try await ledger.reserve(provider: "google", quote: quote) else {
                            throw BenchmarkFailure("a reservation without a limit was denied")
                        }
                        try await ledger.settle(reservation)
                    }
                }
            }
            try await group.waitForAll()
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpu = (MatchingBenchmark.cpuSeconds() - cpuBefore) / Double(perClient * clients) * 1e6
        print("postgres.reservations.\(label)_per_s \(Int(Double(perClient * clients) / seconds)) (reserve + settle, \(clients) at a time; \(Int(cpu)) us CPU each in places-bench)")
    }

    /// `near` within 805 m of random points, one at a time, on `spots` spots spread over 60 × 60 km.
    static func near(_ label: String, _ store: any SpotStore, spots: Int, queries: Int) async throws {
        var generator = SplitMix64(seed: 42)
        func randomPoint() -> Coordinate {
            Coordinate(latitude: 59.95 + generator.unit() * 0.54, longitude: 24.45 + generator.unit() * 1.08)
        }
        var batch: [Spot] = []
        for n in 0..<spots {
            batch.append(Spot(name: "Spot \(n)", coordinate: randomPoint(), category: ["cafe", "restaurant", "museum", "park"][n % 4]))
            if batch.count == 10_000 { try await store.add(batch); batch.removeAll(keepingCapacity: true) }
        }
        if !batch.isEmpty { try await store.add(batch) }
        var latencies: [Double] = []
        for _ in 0..<queries {
            let center = randomPoint()
            let begin = DispatchTime.now().uptimeNanoseconds
            _ = try await store.near(center, radius: 805)
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1_000_000)
        }
        latencies.sort()
        print("postgres.spots_near805.\(label)_p50 \(String(format: "%.3f", percentile(latencies, 50))) ms (\(spots) spots)")
        print("postgres.spots_near805.\(label)_p99 \(String(format: "%.3f", percentile(latencies, 99))) ms")
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
