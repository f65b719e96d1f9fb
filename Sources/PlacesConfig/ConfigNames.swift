import PlacesCore

/// Names in `config.toml` that places does not know: each is an error that offers the nearest known name,
/// because a misspelt key (`grid_metres`, `[pipline]`) would otherwise be ignored and its value silently lost.
enum ConfigNames {
    /// `config.toml: [cache] unknown key 'grid_metres' (did you mean 'grid_meters'?); known keys: …`.
    static func unknown(_ kind: String, _ name: String, known: [String], in place: String) -> InputError {
        let hint = closest(to: name, among: known).map { " (did you mean '\($0)'?)" } ?? ""
        return InputError("\(place): unknown \(kind) '\(name.prefix(60))'\(hint); known \(kind)s: \(known.sorted().joined(separator: ", "))")
    }

    /// Throws for the first key of `table` not in `known`.
    static func requireKnown(_ table: [String: ConfigValue], known: [String], in place: String) throws(InputError) {
        if let name = table.keys.sorted().first(where: { !known.contains($0) }) {
            throw unknown("key", name, known: known, in: place)
        }
    }

    /// The known name within a third of `name`'s length in edits (at least one edit), nearest first.
    static func closest(to name: String, among known: [String]) -> String? {
        let lowered = name.lowercased()
        let allowed = max(1, lowered.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in known.sorted() {
            let distance = editDistance(lowered, candidate.lowercased())
            if distance <= allowed && distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance over characters; names are short, so the plain two-row table is enough.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
