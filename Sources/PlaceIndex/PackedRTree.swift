/// An SQLite R*Tree of 2-D boxes packed in one go (Sort-Tile-Recursive: sorted into vertical slices by
/// longitude, each slice by latitude, then cut into full nodes, level by level) and laid out as the rows of the
/// R*Tree module's three shadow tables, so an import can write a large tree as plain rows.
///
/// Inserting entries through the virtual table costs SQLite's R*Tree algorithm (choosing a subtree,
/// splitting, reinserting) for each entry: 3.2 s for the generated country extract's 330,000 places, on the
/// one thread that writes, after every row. Packed, the same tree is a sort and one row per entry.
///
/// The layout is SQLite's (`ext/rtree/rtree.c`, unchanged since 2008): a node is a blob of the table's node
/// size (the root's blob length), zero-padded; its first two bytes are the tree's depth in the root and zero
/// elsewhere, the next two the number of cells; a cell is a 64-bit big-endian rowid (a leaf) or child node
/// number, then each dimension's minimum and maximum as big-endian 32-bit floats. The root is node 1.
/// `%_rowid` maps each entry to its leaf, `%_parent` each node but the root to its parent. The result is
/// checked with SQLite's own `rtreecheck()` in the tests.
struct PackedRTree {
    /// One entry: a rowid and its box, as the R*Tree stores it (32-bit floats).
    struct Entry: Equatable {
        var id: Int64
        var minLatitude: Float
        var maxLatitude: Float
        var minLongitude: Float
        var maxLongitude: Float

        /// A point, with its coordinates rounded outwards to floats as SQLite's R*Tree rounds what is inserted
        /// (`rtreeValueDown` / `rtreeValueUp`), so the box still holds the point.
        init(id: Int64, latitude: Double, longitude: Double) {
            self.id = id
            minLatitude = Self.roundedDown(latitude)
            maxLatitude = Self.roundedUp(latitude)
            minLongitude = Self.roundedDown(longitude)
            maxLongitude = Self.roundedUp(longitude)
        }

        init(id: Int64, minLatitude: Float, maxLatitude: Float, minLongitude: Float, maxLongitude: Float) {
            self.id = id
            self.minLatitude = minLatitude
            self.maxLatitude = maxLatitude
            self.minLongitude = minLongitude
            self.maxLongitude = maxLongitude
        }

        /// SQLite's constants: one unit in the last place of a float's 23-bit fraction, towards and away from 0.
        private static let towardsZero = 1.0 - 1.0 / 8388608.0
        private static let awayFromZero = 1.0 + 1.0 / 8388608.0

        static func roundedDown(_ value: Double) -> Float {
            let nearest = Float(value)
            return Double(nearest) > value ? Float(value * (value < 0 ? awayFromZero : towardsZero)) : nearest
        }

        static func roundedUp(_ value: Double) -> Float {
            let nearest = Float(value)
            return Double(nearest) < value ? Float(value * (value < 0 ? towardsZero : awayFromZero)) : nearest
        }

        fileprivate var centre: (latitude: Float, longitude: Float) {
            ((minLatitude + maxLatitude) / 2, (minLongitude + maxLongitude) / 2)
        }

        fileprivate func union(_ other: Entry) -> Entry {
            Entry(id: id, minLatitude: min(minLatitude, other.minLatitude), maxLatitude: max(maxLatitude, other.maxLatitude),
                  minLongitude: min(minLongitude, other.minLongitude), maxLongitude: max(maxLongitude, other.maxLongitude))
        }
    }

    /// The `%_node` rows: node number and blob, the root (1) first.
    private(set) var nodes: [(number: Int64, data: [UInt8])] = []
    /// The `%_rowid` rows: each entry's rowid and the leaf that holds it, by rowid. In that order each row goes in at
    /// the end of the table's B-tree; in the leaves' order each landed anywhere in it (`sqlite3`, the generated
    /// extract's 375,000 rows: 0.35 s in the leaves' order, 0.15 s by rowid).
    private(set) var leafOfEntry: [(id: Int64, node: Int64)] = []
    /// The `%_parent` rows: each node but the root and its parent, by node number (as `%_rowid`'s, by rowid).
    private(set) var parentOfNode: [(node: Int64, parent: Int64)] = []

    static let bytesPerCell = 8 + 4 * 4

    /// - Parameter nodeSize: the table's node size in bytes (the length of its root's blob); SQLite's
    ///   R*Tree never holds more than 51 cells a node, whatever the page size.
    init(_ entries: [Entry], nodeSize: Int) {
        let capacity = min((nodeSize - 4) / Self.bytesPerCell, 51)
        precondition(capacity >= 2, "an R*Tree node of \(nodeSize) bytes")
        // Levels from the leaves up; each node is the indexes of its cells in the level below (the entries, for
        // leaves) and the box around them.
        var levels: [[(cells: [Int], box: Entry)]] = []
        var items = entries
        repeat {
            let groups = Self.tiles(of: items, capacity: capacity)
            let level = groups.map { cells in (cells: cells, box: cells.dropFirst().reduce(items[cells[0]]) { $0.union(items[$1]) }) }
            levels.append(level)
            items = level.map(\.box)
        } while items.count > 1
        // Number the nodes from the root down, level by level, so the root is node 1.
        var numbers: [[Int64]] = Array(repeating: [], count: levels.count)
        var next: Int64 = 1
        for depth in levels.indices.reversed() {
            numbers[depth] = levels[depth].indices.map { _ in defer { next += 1 }; return next }
        }
        let treeDepth = levels.count - 1
        for depth in levels.indices.reversed() {
            for (index, node) in levels[depth].enumerated() {
                let number = numbers[depth][index]
                var blob = [UInt8](repeating: 0, count: nodeSize)
                if number == 1 { Self.write(UInt16(treeDepth), into: &blob, at: 0) }
                Self.write(UInt16(node.cells.count), into: &blob, at: 2)
                for (slot, cell) in node.cells.enumerated() {
                    let box: Entry
                    let reference: Int64
                    if depth == 0 {
                        box = entries[cell]
                        reference = box.id
                        leafOfEntry.append((box.id, number))
                    } else {
                        box = levels[depth - 1][cell].box
                        reference = numbers[depth - 1][cell]
                        parentOfNode.append((reference, number))
                    }
                    let offset = 4 + slot * Self.bytesPerCell
                    Self.write(UInt64(bitPattern: reference), into: &blob, at: offset)
                    for (position, value) in [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude].enumerated() {
                        Self.write(value.bitPattern, into: &blob, at: offset + 8 + 4 * position)
                    }
                }
                nodes.append((number, blob))
            }
        }
        leafOfEntry.sort { $0.id < $1.id }
        parentOfNode.sort { $0.node < $1.node }
        if entries.isEmpty {
            // An empty tree is an empty root leaf, as `CREATE VIRTUAL TABLE` leaves it.
            nodes = [(1, [UInt8](repeating: 0, count: nodeSize))]
        }
    }

    /// Sort-Tile-Recursive grouping of `items` into nodes of at most `capacity`: as many vertical slices as
    /// the square root of the number of nodes, by longitude, each cut into nodes by latitude. Returns each
    /// node's item indexes.
    private static func tiles(of items: [Entry], capacity: Int) -> [[Int]] {
        guard !items.isEmpty else { return [] }
        let nodeCount = (items.count + capacity - 1) / capacity
        let sliceCount = Int(Double(nodeCount).squareRoot().rounded(.up))
        let perSlice = sliceCount * capacity
        let centres = items.map(\.centre)
        let byLongitude = items.indices.sorted { (centres[$0].longitude, items[$0].id) < (centres[$1].longitude, items[$1].id) }
        var groups: [[Int]] = []
        groups.reserveCapacity(nodeCount)
        var sliceStart = 0
        while sliceStart < byLongitude.count {
            let slice = byLongitude[sliceStart..<min(sliceStart + perSlice, byLongitude.count)]
                .sorted { (centres[$0].latitude, items[$0].id) < (centres[$1].latitude, items[$1].id) }
            var start = 0
            while start < slice.count {
                groups.append(Array(slice[start..<min(start + capacity, slice.count)]))
                start += capacity
            }
            sliceStart += perSlice
        }
        return groups
    }

    private static func write<Value: FixedWidthInteger>(_ value: Value, into blob: inout [UInt8], at offset: Int) {
        withUnsafeBytes(of: value.bigEndian) { bytes in
            for (i, byte) in bytes.enumerated() { blob[offset + i] = byte }
        }
    }
}
