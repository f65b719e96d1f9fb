import Foundation

/// A place's identity as `provider:native-id` (`osm:node/1234`, `geonames:658225`, `google:ChIJ…`).
///
/// The provider's own stable id is kept verbatim, so saved references survive rebuilds of the
/// local index and survive switching providers: a spot attached to `osm:way/99` still resolves
/// when Nominatim, which uses the same OSM ids, answers instead of the local index.
public struct PlaceID: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    public let provider: String
    public let nativeID: String

    public init(provider: String, nativeID: String) {
        self.provider = provider
        self.nativeID = nativeID
    }

    /// Parses `provider:native-id`. The native part may itself contain colons.
    public init(parsing text: String) throws(InputError) {
        if let id = Self.plainASCII(text) {
            self = id
            return
        }
        let trimmed = text.trimmedOfSpaces
        guard let colon = trimmed.firstIndex(of: ":"),
              colon != trimmed.startIndex,
              trimmed.index(after: colon) != trimmed.endIndex
        else {
            throw InputError("invalid place id '\(text)': expected provider:id, for example osm:node/1234 or geonames:658225")
        }
        let provider = trimmed[..<colon].lowercased()
        guard provider.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            throw InputError("invalid place id '\(text)': provider name '\(provider)' has characters other than letters and digits")
        }
        self.init(provider: provider, nativeID: String(trimmed[trimmed.index(after: colon)...]))
    }

    /// ``init(parsing:)`` for the common case, read as bytes: printable ASCII without spaces, a provider of
    /// letters, digits, `_` and `-`, a colon and a native id (every id of the local index). The same id the
    /// general reading gives, without its work on Characters: it was 2 % of an uncached `DETAILS` (perf),
    /// which reads an id from the request and one from each row. `nil` for anything else.
    private static func plainASCII(_ text: String) -> PlaceID? {
        let bytes = text.utf8
        var colon: String.Index?
        var hasUppercase = false
        for index in bytes.indices {
            let byte = bytes[index]
            guard byte > 0x20, byte < 0x7F else { return nil }
            guard colon == nil else { continue }
            switch byte {
            case UInt8(ascii: ":"): colon = index
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): hasUppercase = true
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): break
            default: return nil
            }
        }
        guard let colon, colon != bytes.startIndex, bytes.index(after: colon) != bytes.endIndex else { return nil }
        let provider = text[..<colon]
        return PlaceID(provider: hasUppercase ? provider.lowercased() : String(provider),
                       nativeID: String(text[bytes.index(after: colon)...]))
    }

    public var description: String { "\(provider):\(nativeID)" }

    public static func < (lhs: PlaceID, rhs: PlaceID) -> Bool { lhs.description < rhs.description }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(parsing: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
