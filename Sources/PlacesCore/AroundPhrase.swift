/// "pharmacy near kiasma", "sushi in kamppi", "cafe next to the station": what to look for, and the place to look
/// around, as people type it into a search box (geocoders read "X near Y" and "X in Y" this way; see
/// shared/docs/search.md, "Category words"). Read from the query's folded words; the last connecting word splits
/// them, so "bar in the wall near kamppi" looks for "bar in the wall" around Kamppi.
///
/// Whether the query means this at all is the search's to decide: a place may be called "Barrow in Furness", so a
/// search tries the whole query as a name first (the local index's search).
public struct AroundPhrase: Sendable {
    /// The words that name what is looked for ("pharmacy").
    public var what: [String]
    /// Where: the words naming the place to look around ("kiasma"); empty for "near me" and "nearby", which mean
    /// the point the search was given.
    public var place: [String]

    /// Words that put what comes before them around what comes after ("close to" and "next to" as two words).
    static let connectors: Set<String> = ["near", "nearby", "in", "at", "around"]
    static let twoWordConnectors: Set<[String]> = [["close", "to"], ["next", "to"]]
    /// Words after a connector that mean "where I am": the search's own point.
    static let here: Set<[String]> = [["me"], ["here"], ["us"], []]
    /// Articles that come before a place's name and are not part of it ("near the station").
    static let articles: Set<String> = ["the", "a", "an"]

    /// `nil` when no connecting word follows a run of words (one may end the query: "pharmacy nearby").
    public init?(words: [String]) {
        for end in stride(from: words.count - 1, through: 1, by: -1) {
            var connectorLength = 0
            if end >= 2, Self.twoWordConnectors.contains(Array(words[(end - 1)...end])) {
                connectorLength = 2
            } else if Self.connectors.contains(words[end]) {
                connectorLength = 1
            }
            guard connectorLength > 0 else { continue }
            let what = Array(words[..<(end + 1 - connectorLength)])
            var place = Array(words[(end + 1)...])
            while let first = place.first, Self.articles.contains(first), place.count > 1 { place.removeFirst() }
            // "nearby" and "near me" mean the search's point; "pharmacy near" alone, too.
            if Self.here.contains(place) { place = [] }
            guard !what.isEmpty, !(what.count == 1 && Self.articles.contains(what[0])) else { return nil }
            self.what = what
            self.place = place
            return
        }
        return nil
    }
}

extension AroundPhrase {
    /// Whether `text` names a place to search around after its connector ("cafe near kiasma", not "cafe near me"):
    /// a point for `--radius` and `RADIUS` when no `--near` or `NEAR` is given.
    public static func namesAPlace(in text: String) -> Bool {
        AroundPhrase(words: SearchText.words(text)).map { !$0.place.isEmpty } ?? false
    }
}
