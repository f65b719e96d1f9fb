import Foundation
import PlacesConfig
import PlacesHours

/// The text parsers: OSM `opening_hours` values and `config.toml`.
enum TextFuzzing {
    /// A fixed instant and zone, so a finding replays the same way (Helsinki: DST changes and a +2/+3 offset).
    static let evaluationDate = Date(timeIntervalSince1970: 1_790_000_000)
    static let helsinki = TimeZone(identifier: "Europe/Helsinki")!

    static func hours(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let hours = OpeningHours(osm: text)
        guard hours.isParsed else {
            FuzzTarget.check(hours.syntaxError != nil, "an unreadable opening_hours value has no syntax error")
            return
        }
        let evaluation = hours.evaluate(at: evaluationDate, timeZone: helsinki)
        _ = evaluation.summary
        if let change = evaluation.nextChange {
            FuzzTarget.check(change.at >= evaluationDate, "the next change is before the evaluated instant")
        }
    }

    static func config(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        guard let configuration = try? PlacesConfiguration.parse(text) else { return }
        _ = try? PipelineSettings(configuration: configuration)
        for name in configuration.providers.keys.sorted() { _ = configuration.settings(for: name) }
    }
}
