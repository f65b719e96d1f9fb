import CSQLiteSettings
import Foundation

/// `places-bench <suite> [args…]`: each suite prints its own figures as plain lines.
/// Run in release mode: `swift run -c release places-bench <suite>`.
typealias BenchmarkSuite = @Sendable ([String]) async throws -> Void
var suites: [String: BenchmarkSuite] = [:]
// One line per suite; each lives in its own <Area>Benchmark.swift.
suites["csv"] = CSVBenchmark.run
suites["hours"] = HoursBenchmark.run
suites["http"] = HTTPBenchmark.run
suites["matching"] = MatchingBenchmark.run
suites["pipeline"] = PipelineBenchmark.run
suites["spots"] = SpotsBenchmark.run
suites["postgres"] = PostgresBenchmark.run
suites["local"] = LocalBenchmark.run
suites["local-queries"] = LocalQueryEvaluation.run

// As `places` does first thing (PlacesCommand.main): in-process figures then match the shipped binary's, where
// SQLite's memory statistics are off.
_ = places_sqlite_turn_off_memory_statistics()

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let suite = suites[name] else {
    let known = suites.keys.sorted().joined(separator: ", ")
    FileHandle.standardError.write(Data("usage: places-bench <suite> [args…]; suites: \(known)\n".utf8))
    exit(arguments.isEmpty ? 0 : 64)
}
try await suite(Array(arguments.dropFirst()))
