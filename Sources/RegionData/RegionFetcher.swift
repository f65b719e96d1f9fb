import Crypto
import Foundation
import PlacesCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A region downloaded and checked, as remembered in `regions/fetched.json` for `places data update`.
public struct FetchedRegion: Codable, Sendable, Hashable {
    public var id: String
    /// The file in the regions folder (`finland-latest.osm.pbf`).
    public var file: String
    public var url: String
    /// The MD5 sum the file was checked against (`nil` for GeoNames, which publishes none).
    public var md5: String?
    public var bytes: Int64
    public var fetchedAt: Date
}

/// Finds regions, downloads them resumably into the data directory's `regions/` folder and checks them against the
/// publisher's MD5 sum. It never touches the index: the caller imports the checked file.
///
/// ```swift
/// let fetcher = RegionFetcher(geofabrikBaseURL: URL(string: "https://download.geofabrik.de")!,
///                             geonamesBaseURL: URL(string: "https://download.geonames.org/export/dump")!,
///                             directory: dataDirectory.appendingPathComponent("regions"), userAgent: "places/0.1.0")
/// let region = try await fetcher.catalog(including: "finland").region(named: "finland")
/// let fetched = try await fetcher.fetch(region)          // finland-latest.osm.pbf, MD5 checked
/// ```
public struct RegionFetcher: Sendable {
    public var geofabrikBaseURL: URL
    public var geonamesBaseURL: URL
    public var directory: URL
    public var downloader: ResumableDownloader

    public init(geofabrikBaseURL: URL, geonamesBaseURL: URL, directory: URL, userAgent: String, attempts: Int = 3,
                idleTimeout: TimeInterval = 60) {
        self.geofabrikBaseURL = geofabrikBaseURL
        self.geonamesBaseURL = geonamesBaseURL
        self.directory = directory
        self.downloader = ResumableDownloader(idleTimeout: idleTimeout, attempts: attempts, userAgent: userAgent)
    }

    /// The regions a name may refer to: GeoNames dumps always (they need no index), Geofabrik's regions unless the
    /// name is a `geonames:` one (so fetching a GeoNames dump works when Geofabrik is unreachable).
    public func catalog(including name: String? = nil) async throws(RegionDataError) -> RegionCatalog {
        let geonames = GeoNamesDumps.regions(baseURL: geonamesBaseURL)
        if let name, name.lowercased().hasPrefix("geonames:") { return RegionCatalog(regions: geonames) }
        let index = try await get(geofabrikBaseURL.appendingPathComponent(GeofabrikIndex.indexPath))
        return RegionCatalog(regions: try GeofabrikIndex.parse(index) + geonames)
    }

    /// The MD5 sum Geofabrik publishes for `region` now, lower-case hex; `nil` for a GeoNames dump.
    public func publishedMD5(of region: Region) async throws(RegionDataError) -> String? {
        guard let checksumURL = region.checksumURL else { return nil }
        let text = String(decoding: try await get(checksumURL), as: UTF8.self)
        guard let md5 = MD5Sum.parse(text) else {
            throw .badChecksumFile(url: Redaction.urlPasswords(checksumURL.absoluteString))
        }
        return md5
    }

    /// Downloads `region` (resuming a partial file) and checks it against `md5` (from ``publishedMD5(of:)``).
    /// A file whose sum differs is deleted and reported; a checked one is recorded in `fetched.json`.
    public func fetch(_ region: Region, md5: String?, progress: ResumableDownloader.Progress? = nil,
                      resumedFrom: (@Sendable (Int64) -> Void)? = nil) async throws(RegionDataError) -> (FetchedRegion, URL) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .file(path: directory.path, reason: error.localizedDescription)
        }
        let destination = directory.appendingPathComponent(region.fileName)
        // Downloaded beside the checked copy, so a bad download never replaces the file the index came from.
        let incoming = directory.appendingPathComponent(region.fileName + ".incoming")
        let bytes = try await downloader.download(region.url, to: incoming, label: region.fileName, progress: progress, resumedFrom: resumedFrom)
        if let md5 {
            let actual = try MD5Sum.of(file: incoming)
            guard actual == md5 else {
                try? FileManager.default.removeItem(at: incoming)
                throw .checksumMismatch(file: region.fileName, expected: md5, actual: actual)
            }
        }
        do {
            if FileManager.default.fileExists(atPath: destination.path) { try FileManager.default.removeItem(at: destination) }
            try FileManager.default.moveItem(at: incoming, to: destination)
        } catch {
            throw .file(path: destination.path, reason: error.localizedDescription)
        }
        let fetched = FetchedRegion(id: region.id, file: region.fileName, url: Redaction.urlPasswords(region.url.absoluteString),
                                    md5: md5, bytes: bytes, fetchedAt: Date())
        try record(fetched)
        return (fetched, destination)
    }

    // MARK: What was fetched

    var manifest: URL { directory.appendingPathComponent("fetched.json") }

    /// Every region fetched and checked so far, by id.
    public func fetched() -> [FetchedRegion] {
        guard let data = try? Data(contentsOf: manifest) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return ((try? decoder.decode([FetchedRegion].self, from: data)) ?? []).sorted { $0.id < $1.id }
    }

    func record(_ region: FetchedRegion) throws(RegionDataError) {
        var all = fetched().filter { $0.id != region.id }
        all.append(region)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(all.sorted { $0.id < $1.id }).write(to: manifest, options: .atomic)
        } catch {
            throw .file(path: manifest.path, reason: error.localizedDescription)
        }
    }

    // MARK: Small requests

    private func get(_ url: URL) async throws(RegionDataError) -> Data {
        try RegionDataError.requireLibcurl()
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: downloader.idleTimeout)
        request.setValue(downloader.userAgent, forHTTPHeaderField: "User-Agent")
        let shown = Redaction.urlPasswords(url.absoluteString)
        let data: Data, response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw .interrupted(file: shown, received: 0, expected: nil, reason: "cannot reach \(url.host ?? "the server")")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else { throw .httpStatus(url: shown, status: status) }
        return data
    }
}

/// MD5 sums as Geofabrik publishes them (`<hex>  finland-latest.osm.pbf`) and as computed over a file.
public enum MD5Sum {
    /// The first 32-hex-digit word of an `md5sum` line, lower-cased.
    public static func parse(_ text: String) -> String? {
        let word = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).first.map(String.init) ?? ""
        guard word.count == 32, word.allSatisfy(\.isHexDigit) else { return nil }
        return word.lowercased()
    }

    /// The MD5 of a file, read 1 MiB at a time.
    public static func of(file: URL) throws(RegionDataError) -> String {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: file) } catch {
            throw .file(path: file.path, reason: error.localizedDescription)
        }
        defer { try? handle.close() }
        var md5 = Insecure.MD5()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { md5.update(data: chunk) }
        } catch {
            throw .file(path: file.path, reason: error.localizedDescription)
        }
        return md5.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
