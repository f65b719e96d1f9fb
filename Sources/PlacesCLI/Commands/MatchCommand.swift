import ArgumentParser
import Foundation
import PlacesCore
import PlacesMatching

struct MatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Pair the places of two files one to one.",
        discussion: """
            LEFT and RIGHT are CSV files with a header, or JSON Lines (.jsonl). Columns/keys: id and name \
            (required), address, city, phone, lat, lon, category, country; others are ignored.

            Candidates are blocked by a geographic grid (when coordinates exist), shared name words and equal \
            phones, never all pairs. Scored pairs are assigned greedily, best first, each record at most once. \
            Output is CSV: left_id,right_id,score,verdict. A summary goes to stderr, with a progress bar when \
            stderr is a terminal (or with --progress); the bar never goes to stdout.

            Examples:
              places match osm.csv yelp.csv --region US > pairs.csv
              places match left.jsonl right.jsonl --review --max-distance 250 --output pairs.csv
              places match big.csv other.csv --skip-bad-lines
              places match big.csv other.csv --progress 2> progress.log > pairs.csv
            """)

    @Argument(help: "The left file (CSV or JSON Lines).")
    var left: String

    @Argument(help: "The right file (CSV or JSON Lines).")
    var right: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Keep pairs scoring at least T (0…1; default 0.8, the match threshold).", valueName: "T"))
    var threshold: Double?

    @Option(help: ArgumentHelp("Read national phone numbers as this ISO region when a record has no country.", valueName: "CC"))
    var region: String?

    @Option(name: .customLong("max-distance"), parsing: .unconditional, help: ArgumentHelp("Records further apart than M metres are different places unless phone or address agree (default 150).", valueName: "M"), transform: Metres.argument)
    var maxDistance: Double?

    @Flag(help: "Also keep pairs whose verdict is review (score ≥ 0.6, or the threshold if lower).")
    var review = false

    @Option(help: ArgumentHelp("Write the pairs to FILE instead of stdout.", valueName: "FILE"))
    var output: String?

    @Flag(name: .customLong("skip-bad-lines"), help: "Report unreadable lines on stderr, skip them and go on.")
    var skipBadLines = false

    @Flag(help: "Draw the progress bar on stderr even when it is not a terminal (it is drawn on a terminal anyway).")
    var progress = false

    func run() async throws {
        try await reportingErrors {
            if let threshold, !(threshold > 0 && threshold <= 1) {
                throw InputError("invalid --threshold \(threshold): expected a number in (0, 1]")
            }
            var thresholds = MatchThresholds(defaultRegion: region?.uppercased())
            if let threshold {
                thresholds.accept = threshold
                thresholds.review = min(thresholds.review, threshold)
            }
            if let maxDistance {
                thresholds.maxDistance = maxDistance
                thresholds.chainDistance = min(thresholds.chainDistance, maxDistance)
            }
            let started = Date()
            let leftFile = try RecordFile.read(URL(fileURLWithPath: left), skipBadLines: skipBadLines)
            let rightFile = try RecordFile.read(URL(fileURLWithPath: right), skipBadLines: skipBadLines)
            let skipped = leftFile.skipped + rightFile.skipped
            for problem in skipped.prefix(20) { printError("places: skipped \(problem.message)") }
            if skipped.count > 20 { printError("places: … and \(skipped.count - 20) more bad lines skipped") }

            let matcher = RecordMatcher(matcher: PlaceMatcher(thresholds: thresholds))
            let bar = ProgressBar.ifWanted(label: "matching", finishing: "assigning pairs, best first…", forced: progress)
            var report: (@Sendable (Int, Int) -> Void)?
            if let bar {
                report = { done, total in bar.update(done: Int64(done), total: Int64(total)) }
            }
            bar?.update(done: 0, total: Int64(leftFile.records.count))  // shown at once, before the first chunk ends
            let run = matcher.run(
                left: matcher.matcher.prepare(leftFile.records), right: matcher.matcher.prepare(rightFile.records),
                minimumScore: review ? thresholds.review : thresholds.accept, progress: report)
            bar?.finish()

            let csv = try run.csvText()
            if let output {
                do { try Data(csv.utf8).write(to: URL(fileURLWithPath: output)) } catch {
                    throw InputError("cannot write \(output): \(error.localizedDescription)")
                }
            } else {
                FileHandle.standardOutput.write(Data(csv.utf8))
            }
            let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
            let reviewCount = run.pairs.filter { $0.verdict == .review }.count
            printError("places: \(run.pairs.count - reviewCount) pairs matched"
                + (review ? " and \(reviewCount) to review" : "") + " from \(leftFile.records.count) left and "
                + "\(rightFile.records.count) right records; \(run.comparisons) pairs compared; "
                + "\(skipped.count) bad lines skipped; \(seconds) s")
        }
    }
}
