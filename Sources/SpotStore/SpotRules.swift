import Foundation
import PlacesCore

/// The rules every ``SpotStore`` implementation applies the same way (SQLite here, PostgreSQL in `PostgresStorage`),
/// with their messages written once.
public enum SpotRules {
    /// A reference that is not a full id must be an id prefix of at least 4 hex characters.
    /// - Throws: ``UnknownSpot`` (`.notAnID`) otherwise: a miss each front end words itself.
    public static func checkIDPrefix(_ key: String, reference: String) throws {
        guard isIDPrefix(key) else { throw UnknownSpot(reference: reference, reason: .notAnID) }
    }

    /// Whether `key` (trimmed, lower case) can be an id or the start of one: 4+ hex digits and dashes.
    public static func isIDPrefix(_ key: String) -> Bool {
        key.count >= 4 && key.allSatisfy { $0.isHexDigit || $0 == "-" }
    }

    /// The one visit a reference names (`matches` holds at most two), or why there is none.
    public static func onlyVisit(_ matches: [Visit], reference: String) throws -> Visit {
        switch matches.count {
        case 1: return matches[0]
        case 0: throw UnknownVisit(reference: reference)
        default: throw InputError("ambiguous visit id '\(reference.prefix(40))': several visits start with it; type more characters")
        }
    }

    /// The one spot an id prefix names (`matches` holds at most two), or why there is none.
    public static func onlyMatch(_ matches: [Spot], reference: String) throws -> Spot {
        switch matches.count {
        case 1: return matches[0]
        case 0: throw UnknownSpot(reference: reference, reason: .noSuchSpot)
        default: throw InputError("ambiguous spot id '\(reference)': several spots start with it; type more characters")
        }
    }

    /// A visit may name only a saved spot.
    public static func unknownVisitSpot(_ spotID: UUID) -> InputError {
        InputError("unknown spot '\(spotID.storeKey)': the visit's spot is not saved")
    }

    /// A spot needs a name and a valid coordinate before it is stored.
    public static func checkStorable(_ spot: Spot) throws {
        guard !spot.name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw InputError("a spot needs a name")
        }
        _ = try Coordinate(validatingLatitude: spot.coordinate.latitude, longitude: spot.coordinate.longitude)
    }
}
