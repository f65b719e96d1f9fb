import Foundation
import PlacesCore
import PlacesMatching

/// `places score A B` and the server's `SCORE a b`: how alike two places are, by the place algorithm.
/// A and B are names, or JSON records with the columns of `places match` (`{"name":…,"phone":…}`).
public struct ScoreRequest: Sendable, Hashable {
    public var first: String
    public var second: String
    /// The ISO region national phone numbers are read in (`US`, `FI`); `nil`: only numbers with a `+` compare.
    public var region: String?

    public init(first: String, second: String, region: String? = nil) {
        self.first = first
        self.second = second
        self.region = region?.uppercased()
    }

    /// Each side as a record: a JSON object is read as one, anything else is a name.
    /// - Throws: ``InputError`` naming the side ("argument A: …") when a JSON record cannot be read.
    func records() throws(InputError) -> (MatchRecord, MatchRecord) {
        func record(_ text: String, id: String) throws(InputError) -> MatchRecord {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("{") else { return MatchRecord(id: id, name: text) }
            do { return try RecordFile.record(json: trimmed, defaultID: id) } catch {
                throw InputError("argument \(id.uppercased()): \(error.message)")
            }
        }
        return (try record(first, id: "a"), try record(second, id: "b"))
    }
}

extension PlacesApplication {
    /// Scores two places. Needs nothing opened (no home, no index), so `places score` runs anywhere.
    public static func score(_ request: ScoreRequest) throws(InputError) -> MatchResult {
        let (a, b) = try request.records()
        return PlaceMatcher(thresholds: MatchThresholds(defaultRegion: request.region)).compare(a, b)
    }
}

extension PlacesJSON {
    /// `places score --json` and SCORE's reply: the matcher's result with its keys sorted.
    public static func score(_ result: MatchResult, pretty: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys]
        return try encoder.encode(result)
    }
}
