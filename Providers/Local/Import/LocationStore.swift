import Foundation
import PlacesCore

/// Positions of OSM objects by id while an extract is read: every node's, so ways (centroid of their nodes)
/// can be placed, and the centroids of ways and relations, so relations (centroid of their members) can.
///
/// Positions are kept at 1e-7 degrees (OSM's own precision) as 16-byte records (id, latitude, longitude)
/// sorted by id, and found by binary search. Small extracts keep them in memory. Large ones (chosen by the
/// file's size, as osmium and osm2pgsql choose their node stores) write them to an unlinked temporary file
/// in 16 MB runs and read them back through a memory map whose pages are handed back to the kernel now and
/// then: a country of 300 million nodes needs 4.8 GB of them, which then live in the page cache, not in the
/// process, and peak memory stays flat whatever the extract.
struct LocationStore {
    /// Files above this size keep positions on disk (from about 6 million nodes, 100 MB in memory: a
    /// small country; the generated 5-million-object benchmark extract is just over it).
    static let onDiskAboveFileSize = 64 << 20

    /// One position, 16 bytes.
    struct Record {
        var id: Int64
        var latitude: Int32
        var longitude: Int32
    }

    /// Records not yet written to the file (all of them, for an in-memory store).
    private var pending: [Record] = []
    private var sorted = true
    private let file: SpillFile?

    init(fileSize: Int) {
        file = fileSize > Self.onDiskAboveFileSize ? SpillFile() : nil
    }

    var usesDisk: Bool { file != nil }

    mutating func append(id: Int64, latitude: Double, longitude: Double) {
        if let last = pending.last ?? file?.last, id <= last.id { sorted = false }
        pending.append(Record(id: id, latitude: Int32(clamping: Int64((latitude * 1e7).rounded())),
                              longitude: Int32(clamping: Int64((longitude * 1e7).rounded()))))
        if let file, pending.count >= SpillFile.runLength {
            if file.write(pending) { pending.removeAll(keepingCapacity: true) }
        }
    }

    /// Where the last lookup in ``pending`` ended.
    private var pendingHint = 0

    mutating func location(of id: Int64) -> Coordinate? {
        if !sorted { sortByID() }
        let record = file?.find(id) ?? pending.withUnsafeBufferPointer { Self.find(id, in: $0, near: &pendingHint) }
        return record.map { Coordinate(latitude: Double($0.latitude) / 1e7, longitude: Double($0.longitude) / 1e7) }
    }

    /// The record of `id`, searched outwards from `hint` in steps that double, then by halves (a way's nodes
    /// mostly have ids close to each other's, so a lookup reads a few records near the last one, not the
    /// ~20 spread over the whole store a binary search reads); `hint` becomes where this lookup ended.
    static func find(_ id: Int64, in records: UnsafeBufferPointer<Record>, near hint: inout Int) -> Record? {
        guard !records.isEmpty else { return nil }
        let start = min(max(hint, 0), records.count - 1)
        // Records before `low` have smaller ids; the record at `high` (if any) has an id at least `id`.
        var low: Int, high: Int
        if records[start].id < id {
            low = start + 1
            var step = 1
            while start + step < records.count, records[start + step].id < id {
                low = start + step + 1
                step *= 2
            }
            high = min(start + step, records.count)
        } else {
            high = start
            var step = 1
            while start - step >= 0, records[start - step].id >= id {
                high = start - step
                step *= 2
            }
            low = max(start - step + 1, 0)
        }
        while low < high {
            let mid = (low + high) / 2
            if records[mid].id < id { low = mid + 1 } else { high = mid }
        }
        hint = low
        return low < records.count && records[low].id == id ? records[low] : nil
    }

    /// Files that are not sorted by id (rare; `osmium sort` fixes them) pay for one sort, in memory.
    private mutating func sortByID() {
        if let file { pending = file.readAll() + pending; file.truncate() }
        pending.sort { $0.id < $1.id }
        sorted = true
    }
}

/// The on-disk half of a ``LocationStore``: an unlinked temporary file of sorted records.
private final class SpillFile {
    static let runLength = 1 << 20
    /// Lookups between two hand-backs of the mapping's pages.
    static let lookupsPerRelease = 1 << 20

    private var descriptor: Int32
    private var count = 0
    private var mapping: UnsafeMutableRawPointer?
    private var mappedCount = 0
    private var lookups = 0
    /// Where the last lookup ended (``LocationStore/find(_:in:near:)``).
    private var hint = 0
    private(set) var last: LocationStore.Record?

    /// `nil` when no temporary file can be made: the store then stays in memory.
    init?() {
        var template = Array((NSTemporaryDirectory() + "/places-nodes-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }

    deinit {
        unmap()
        if descriptor >= 0 { _ = close(descriptor) }
    }

    /// Appends a run of records; false (and nothing written) when the disk refuses them, so they stay in memory.
    func write(_ records: [LocationStore.Record]) -> Bool {
        let byteCount = records.count * MemoryLayout<LocationStore.Record>.stride
        let written = records.withUnsafeBytes { bytes in pwrite(descriptor, bytes.baseAddress, byteCount, off_t(count * MemoryLayout<LocationStore.Record>.stride)) }
        guard written == byteCount else { return false }
        count += records.count
        last = records.last
        return true
    }

    func find(_ id: Int64) -> LocationStore.Record? {
        guard count > 0, let last, id <= last.id else { return nil }
        if mappedCount != count { remap() }
        guard let mapping else { return nil }
        lookups += 1
        if lookups >= Self.lookupsPerRelease {
            // The pages stay in the page cache; they just stop counting against this process.
            lookups = 0
            madvise(mapping, mappedCount * MemoryLayout<LocationStore.Record>.stride, MADV_DONTNEED)
        }
        let records = UnsafeBufferPointer(start: mapping.assumingMemoryBound(to: LocationStore.Record.self), count: mappedCount)
        return LocationStore.find(id, in: records, near: &hint)
    }

    func readAll() -> [LocationStore.Record] {
        guard count > 0 else { return [] }
        if mappedCount != count { remap() }
        guard let mapping else { return [] }
        return Array(UnsafeBufferPointer(start: mapping.assumingMemoryBound(to: LocationStore.Record.self), count: mappedCount))
    }

    func truncate() {
        unmap()
        _ = ftruncate(descriptor, 0)
        count = 0
        last = nil
    }

    private func remap() {
        unmap()
        let length = count * MemoryLayout<LocationStore.Record>.stride
        let pointer = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0)
        guard let pointer, pointer != MAP_FAILED else { return }
        mapping = pointer
        mappedCount = count
    }

    private func unmap() {
        if let mapping { munmap(mapping, mappedCount * MemoryLayout<LocationStore.Record>.stride) }
        mapping = nil
        mappedCount = 0
    }
}
