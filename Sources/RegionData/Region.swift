import Foundation
import PlacesCore

/// A named download that the local index can import: a Geofabrik OSM extract or a GeoNames dump.
///
/// Regions are named the way their publishers name them, so a user can copy a name from either site:
/// Geofabrik ids (`finland`, `europe`, `us/california`) and GeoNames dumps prefixed `geonames:`
/// (`geonames:cities1000`, `geonames:allCountries`, `geonames:FI`).
public struct Region: Sendable, Hashable {
    public enum Source: String, Sendable, Hashable {
        case geofabrik
        case geonames
    }

    /// What `places data fetch` takes: `finland`, `geonames:cities1000`.
    public var id: String
    /// The publisher's display name: `Finland`, `GeoNames cities with population ≥ 1000`.
    public var name: String
    /// The enclosing Geofabrik region (`europe` for `finland`); `nil` for continents and GeoNames dumps.
    public var parent: String?
    public var source: Source
    /// The file to download (`…/finland-latest.osm.pbf`, `…/cities1000.zip`).
    public var url: URL
    /// Where the publisher keeps the file's MD5 sum (Geofabrik's `<file>.md5`); `nil` when it publishes none
    /// (GeoNames), in which case the download is checked by its length and the import's own checks.
    public var checksumURL: URL?

    public init(id: String, name: String, parent: String? = nil, source: Source, url: URL, checksumURL: URL? = nil) {
        self.id = id
        self.name = name
        self.parent = parent
        self.source = source
        self.url = url
        self.checksumURL = checksumURL
    }

    /// The name the downloaded file keeps in the data directory (and in `places index`).
    public var fileName: String { url.lastPathComponent }
}

/// Every region the two publishers offer, searchable by id.
public struct RegionCatalog: Sendable {
    public var regions: [Region]

    public init(regions: [Region]) { self.regions = regions }

    /// The region with this id (case and accents ignored), or a typed ``RegionDataError/unknownRegion(_:suggestions:)``
    /// naming up to five ids that contain what was typed.
    public func region(named text: String) throws(RegionDataError) -> Region {
        let wanted = TextFolding.fold(text.trimmingCharacters(in: .whitespaces))
        if let exact = regions.first(where: { TextFolding.fold($0.id) == wanted }) { return exact }
        if let byName = regions.first(where: { TextFolding.fold($0.name) == wanted }) { return byName }
        let suggestions = matching(text).prefix(5).map(\.id)
        throw .unknownRegion(text, suggestions: Array(suggestions))
    }

    /// Regions whose id, name or parent contains `filter` (all when it is empty), in catalogue order.
    public func matching(_ filter: String) -> [Region] {
        let wanted = TextFolding.fold(filter.trimmingCharacters(in: .whitespaces))
        guard !wanted.isEmpty else { return regions }
        return regions.filter { region in
            [region.id, region.name, region.parent ?? ""].contains { TextFolding.fold($0).contains(wanted) }
        }
    }
}
