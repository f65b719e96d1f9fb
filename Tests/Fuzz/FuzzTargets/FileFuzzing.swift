import Foundation
import LocalProvider
import PlaceIndex
import PlacesCore
import PlacesMatching
import SpotStore

/// The file readers, fed the way `places import`, `places spots import` and `places match` feed them.
enum FileFuzzing {
    static func pbf(_ data: Data) {
        let url = ScratchFile.write(data, named: "fuzz.osm.pbf")
        do {
            let reader = try OSMPBFReader(url: url)
            var elements = 0, nodes = 0
            try? reader.forEachElement { element in
                elements += 1
                if case .node = element { nodes += 1 }
                _ = element.tags["name"]
            }
            // As `places import` reads: node positions apart, tags selected by key and refused by object. The
            // same blocks are delivered either way, a corrupt one included (nothing of it), so as many positions.
            let selection = OSMTagSelection(mark: { $0 == "name" ? 1 : $0.hasPrefix("addr:") ? 0 : nil }, keepsObject: { $0 == 1 })
            var positions = 0
            try? reader.forEachElement(selectingTags: selection, nodePositions: { positions += $0.ids.count },
                                       preparing: { _ in () }) { element, _ in
                FuzzTarget.check(element.tags.isEmpty || element.tags["name"] != nil, "a refused object kept its tags")
            }
            FuzzTarget.check(positions == nodes, "\(positions) node positions for \(nodes) nodes")
        } catch {}
    }

    /// `places import` of a `.osm.pbf` file, into an index in memory: what the extractor makes of any objects a
    /// file can hold (POIs, streets, areas, postcodes, address points) reaches the writer. A target of its own:
    /// a fresh index per input runs ~50 times slower than reading the file alone, which `pbf` keeps fast.
    static func pbfImport(_ data: Data) {
        // A name of its own: the corpus replay runs the targets in parallel in one process, and `pbf` reading its
        // file twice while this one rewrote it saw "0 node positions for 4 nodes".
        let url = ScratchFile.write(data, named: "fuzz-import.osm.pbf")
        guard let index = try? PlaceIndexStore.inMemory() else { return }
        _ = try? LocalImporter(index: index).importFile(url)
    }

    /// First byte: the container (text, gzip or zip); the rest is the file.
    static func geoNames(_ data: Data) {
        guard let control = data.first else { return }
        let containers: [GeoNamesReader.Container] = [.text, .gzip, .zip]
        let container = containers[Int(control) % containers.count]
        let url = ScratchFile.write(data.dropFirst(), named: "cities.\(container.rawValue)")
        do {
            try GeoNamesReader(url: url, container: container).forEachRecord { record in
                FuzzTarget.check(record.coordinate.latitude.isFinite && record.coordinate.longitude.isFinite,
                                 "a GeoNames record has a non-finite coordinate")
                _ = record.coordinate.description
            }
        } catch {}
    }

    /// An import, then the export of what it read: the spots' fields reach every writer.
    static func spots(_ data: Data, format: SpotFormat) {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        guard let archive = try? SpotFiles.parse(data, format: format, now: now) else { return }
        for spot in archive.spots {
            FuzzTarget.check(spot.coordinate.latitude.isFinite && abs(spot.coordinate.latitude) <= 90
                             && spot.coordinate.longitude.isFinite && abs(spot.coordinate.longitude) <= 180,
                             "an imported spot has a coordinate outside the globe")
        }
        for format in SpotFormat.allCases { _ = try? SpotFiles.export(archive, format: format) }
    }

    /// First byte: bit 0 = CSV or JSON Lines, bit 1 = `--skip-bad-lines`.
    static func records(_ data: Data) {
        guard let control = data.first else { return }
        let format: RecordFile.Format = control & 1 == 0 ? .csv : .jsonLines
        guard let contents = try? RecordFile.parse(data.dropFirst(), name: "records", format: format,
                                                   skipBadLines: control & 2 != 0) else { return }
        for record in contents.records {
            if let coordinate = record.coordinate {
                FuzzTarget.check(coordinate.latitude.isFinite && coordinate.longitude.isFinite,
                                 "a record has a non-finite coordinate")
                _ = coordinate.description
            }
        }
    }
}
