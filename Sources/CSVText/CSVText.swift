import CSV
import Foundation
import PlacesCore

/// One row of a CSV file as read: its fields, the line it starts on, and what is wrong with it, if anything.
public struct CSVRow: Sendable, Hashable {
    /// 1-based number of the line the row starts on (a quoted field may run over several lines).
    public var line: Int
    public var fields: [String]
    /// Set when the row cannot be trusted (a quoted field that is never closed runs to the end of the file).
    public var problem: String?

    /// A blank line: one empty field.
    public var isBlank: Bool { fields.count == 1 && fields[0].isEmpty }
}

/// CSV (RFC 4180) read and written with yaslab/CSV.swift, the one way every CSV file of `places` is handled:
/// `places match` input and output, `lookup --batch` input, spots import and export.
///
/// What this adds to the library: the line each row starts on (for "file:line: …" errors), the quoted field that
/// is never closed (the library reads it to the end of the file without a word), and a writer that returns text.
public enum CSVText {
    public enum Newline: Sendable { case lf, crlf }

    /// The delimiter a header line announces: a tab when it has tabs and no commas, else a comma.
    public static func delimiter(forHeader header: String) -> Unicode.Scalar {
        header.utf8.contains(UInt8(ascii: "\t")) && !header.utf8.contains(UInt8(ascii: ",")) ? "\t" : ","
    }

    /// Every row of `text`, blank lines included (as ``CSVRow/isBlank`` rows). Line breaks are `\n`, `\r\n` or `\r`;
    /// a line break inside a quoted field stays in the field.
    /// - Parameter lineNumbers: the number of each line of `text` in the file it came from, when the caller left out
    ///   lines (leading blank lines, lines that were not UTF-8); `nil` numbers them from 1.
    public static func rows(_ text: String, delimiter: Unicode.Scalar = ",", lineNumbers: [Int]? = nil) -> [CSVRow] {
        guard let reader = try? CSVReader(string: text, hasHeaderRow: false, trimFields: false, delimiter: delimiter) else {
            return []
        }
        var rows: [CSVRow] = []
        var lineIndex = 0
        func number(_ index: Int) -> Int {
            guard let lineNumbers else { return index + 1 }
            return index < lineNumbers.count ? lineNumbers[index] : (lineNumbers.last ?? 0) + index - lineNumbers.count + 1
        }
        while let fields = reader.next() {
            rows.append(CSVRow(line: number(lineIndex), fields: fields, problem: nil))
            lineIndex += 1
            for field in fields where field.utf8.contains(UInt8(ascii: "\n")) {
                lineIndex += field.utf8.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            }
        }
        if let last = rows.last?.fields.last, endsInUnclosedQuote(text, lastField: last) {
            rows[rows.count - 1].problem = "a quoted field is never closed"
        }
        // The library reads a quote RFC 4180 does not allow without a word, and drops the character after it or
        // reads on into the next lines ("Cafe "abc"def" came out as `Cafe "bc"ef`; `"Kappeli"x` took the next line
        // into its field), so such a row is marked, with the lines it took.
        let (strays, lineCount) = strayQuotes(text, delimiter: delimiter)
        for (line, problem) in strays {
            guard let index = rows.lastIndex(where: { $0.line <= number(line) }), rows[index].problem == nil else { continue }
            let lastLine = index + 1 < rows.count ? rows[index + 1].line - 1 : number(lineCount - 1)
            rows[index].problem = problem + (lastLine > rows[index].line ? "; lines \(rows[index].line)–\(lastLine) were read as this one row" : "")
        }
        return rows
    }

    /// The 0-based line (counting `\n`, `\r\n` and `\r` as one line break each) of every row holding a quote RFC 4180
    /// does not allow and the library misreads, and what is wrong with it; and how many lines the text has. That is text
    /// after a quoted field's closing quote (`"abc"def`); a quote inside a field that does not start with one
    /// (`Cafe "Engel"`) is read as it stands, by the library too.
    static func strayQuotes(_ text: String, delimiter: Unicode.Scalar) -> (found: [(line: Int, problem: String)], lines: Int) {
        let quote = UInt8(ascii: "\""), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
        let separator: UInt8? = delimiter.isASCII ? UInt8(delimiter.value) : nil
        var found: [(line: Int, problem: String)] = []
        var line = 0, rowLine = 0
        var inQuotes = false, closed = false, fieldHasText = false, rowMarked = false
        func mark(_ problem: String) {
            if !rowMarked { found.append((rowLine, problem)) }
            rowMarked = true
        }
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inQuotes {
                if byte == quote {
                    if index < bytes.count, bytes[index] == quote { index += 1 } else { inQuotes = false; closed = true }
                } else if byte == lf || (byte == cr && (index >= bytes.count || bytes[index] != lf)) {
                    line += 1
                }
            } else if byte == separator || byte == lf || byte == cr {
                if byte != separator {
                    if byte == cr, index < bytes.count, bytes[index] == lf { index += 1 }
                    line += 1
                    rowLine = line
                    rowMarked = false
                }
                closed = false
                fieldHasText = false
            } else if closed {
                mark("a quoted field goes on after its closing quote (a quote inside a quoted field is written twice: \"\")")
            } else if byte == quote && !fieldHasText {
                inQuotes = true
            } else {
                fieldHasText = true
            }
        }
        let endsWithLineBreak = bytes.last == lf || bytes.last == cr
        return (found, endsWithLineBreak ? line : line + 1)
    }

    /// CSV text of `rows`, each ended by `newline`; fields with the delimiter, quotes or line breaks are quoted.
    public static func text(_ rows: [[String]], newline: Newline = .lf) throws(InputError) -> String {
        let sink = ByteSink()
        do {
            let writer = try CSVWriter(stream: sink, newline: newline == .lf ? .lf : .crlf)
            for row in rows { try writer.write(row: row) }
        } catch {
            throw InputError("cannot write CSV: \(error)")
        }
        // The writer separates rows; the last one is ended here, as every line of a text file is.
        if !rows.isEmpty { sink.bytes.append(contentsOf: newline == .lf ? [10] : [13, 10]) }
        return String(decoding: sink.bytes, as: UTF8.self)
    }

    /// Whether the file ends inside a quoted field: the last field, escaped again, follows an opening quote at the
    /// very end of the text. A closed quoted field leaves its closing quote (and maybe a line break) after it.
    private static func endsInUnclosedQuote(_ text: String, lastField: String) -> Bool {
        let raw = "\"" + lastField.replacingOccurrences(of: "\"", with: "\"\"")
        guard text.hasSuffix(raw) else { return false }
        guard lastField.isEmpty else { return true }
        // `…,""` is a closed empty field, `…,"` an open one: an odd run of quotes at the end is open.
        return text.unicodeScalars.reversed().prefix { $0 == "\"" }.count % 2 == 1
    }
}

/// An output stream that collects bytes in an array. CSVWriter writes one byte per call, and Foundation's memory
/// stream grows an NSMutableData on each: this makes writing 100,000 rows about 20 % cheaper (`places-bench csv`).
final class ByteSink: OutputStream {
    var bytes: [UInt8] = []
    private var status: Stream.Status = .notOpen

    init() { super.init(toMemory: ()) }
    required init(toMemory: ()) { super.init(toMemory: ()) }

    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var hasSpaceAvailable: Bool { true }
    override func write(_ buffer: UnsafePointer<UInt8>, maxLength length: Int) -> Int {
        bytes.append(contentsOf: UnsafeBufferPointer(start: buffer, count: length))
        return length
    }
}
