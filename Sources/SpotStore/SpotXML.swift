import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import PlacesCore

/// A small element tree for GPX and KML files of saved places (kilobytes to a few megabytes).
/// Names are kept without their namespace prefix: `places:id` and `id` are the same field.
final class XMLElementNode {
    let name: String
    let attributes: [String: String]
    var children: [XMLElementNode] = []
    var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    func child(_ name: String) -> XMLElementNode? { children.first { $0.name == name } }
    func childText(_ name: String) -> String? { child(name).map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) } }

    /// Every descendant (depth first) with this name.
    func descendants(_ name: String) -> [XMLElementNode] {
        var found: [XMLElementNode] = []
        var stack = [self]
        while let node = stack.popLast() {
            if node.name == name && node !== self { found.append(node) }
            stack.append(contentsOf: node.children.reversed())
        }
        return found
    }

    static func parse(_ data: Data, what: String) throws -> XMLElementNode {
        if let problem = constructFoundationCannotParse(in: data) {
            throw InputError("cannot read the \(what) file: \(problem)")
        }
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.delegate = builder
        // Foundation's parser on Linux recovers from some breakage silently, so closing tags are checked too.
        guard parser.parse(), let root = builder.root, builder.stack.isEmpty, !builder.mismatched else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "not well-formed XML"
            throw InputError("cannot read the \(what) file: \(reason) (line \(parser.lineNumber))")
        }
        return root
    }

    /// Foundation's XMLParser on Linux crashes (a trap or a null dereference) on what libxml2 hands it for a
    /// name that is not UTF-8, a processing instruction without data (`<?x?>`) and DTD declarations
    /// (`<!ELEMENT>`, `<!ATTLIST>`, `<!NOTATION>`). GPX and KML files are UTF-8 and have no DOCTYPE, so
    /// such input is refused before parsing; the fuzzers in Tests/Fuzz found each of these.
    static func constructFoundationCannotParse(in data: Data) -> String? {
        if let offset = firstInvalidUTF8Offset(data) {
            return "it is not UTF-8 (invalid byte at offset \(offset)); save it as UTF-8, for example with iconv -t UTF-8"
        }
        // Read in place: a streamed GPX track hands in a mapped file, which a copy would load whole.
        return data.withUnsafeBytes { bytes in constructFoundationCannotParse(inBytes: bytes) }
    }

    private static func constructFoundationCannotParse(inBytes bytes: UnsafeRawBufferPointer) -> String? {
        if let doctype = bytes.firstRange(of: Array("<!DOCTYPE".utf8)) {
            return "it has a DOCTYPE (offset \(doctype.lowerBound)), which GPX and KML files do not use; remove it"
        }
        var searchStart = 0
        while let instruction = bytes[searchStart...].firstRange(of: Array("<?".utf8)) {
            var end = instruction.upperBound
            while end < bytes.count, ![UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"),
                                       UInt8(ascii: "?")].contains(bytes[end]) { end += 1 }
            if bytes[end...].starts(with: Array("?>".utf8)) {
                return "it has a processing instruction without data at offset \(instruction.lowerBound); remove it"
            }
            searchStart = instruction.upperBound
        }
        return nil
    }

    /// The offset of the first byte that does not belong to a valid UTF-8 sequence, or `nil` when all do.
    static func firstInvalidUTF8Offset(_ data: Data) -> Int? {
        var decoder = UTF8()
        var bytes = data.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&bytes) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    static func localName(_ qualified: String) -> String {
        qualified.split(separator: ":").last.map(String.init) ?? qualified
    }

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: XMLElementNode?
        var stack: [XMLElementNode] = []
        var mismatched = false

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            let node = XMLElementNode(name: XMLElementNode.localName(elementName), attributes: attributeDict)
            if let parent = stack.last { parent.children.append(node) } else { root = node }
            stack.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            if stack.popLast()?.name != XMLElementNode.localName(elementName) { mismatched = true }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { stack.last?.text += string }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            stack.last?.text += String(decoding: CDATABlock, as: UTF8.self)
        }
    }
}

/// Escapes text for XML element content and attribute values.
func xmlEscaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for character in text {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        case "\r": out += "&#13;"
        default: out.append(character)
        }
    }
    return out
}

/// Streams the points of a GPX track (`trkpt`, and `rtept`) without loading the whole file,
/// so a watch can replay a day-long recording in constant memory.
public enum GPXTrackReader {
    /// Calls `fix` for each track point in file order. GPX has no accuracy field; `hdop` (when present)
    /// is turned into metres with the usual 5 m per unit of dilution.
    public static func read(_ url: URL, fix: @escaping (LocationFix) -> Void) throws {
        guard let stream = InputStream(url: url) else {
            throw InputError("cannot read '\(url.path)': no such file, or no permission")
        }
        // The same constructs that crash Foundation's parser in an import crash it here; the file is mapped,
        // not read, for the check, so a long track still streams.
        if let mapped = try? Data(contentsOf: url, options: .alwaysMapped),
           let problem = XMLElementNode.constructFoundationCannotParse(in: mapped) {
            throw InputError("cannot read the GPX track '\(url.lastPathComponent)': \(problem)")
        }
        let parser = XMLParser(stream: stream)
        let reader = PointReader(onFix: fix)
        parser.delegate = reader
        guard parser.parse() else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "not well-formed XML"
            throw InputError("cannot read the GPX track '\(url.lastPathComponent)': \(reason) (line \(parser.lineNumber))")
        }
        if let error = reader.error { throw error }
    }

    private final class PointReader: NSObject, XMLParserDelegate {
        let onFix: (LocationFix) -> Void
        var current: LocationFix?
        var field: String?
        var text = ""
        var error: InputError?

        init(onFix: @escaping (LocationFix) -> Void) { self.onFix = onFix }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes: [String: String] = [:]) {
            let name = XMLElementNode.localName(elementName)
            if name == "trkpt" || name == "rtept" {
                guard let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init),
                      let coordinate = try? Coordinate(validatingLatitude: lat, longitude: lon) else {
                    error = InputError("invalid GPX point at line \(parser.lineNumber): lat and lon must be decimal degrees")
                    parser.abortParsing()
                    return
                }
                current = LocationFix(coordinate: coordinate)
            } else if current != nil, name == "time" || name == "hdop" {
                field = name
                text = ""
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { if field != nil { text += string } }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            let name = XMLElementNode.localName(elementName)
            if let fieldName = field, name == fieldName {
                let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if fieldName == "time" { current?.time = SpotTime.parseDate(value) }
                if fieldName == "hdop", let hdop = Double(value) { current?.accuracy = hdop * 5 }
                field = nil
            } else if name == "trkpt" || name == "rtept", let fix = current {
                onFix(fix)
                current = nil
            }
        }
    }
}
