import FakeUpstream
import Foundation
import Testing

/// `places data list|fetch|update` against a fake Geofabrik on 127.0.0.1 that serves an index naming one region and
/// the repository's own Helsinki extract as its `.osm.pbf`.
@Suite struct DataCLITests {
    /// The repository's Helsinki extract, served as `helsinki-latest.osm.pbf`.
    static let extract = try! Data(contentsOf: CLIHarness.embeddedData.appendingPathComponent("helsinki.osm.pbf"))
    /// `md5sum Sources/PlacesApp/Resources/EmbeddedData/helsinki.osm.pbf`, run by hand (GNU coreutils 9.1).
    static let extractMD5 = "0913471d966dbbd478fea8edd4d8007c"
    static let pbfPath = "/europe/finland/helsinki-latest.osm.pbf"

    /// How the fake treats downloads of the extract; changed between runs of the CLI.
    final class Behaviour: @unchecked Sendable {
        private let lock = NSLock()
        private var _cutAfter: Int?
        private var _cutFirstOnly = true
        private var _md5 = DataCLITests.extractMD5
        private var pbfRequests = 0

        /// Cut every reply (or only the first, when `firstOnly`) after `bytes` bytes of body.
        func cut(after bytes: Int?, firstOnly: Bool) { lock.withLock { _cutAfter = bytes; _cutFirstOnly = firstOnly } }
        func publish(md5: String) { lock.withLock { _md5 = md5 } }
        var md5: String { lock.withLock { _md5 } }

        func cutForNextRequest() -> Int? {
            lock.withLock {
                pbfRequests += 1
                guard let cut = _cutAfter else { return nil }
                if _cutFirstOnly && pbfRequests > 1 { return nil }
                return cut
            }
        }
    }

    /// A fake Geofabrik: the index, each extract's `.md5`, and the extract itself with HTTP Range support.
    static func geofabrik(_ behaviour: Behaviour) async throws -> FakeUpstream {
        let fake = try await FakeUpstream.start()
        let base = fake.baseURL.absoluteString
        let index = """
            {"type":"FeatureCollection","features":[
             {"type":"Feature","properties":{"id":"europe","name":"Europe",
              "urls":{"pbf":"\(base)/europe-latest.osm.pbf"}},"geometry":null},
             {"type":"Feature","properties":{"id":"helsinki","parent":"finland","name":"Helsinki (test extract)",
              "urls":{"pbf":"\(base)\(pbfPath)","bz2":"\(base)/europe/finland/helsinki-latest.osm.bz2"}},"geometry":null}]}
            """
        fake.setHandler { request in
            switch request.path {
            case "/index-v1-nogeom.json":
                return .json(index)
            case pbfPath + ".md5":
                return FakeReply(status: 200, body: Data("\(behaviour.md5)  helsinki-latest.osm.pbf\n".utf8))
            case pbfPath:
                let cut = behaviour.cutForNextRequest()
                var reply: FakeReply
                if let range = request.header("Range"), range.hasPrefix("bytes="),
                   let start = Int(range.dropFirst("bytes=".count).split(separator: "-").first ?? ""), start < extract.count {
                    reply = FakeReply(status: 206, headers: ["Content-Range": "bytes \(start)-\(extract.count - 1)/\(extract.count)"],
                                      body: extract.subdata(in: start..<extract.count))
                } else {
                    reply = FakeReply(status: 200, body: extract)
                }
                if let cut { reply = .cutMidBody(reply, after: cut) }
                return reply
            default:
                return FakeReply(status: 404, body: Data("Not Found".utf8))
            }
        }
        return fake
    }

    static func environment(_ fake: FakeUpstream) -> [String: String] {
        ["PLACES_GEOFABRIK_URL": fake.baseURL.absoluteString]
    }

    static func indexedFiles(_ cli: CLIHarness) throws -> [String: Int] {
        let result = try cli.run("index", "--json")
        let rows = try #require(try result.json() as? [[String: Any]], "\(result.stderr)")
        return Dictionary(rows.map { ($0["file"] as? String ?? "", $0["places"] as? Int ?? -1) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func listNamesTheRegionsOfTheIndexAndTheGeoNamesDumps() async throws {
        let fake = try await Self.geofabrik(Behaviour())
        let cli = try CLIHarness.fresh()
        let table = try await cli.run("data", "list", environment: Self.environment(fake))
        let filtered = try await cli.run("data", "list", "helsinki", "--json", environment: Self.environment(fake))
        await fake.shutdown()
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdoutText.contains("helsinki"))
        #expect(table.stdoutText.contains("geonames:cities1000"))
        let regions = try #require(try filtered.json() as? [[String: Any]], "\(filtered.stderr)")
        #expect(regions.map { $0["id"] as? String } == ["helsinki"])
        #expect(regions.first?["parent"] as? String == "finland")
        #expect(regions.first?["url"] as? String == fake.baseURL.absoluteString + Self.pbfPath)
    }

    @Test func fetchResumesACutTransferChecksItAndImports() async throws {
        let behaviour = Behaviour()
        behaviour.cut(after: 200_000, firstOnly: true)
        let fake = try await Self.geofabrik(behaviour)
        let cli = try CLIHarness.fresh()
        let result = try await cli.run("data", "fetch", "helsinki", environment: Self.environment(fake))
        await fake.shutdown()
        #expect(result.status == 0, "\(result.stderr)")
        let downloads = fake.requests.filter { $0.path == Self.pbfPath }
        #expect(downloads.count == 2)
        #expect(downloads.first?.header("Range") == nil)
        let resumedAt = try #require(downloads.last?.header("Range"), "the second request asked for a range")
        let offset = try #require(Int(resumedAt.dropFirst("bytes=".count).dropLast()))
        #expect(offset > 0 && offset <= 200_000, "\(resumedAt)")
        #expect(result.stderr.contains("resuming helsinki-latest.osm.pbf from byte \(offset)"), "\(result.stderr)")
        #expect(result.stderr.contains(Self.extractMD5), "\(result.stderr)")
        // The resumed file is byte for byte the extract, and it is in the index.
        let kept = try Data(contentsOf: cli.home.appendingPathComponent("regions/helsinki-latest.osm.pbf"))
        #expect(kept == Self.extract)
        #expect((try Self.indexedFiles(cli)["helsinki-latest.osm.pbf"] ?? 0) > 1_000)
        // A place only the extract holds is found.
        let search = try await cli.run("search", "Maya Bar", "--near", "60.1721,24.9450", "--json")
        #expect(search.stdoutText.contains("Maya Bar"), "\(search.stderr)")
    }

    @Test func aDownloadThatKeepsFailingIsResumedByTheNextRun() async throws {
        let behaviour = Behaviour()
        behaviour.cut(after: 100_000, firstOnly: false)
        let fake = try await Self.geofabrik(behaviour)
        let cli = try CLIHarness.fresh()
        let failed = try await cli.run("data", "fetch", "helsinki", environment: Self.environment(fake))
        #expect(failed.status != 0)
        let lines = failed.stderr.split(separator: "\n").filter { !$0.contains("resuming") }
        #expect(lines.count == 1, "\(failed.stderr)")
        #expect(failed.stderr.contains("run the same command again to resume"), "\(failed.stderr)")
        let part = cli.home.appendingPathComponent("regions/helsinki-latest.osm.pbf.incoming.part")
        let kept = try Data(contentsOf: part).count
        #expect(kept > 0 && kept <= 300_000, "three attempts of at most 100000 bytes each: \(kept)")

        behaviour.cut(after: nil, firstOnly: true)
        let resumed = try await cli.run("data", "fetch", "helsinki", environment: Self.environment(fake))
        await fake.shutdown()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(fake.requests.last { $0.path == Self.pbfPath }?.header("Range") == "bytes=\(kept)-")
        #expect(try Data(contentsOf: cli.home.appendingPathComponent("regions/helsinki-latest.osm.pbf")) == Self.extract)
        #expect(!FileManager.default.fileExists(atPath: part.path))
    }

    @Test func aBadChecksumIsRefusedInOneLineAndTheIndexStaysAsItWas() async throws {
        let behaviour = Behaviour()
        behaviour.publish(md5: "0123456789abcdef0123456789abcdef")
        let fake = try await Self.geofabrik(behaviour)
        let cli = try CLIHarness.fresh()
        let before = try Self.indexedFiles(cli)
        let result = try await cli.run("data", "fetch", "helsinki", environment: Self.environment(fake))
        await fake.shutdown()
        #expect(result.status != 0)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("MD5 is \(Self.extractMD5) but the publisher's is 0123456789abcdef0123456789abcdef"),
                "\(result.stderr)")
        #expect(result.stderr.contains("the index is unchanged"))
        #expect(try Self.indexedFiles(cli) == before)
        let regions = cli.home.appendingPathComponent("regions")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: regions.path)) ?? []
        #expect(!left.contains { $0.hasSuffix(".pbf") || $0.hasSuffix(".incoming") }, "\(left)")
    }

    @Test func updateDownloadsOnlyWhenThePublishedSumChanged() async throws {
        let fake = try await Self.geofabrik(Behaviour())
        let cli = try CLIHarness.fresh()
        let fetched = try await cli.run("data", "fetch", "helsinki", environment: Self.environment(fake))
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let update = try await cli.run("data", "update", environment: Self.environment(fake))
        await fake.shutdown()
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stderr.contains("helsinki is up to date"), "\(update.stderr)")
        #expect(fake.requests.filter { $0.path == Self.pbfPath }.count == 1)
    }

    @Test func anUnknownRegionSaysWhereToLook() async throws {
        let fake = try await Self.geofabrik(Behaviour())
        let cli = try CLIHarness.fresh()
        let result = try await cli.run("data", "fetch", "hels", environment: Self.environment(fake))
        await fake.shutdown()
        #expect(result.status != 0)
        #expect(result.stderr.contains("unknown region 'hels' (did you mean 'helsinki'?)"), "\(result.stderr)")
        #expect(result.stderr.contains("places data list"))
    }

    @Test func anUnreachableSourceIsOneLine() throws {
        let cli = try CLIHarness.fresh()
        let result = try cli.run("data", "list", environment: ["PLACES_GEOFABRIK_URL": "http://127.0.0.1:9"])
        #expect(result.status != 0)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cannot reach 127.0.0.1"), "\(result.stderr)")
    }
}
