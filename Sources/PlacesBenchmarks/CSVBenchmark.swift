import CSVText
import Foundation
import PlacesCore

/// `places-bench csv [--rows 100000]`
///
/// CSV reading and writing through CSVText (yaslab/CSV.swift) against the hand-written RFC 4180 reader and
/// quoting `places` used before (kept here, verbatim, only as the reference), on the same generated file in
/// the same run: processor seconds (best of three), the ratio, and whether both read the same rows.
enum CSVBenchmark {
    static func run(arguments: [String]) async throws {
        var rowCount = 100_000
        if arguments.count == 2, arguments[0] == "--rows", let value = Int(arguments[1]) { rowCount = value }
        else if !arguments.isEmpty { throw InputError("usage: places-bench csv [--rows N]") }

        let text = generatedFile(rows: rowCount)
        print("csv.file \(rowCount) rows, \(text.utf8.count) bytes (1 in 10 rows quoted: commas, doubled quotes, a line break)")
        var legacyRows: [[String]] = [], libraryRows: [[String]] = []
        let legacy = bestOfThree { legacyRows = LegacyCSV.rows(text) }
        let library = bestOfThree { libraryRows = CSVText.rows(text).map(\.fields) }
        print("csv.read.legacy \(String(format: "%.3f", legacy)) cpu s")
        print("csv.read.csv_swift \(String(format: "%.3f", library)) cpu s (\(String(format: "%.2f", library / legacy))× the legacy reader)")
        // The legacy reader also returns the empty line after the last line break, which both readers' callers skip.
        let nonBlank = { (rows: [[String]]) in rows.filter { $0 != [""] } }
        print("csv.read.same_rows \(nonBlank(legacyRows) == nonBlank(libraryRows)) (\(libraryRows.count) rows)")

        var legacyText = "", libraryText = ""
        let legacyWrite = bestOfThree { legacyText = LegacyCSV.text(libraryRows) }
        let libraryWrite = bestOfThree { libraryText = (try? CSVText.text(libraryRows)) ?? "" }
        print("csv.write.legacy \(String(format: "%.3f", legacyWrite)) cpu s")
        print("csv.write.csv_swift \(String(format: "%.3f", libraryWrite)) cpu s (\(String(format: "%.2f", libraryWrite / legacyWrite))× the legacy writer)")
        print("csv.write.same_text \(legacyText == libraryText)")
    }

    /// Rows shaped like `places match` input: id,name,address,phone,lat,lon,country.
    static func generatedFile(rows: Int) -> String {
        var text = "id,name,address,phone,lat,lon,country\n"
        text.reserveCapacity(rows * 80)
        for i in 0..<rows {
            let lat = String(format: "%.7f", 60.1 + Double(i % 1000) / 10_000), lon = String(format: "%.7f", 24.9 + Double(i / 1000) / 10_000)
            if i % 10 == 0 {
                text += "l\(i),\"Cafe \"\"Kulma\"\", \(i)\",\"Mannerheimintie \(i % 300)\nHelsinki\",+358 9 \(100_000 + i),\(lat),\(lon),FI\n"
            } else {
                text += "l\(i),Ravintola \(i),Aleksanterinkatu \(i % 90),+358 9 \(100_000 + i),\(lat),\(lon),FI\n"
            }
        }
        return text
    }

    static func bestOfThree(_ body: () -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<3 {
            let start = MatchingBenchmark.cpuSeconds()
            body()
            best = min(best, MatchingBenchmark.cpuSeconds() - start)
        }
        return best
    }
}

/// The reader and writer `places` had before CSV.swift (RecordFile.csvRows and MatchCommand.csvField), for the
/// comparison only.
enum LegacyCSV {
    static func rows(_ text: String) -> [[String]] {
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated().map { index, line in
            (number: index + 1, text: String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self))
        }
        guard let first = lines.first(where: { !$0.text.isEmpty }) else { return [] }
        let separator: Character = first.text.contains("\t") && !first.text.contains(",") ? "\t" : ","
        var rows: [[String]] = []
        var index = lines.firstIndex { !$0.text.isEmpty }!
        let separatorByte = UInt8(ascii: separator == "," ? "," : "\t")
        while index < lines.count {
            if !lines[index].text.utf8.contains(UInt8(ascii: "\"")) {
                rows.append(lines[index].text.utf8.split(separator: separatorByte, omittingEmptySubsequences: false)
                    .map { String(Substring($0)) })
                index += 1
                continue
            }
            var fields: [String] = []
            var field = ""
            var inQuotes = false
            var text = Array(lines[index].text)
            var i = 0
            while true {
                if i == text.count {
                    if inQuotes, index + 1 < lines.count {
                        index += 1
                        field.append("\n")
                        text = Array(lines[index].text)
                        i = 0
                        continue
                    }
                    break
                }
                let c = text[i]
                if inQuotes {
                    if c == "\"" {
                        if i + 1 < text.count, text[i + 1] == "\"" { field.append("\""); i += 1 } else { inQuotes = false }
                    } else {
                        field.append(c)
                    }
                } else if c == "\"" && field.isEmpty {
                    inQuotes = true
                } else if c == separator {
                    fields.append(field)
                    field = ""
                } else {
                    field.append(c)
                }
                i += 1
            }
            fields.append(field)
            rows.append(fields)
            index += 1
        }
        return rows
    }

    static func text(_ rows: [[String]]) -> String {
        func field(_ text: String) -> String {
            guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        var out = ""
        for row in rows { out += row.map(field).joined(separator: ",") + "\n" }
        return out
    }
}
