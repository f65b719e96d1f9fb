import ArgumentParser
import Foundation
import PlacesApp
import PlacesCore
import PlacesMatching

struct ScoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Score how alike two place names or records are.",
        discussion: """
            The place algorithm normalises both sides (accents, case, "&"/"and", apostrophes, generic words such \
            as "cafe" or "ravintola", abbreviations), compares names word by word with edit distance, and weighs \
            phone (E.164), street and house number, distance and category when both sides have them. It prints a \
            score in 0…1, a verdict (match, review, non-match) and the reasons.

            A and B are names, or JSON records with any of the keys name, address, city, phone, lat, lon, \
            category, country.

            The stringscore algorithm is the classic string_score: how well B abbreviates A, in order and \
            case-aware. It prints the value at full precision.

            Examples:
              places score "Joe's Pizza" "Joes Pizza"
              places score '{"name":"Hotel Bel-Air","phone":"310/246-1501"}' '{"name":"Bel-Air Hotel","phone":"+1 310-246-1501"}' --region US
              places score --algorithm stringscore "hello world" "ow"          # 0.35454545454545455
              places score --algorithm stringscore "hello world" "hello wor1" --fuzziness 0.5 --json
            """)

    enum Algorithm: String, ExpressibleByArgument, CaseIterable {
        case place, stringscore
    }

    @Argument(help: "The first name or JSON record (for stringscore: the string).")
    var a: String

    @Argument(help: "The second name or JSON record (for stringscore: the abbreviation scored against A).")
    var b: String

    @Option(help: "place (default) or stringscore.")
    var algorithm: Algorithm = .place

    @Option(parsing: .unconditional, help: ArgumentHelp("stringscore only: tolerance for characters of B missing from A, 0…1.", valueName: "F"))
    var fuzziness: Double?

    @Option(help: ArgumentHelp("Read national phone numbers as this ISO region (US, FI, …).", valueName: "CC"))
    var region: String?

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        if let fuzziness, !(0...1).contains(fuzziness) {
            throw ValidationError("invalid --fuzziness \(fuzziness): expected a number from 0 to 1")
        }
        if fuzziness != nil && algorithm != .stringscore {
            throw ValidationError("--fuzziness applies only to --algorithm stringscore")
        }
    }

    func run() async throws {
        try await reportingErrors {
            switch algorithm {
            case .stringscore:
                let value = StringScore.score(a, b, fuzziness: fuzziness)
                // "\(Double)" is the shortest exact form, the same digits JavaScript prints.
                Swift.print(json ? #"{"algorithm":"stringscore","score":\#(value)}"# : "\(value)")
            case .place:
                let result = try PlacesApplication.score(ScoreRequest(first: a, second: b, region: region))
                if json {
                    printData(try PlacesJSON.score(result, pretty: isTerminal(.standardOutput)))
                } else {
                    Swift.print("score    \(String(format: "%.2f", result.score))")
                    Swift.print("verdict  \(result.verdict.rawValue)")
                    for reason in result.reasons { Swift.print("  \(reason)") }
                }
            }
        }
    }
}
