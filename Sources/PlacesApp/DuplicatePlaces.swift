import PlacesCore
import PlacesMatching

/// One result per real place: OSM often maps a place twice (a node and a building way, or two nodes a mapper left
/// behind), and a list that shows "Aktia, Aktia" 25 m apart wastes a line and reads like two banks.
///
/// Two results are the same place when their names are equal after ``PlaceNormalizer/normalize(_:)`` (case,
/// accents, punctuation) and they lie within ``radius`` metres. The earlier result (the better ranked) stays; the
/// others' ids go into its `alternateIDs` (JSON `alternate_ids`), so no id is lost and `details` of either works.
/// Search, nearby and suggest all pass through here, in the application, so the CLI and the server agree.
public enum DuplicatePlaces {
    public static let radius = 30.0

    public static func collapse(_ places: [Place]) -> [Place] {
        guard places.count > 1 else { return places }
        var kept: [Place] = []
        var keys: [String] = []
        for place in places {
            let key = PlaceNormalizer.normalize(place.name)
            if !key.isEmpty, let index = keys.indices.first(where: {
                keys[$0] == key && GeoMath.distance(kept[$0].coordinate, place.coordinate) <= radius
            }) {
                for id in [place.id] + place.alternateIDs where id != kept[index].id && !kept[index].alternateIDs.contains(id) {
                    kept[index].alternateIDs.append(id)
                }
            } else {
                kept.append(place)
                keys.append(key)
            }
        }
        return kept
    }

    /// The same rule for completions: a suggestion with a place and a point folds into an earlier one of the same
    /// text within ``radius``; its id goes to the earlier one's `alternateIDs`.
    public static func collapse(_ suggestions: [Suggestion]) -> [Suggestion] {
        guard suggestions.count > 1 else { return suggestions }
        var kept: [Suggestion] = []
        for suggestion in suggestions {
            let key = PlaceNormalizer.normalize(suggestion.text)
            if let point = suggestion.coordinate, !key.isEmpty, let index = kept.indices.first(where: {
                guard let other = kept[$0].coordinate else { return false }
                return PlaceNormalizer.normalize(kept[$0].text) == key && GeoMath.distance(other, point) <= radius
            }) {
                let ids = [suggestion.placeID].compactMap { $0 } + (suggestion.alternateIDs ?? [])
                for id in ids where id != kept[index].placeID && !(kept[index].alternateIDs ?? []).contains(id) {
                    kept[index].alternateIDs = (kept[index].alternateIDs ?? []) + [id]
                }
            } else {
                kept.append(suggestion)
            }
        }
        return kept
    }
}
