import Foundation
import LocalProvider
import PlaceIndex
import PlacesCore

/// `places-bench local-queries [QUERIES.jsonl] [--misses]`: the labelled query set of issue 12 (made by
/// `bench/local_queries.py` from the bundled data) against an index built from the same bundled files,
/// as a first run builds it. Prints top-1 and top-3 rates per kind and overall; `--misses` lists each
/// query whose expected place is not in the top 3, with what came first instead.
enum LocalQueryEvaluation {
    struct Query: Decodable {
        var kind: String
        var query: String
        var near: String?
        var expected: [String]
    }

    /// The repository this was built from.
    static let repository = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The labelled queries in `file` (default: the repository's `bench/local-queries.jsonl`).
    static func queries(file: URL = repository.appendingPathComponent("bench/local-queries.jsonl")) throws -> [Query] {
        let decoder = JSONDecoder()
        return try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            .map { try decoder.decode(Query.self, from: Data($0.utf8)) }
    }

    static func run(arguments: [String]) async throws {
        let file = arguments.first { !$0.hasPrefix("--") }.map { URL(fileURLWithPath: $0) }
            ?? repository.appendingPathComponent("bench/local-queries.jsonl")
        let showMisses = arguments.contains("--misses")
        let data = repository.appendingPathComponent("Sources/PlacesApp/Resources/EmbeddedData")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("places-bench-queries-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let index = try PlaceIndexStore(path: scratch.appendingPathComponent("index.sqlite"))
        _ = try LocalImporter(index: index).importFiles(
            ["helsinki.osm.pbf", "geonames-cities15000.txt.gz"].map { data.appendingPathComponent($0) })

        let queries = try queries(file: file)
        var tally: [String: (total: Int, top1: Int, top3: Int)] = [:]
        for query in queries {
            let near = try query.near.map { try Coordinate(parsing: $0) }
            let found = try index.search(text: query.query, near: near, limit: 3)
            let ids = found.map(\.id.description)
            let expected = Set(query.expected)
            var counts = tally[query.kind, default: (0, 0, 0)]
            counts.total += 1
            if let first = ids.first, expected.contains(first) { counts.top1 += 1 }
            if ids.contains(where: expected.contains) {
                counts.top3 += 1
            } else if showMisses {
                print("miss [\(query.kind)] \(query.query) near=\(query.near ?? "-") expected=\(query.expected.prefix(3)) got=\(found.map { "\($0.name) \($0.id)" })")
            }
            tally[query.kind] = counts
        }
        var total = (total: 0, top1: 0, top3: 0)
        for (kind, counts) in tally.sorted(by: { $0.key < $1.key }) {
            print(String(format: "local.queries.%@ n=%d top1 %.3f top3 %.3f", kind, counts.total,
                         Double(counts.top1) / Double(counts.total), Double(counts.top3) / Double(counts.total)))
            total = (total.total + counts.total, total.top1 + counts.top1, total.top3 + counts.top3)
        }
        print(String(format: "local.queries.overall n=%d top1 %.3f top3 %.3f", total.total,
                     Double(total.top1) / Double(total.total), Double(total.top3) / Double(total.total)))
    }
}
