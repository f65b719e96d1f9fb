import Foundation
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

    /// Reads the whole file into a tree; the first problem (not UTF-8, a DOCTYPE, anything not well-formed)
    /// is one line naming the file kind, the reason and the line.
    static func parse(_ data: Data, what: String) throws -> XMLElementNode {
        try data.withUnsafeBytes { bytes in
            var reader = XMLReader(bytes)
            var root: XMLElementNode?
            var stack: [XMLElementNode] = []
            do {
                while let event = try reader.next() {
                    switch event {
                    case .startElement(let name, let attributes):
                        let node = XMLElementNode(name: localName(name), attributes: attributes)
                        if let parent = stack.last { parent.children.append(node) } else { root = node }
                        stack.append(node)
                    case .endElement:
                        stack.removeLast()
                    case .text(let text):
                        stack.last?.text += text
                    }
                }
            } catch {
                throw InputError("cannot read the \(what) file: \(error)")
            }
            // The reader ends without a problem only after the root element has closed.
            guard let root else { throw InputError("cannot read the \(what) file: there is no root element") }
            return root
        }
    }

    static func localName(_ qualified: String) -> String {
        qualified.split(separator: ":").last.map(String.init) ?? qualified
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
    public static func read(_ url: URL, fix: (LocationFix) -> Void) throws {
        // Mapped, not read: a long track is paged in as the reader walks it. A pipe (`--gpx /dev/stdin`) cannot be
        // mapped and is read whole.
        guard let data = (try? Data(contentsOf: url, options: .alwaysMapped))
                ?? (try? FileHandle(forReadingFrom: url).readToEnd() ?? Data()) else {
            throw InputError("cannot read '\(url.path)': no such file, or no permission")
        }
        try data.withUnsafeBytes { bytes in
            var reader = XMLReader(bytes)
            var current: LocationFix?
            var field: String?
            var text = ""
            do {
                while let event = try reader.next() {
                    switch event {
                    case .startElement(let qualified, let attributes):
                        let name = XMLElementNode.localName(qualified)
                        if name == "trkpt" || name == "rtept" {
                            guard let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init),
                                  let coordinate = try? Coordinate(validatingLatitude: lat, longitude: lon) else {
                                throw InputError("invalid GPX point at line \(reader.line): lat and lon must be decimal degrees")
                            }
                            current = LocationFix(coordinate: coordinate)
                        } else if current != nil, name == "time" || name == "hdop" {
                            field = name
                            text = ""
                        }
                    case .text(let characters):
                        if field != nil { text += characters }
                    case .endElement(let qualified):
                        let name = XMLElementNode.localName(qualified)
                        if let fieldName = field, name == fieldName {
                            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
                            if fieldName == "time" { current?.time = SpotTime.parseDate(value) }
                            if fieldName == "hdop", let hdop = Double(value) { current?.accuracy = hdop * 5 }
                            field = nil
                        } else if name == "trkpt" || name == "rtept", let point = current {
                            fix(point)
                            current = nil
                        }
                    }
                }
            } catch let error as XMLSyntaxError {
                throw InputError("cannot read the GPX track '\(url.lastPathComponent)': \(error)")
            }
        }
    }
}
