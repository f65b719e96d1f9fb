/// The three kinds of OSM object, as `osm:node/…`, `osm:way/…` and `osm:relation/…` ids name them.
public enum OSMElementType: String, Sendable, Hashable, CaseIterable {
    case node, way, relation
}

public struct OSMNode: Sendable, Hashable {
    public var id: Int64
    public var latitude: Double
    public var longitude: Double
    public var tags: [String: String]
}

public struct OSMWay: Sendable, Hashable {
    public var id: Int64
    /// Node ids in order (delta coding already undone).
    public var nodeRefs: [Int64]
    public var tags: [String: String]
}

public struct OSMRelationMember: Sendable, Hashable {
    public var type: OSMElementType
    public var ref: Int64
    public var role: String
}

public struct OSMRelation: Sendable, Hashable {
    public var id: Int64
    public var members: [OSMRelationMember]
    public var tags: [String: String]
}

/// One object read from an extract, in file order (sorted extracts give nodes, then ways, then relations).
public enum OSMElement: Sendable, Hashable {
    case node(OSMNode)
    case way(OSMWay)
    case relation(OSMRelation)

    public var type: OSMElementType {
        switch self {
        case .node: .node
        case .way: .way
        case .relation: .relation
        }
    }

    public var id: Int64 {
        switch self {
        case .node(let n): n.id
        case .way(let w): w.id
        case .relation(let r): r.id
        }
    }

    public var tags: [String: String] {
        switch self {
        case .node(let n): n.tags
        case .way(let w): w.tags
        case .relation(let r): r.tags
        }
    }
}

/// What the file's `OSMHeader` block says about it.
public struct OSMHeader: Sendable, Hashable {
    /// The extract's bounding box, when the header carries one.
    public var boundingBox: OSMBoundingBox?
    /// Features a reader must understand (`OsmSchema-V0.6`, `DenseNodes`); the reader refuses others.
    public var requiredFeatures: [String]
    public var optionalFeatures: [String]
    public var writingProgram: String?
}

/// Degrees, converted from the header's nanodegrees.
public struct OSMBoundingBox: Sendable, Hashable {
    public var minLongitude: Double
    public var minLatitude: Double
    public var maxLongitude: Double
    public var maxLatitude: Double
}
