/// A strict, non-validating XML 1.0 reader, just large enough for the GPX and KML files spots import and
/// `spots watch --gpx` read: elements, attributes, character data, CDATA sections, the five predefined
/// entities and numeric character references, comments and processing instructions (skipped). A DOCTYPE is
/// refused (GPX and KML do not use one, and it is how entity expansion attacks arrive), as is anything that is
/// not well-formed: the first problem ends the read with one line saying what and where.
///
/// Why not Foundation's XMLParser: it is the only user of FoundationXML, which pulls libxml2 and ICU into every
/// process start and keeps the Swift standard library from being linked statically (issue #18's 20 ms CLI);
/// it also crashed on inputs the fuzzers found (a name that is not UTF-8, `<?x?>`, DTD declarations).
///
/// Pull style: `next()` hands out one event at a time, so a day-long GPX track streams in constant memory
/// over a mapped file. The reader borrows the bytes: use it inside `withUnsafeBytes` and do not let it escape.
struct XMLReader {
    enum Event: Equatable {
        /// `name` and the attribute keys are as written, namespace prefix included (`places:id`).
        case startElement(name: String, attributes: [String: String])
        case endElement(name: String)
        /// Character data with references resolved and line ends normalised to `\n`; CDATA sections arrive as
        /// text too. One run of text may come as several events (around a CDATA section or a comment).
        case text(String)
    }

    /// Deeper nesting is refused rather than followed: no GPX or KML file comes close, and a tree a million
    /// levels deep would overflow the stack when freed.
    static let maximumDepth = 256

    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    /// Where the last event (or the problem) began, for line numbers.
    private var eventStart = 0
    private var openElements: [String] = []
    private var endOfEmptyElement: String?
    private var sawRoot = false
    private var checkedEncoding = false
    private let documentStart: Int

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        documentStart = bytes.starts(with: byteOrderMark) ? 3 : 0
        position = documentStart
    }

    /// The line (from 1) on which the last event handed out begins.
    var line: Int { Self.line(of: eventStart, in: bytes) }

    /// The next event, or `nil` after the root element has closed and only whitespace, comments and
    /// processing instructions followed it.
    mutating func next() throws(XMLSyntaxError) -> Event? {
        if !checkedEncoding {
            checkedEncoding = true
            if let offset = Self.firstInvalidUTF8Offset(bytes) {
                eventStart = offset
                throw problem("it is not UTF-8 (invalid byte at offset \(offset)); save it as UTF-8, for example with iconv -t UTF-8")
            }
        }
        if let name = endOfEmptyElement {
            endOfEmptyElement = nil
            openElements.removeLast()
            return .endElement(name: name)
        }
        while position < bytes.count {
            eventStart = position
            guard bytes[position] == UInt8(ascii: "<") else {
                let text = try readText()
                if openElements.isEmpty {
                    guard text.utf8.allSatisfy(Self.isWhitespace) else { throw problem("text outside the root element") }
                    continue
                }
                return .text(text)
            }
            if hasPrefix("<?") {
                try skipProcessingInstruction()
            } else if hasPrefix("<!--") {
                try skipComment()
            } else if hasPrefix("<![CDATA[") {
                guard !openElements.isEmpty else { throw problem("a CDATA section outside the root element") }
                return .text(try readCDATA())
            } else if hasPrefix("<!DOCTYPE") {
                throw problem("it has a DOCTYPE, which GPX and KML files do not use; remove it")
            } else if hasPrefix("<!") {
                throw problem("markup starting with '<!' that is not a comment or CDATA section")
            } else if hasPrefix("</") {
                return try readEndTag()
            } else {
                return try readStartTag()
            }
        }
        eventStart = bytes.count
        if let open = openElements.last { throw problem("the file ends inside <\(Self.shown(open))>") }
        if !sawRoot { throw problem("there is no root element") }
        return nil
    }

    // MARK: Markup

    private mutating func readStartTag() throws(XMLSyntaxError) -> Event {
        position += 1
        let name = try readName(what: "an element")
        if openElements.isEmpty && sawRoot { throw problem("a second root element <\(Self.shown(name))>") }
        guard openElements.count < Self.maximumDepth else {
            throw problem("elements nested more than \(Self.maximumDepth) deep")
        }
        var attributes: [String: String] = [:]
        while true {
            let spaced = skipWhitespace()
            guard position < bytes.count else { throw problem("the file ends inside the tag <\(Self.shown(name))>") }
            if bytes[position] == UInt8(ascii: ">") {
                position += 1
                break
            }
            if hasPrefix("/>") {
                position += 2
                endOfEmptyElement = name
                break
            }
            guard spaced else { throw problem("the tag <\(Self.shown(name))> needs a space before each attribute") }
            let key = try readName(what: "an attribute in <\(Self.shown(name))>")
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                throw problem("the attribute \(Self.shown(key)) in <\(Self.shown(name))> has no '=' and value")
            }
            position += 1
            skipWhitespace()
            let value = try readAttributeValue(key: key, element: name)
            guard attributes.updateValue(value, forKey: key) == nil else {
                throw problem("the attribute \(Self.shown(key)) appears twice in <\(Self.shown(name))>")
            }
        }
        openElements.append(name)
        sawRoot = true
        return .startElement(name: name, attributes: attributes)
    }

    private mutating func readEndTag() throws(XMLSyntaxError) -> Event {
        position += 2
        let name = try readName(what: "a closing tag")
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
            throw problem("the closing tag </\(Self.shown(name))> is not closed with '>'")
        }
        position += 1
        guard let open = openElements.last else { throw problem("</\(Self.shown(name))> closes nothing") }
        guard open == name else { throw problem("</\(Self.shown(name))> closes <\(Self.shown(open))>") }
        openElements.removeLast()
        return .endElement(name: name)
    }

    private mutating func skipProcessingInstruction() throws(XMLSyntaxError) {
        let start = position
        position += 2
        let target = try readName(what: "a processing instruction")
        if target.lowercased() == "xml" && start != documentStart {
            throw problem("an XML declaration (<?xml …?>) that is not at the start of the file")
        }
        guard let end = find("?>") else { throw problem("the file ends inside the processing instruction <?\(Self.shown(target))") }
        position = end + 2
    }

    private mutating func skipComment() throws(XMLSyntaxError) {
        position += 4
        guard let dashes = find("--") else { throw problem("the file ends inside a comment") }
        guard dashes + 2 < bytes.count, bytes[dashes + 2] == UInt8(ascii: ">") else {
            throw problem("'--' inside a comment")
        }
        position = dashes + 3
    }

    private mutating func readCDATA() throws(XMLSyntaxError) -> String {
        position += 9
        guard let end = find("]]>") else { throw problem("the file ends inside a CDATA section") }
        var out: [UInt8] = []
        out.reserveCapacity(end - position)
        while position < end {
            let byte = bytes[position]
            position += 1
            try appendCharacterByte(byte, to: &out)
        }
        position = end + 3
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Text

    private mutating func readText() throws(XMLSyntaxError) -> String {
        var out: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") { break }
            if byte == UInt8(ascii: "&") {
                try appendReference(to: &out)
                continue
            }
            if byte == UInt8(ascii: "]") && hasPrefix("]]>") {
                eventStart = position
                throw problem("']]>' in text (write ]]&gt;)")
            }
            position += 1
            try appendCharacterByte(byte, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func readAttributeValue(key: String, element: String) throws(XMLSyntaxError) -> String {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
            throw problem("the value of \(Self.shown(key)) in <\(Self.shown(element))> is not in quotes")
        }
        let quote = bytes[position]
        position += 1
        var out: [UInt8] = []
        while true {
            guard position < bytes.count else { throw problem("the file ends inside the value of \(Self.shown(key)) in <\(Self.shown(element))>") }
            let byte = bytes[position]
            if byte == quote {
                position += 1
                return String(decoding: out, as: UTF8.self)
            }
            switch byte {
            case UInt8(ascii: "<"): throw problem("a '<' inside the value of \(Self.shown(key)) in <\(Self.shown(element))> (write &lt;)")
            case UInt8(ascii: "&"): try appendReference(to: &out)
            // Attribute-value normalisation (XML 1.0 §3.3.3): a literal line end or tab is read as one space;
            // a character reference (&#10;) keeps its character.
            case UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: "\t"):
                if byte == UInt8(ascii: "\r"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "\n") { position += 1 }
                position += 1
                out.append(UInt8(ascii: " "))
            default:
                position += 1
                try appendCharacterByte(byte, to: &out)
            }
        }
    }

    /// Appends one byte of character data (the byte at `position - 1`), normalising `\r\n` and a lone `\r` to
    /// `\n` and refusing the control characters XML does not allow.
    private mutating func appendCharacterByte(_ byte: UInt8, to out: inout [UInt8]) throws(XMLSyntaxError) {
        if byte == UInt8(ascii: "\r") {
            if position < bytes.count, bytes[position] == UInt8(ascii: "\n") { position += 1 }
            out.append(UInt8(ascii: "\n"))
            return
        }
        if byte < 0x20 && byte != UInt8(ascii: "\t") && byte != UInt8(ascii: "\n") {
            eventStart = position - 1
            throw problem("the control character U+\(Self.hex(UInt32(byte), width: 4)), which XML does not allow")
        }
        out.append(byte)
    }

    /// Reads `&name;` or `&#…;` at `position` and appends the character it stands for.
    private mutating func appendReference(to out: inout [UInt8]) throws(XMLSyntaxError) {
        let start = position
        var end = start + 1
        if end < bytes.count, bytes[end] == UInt8(ascii: "#") { end += 1 }
        while end < bytes.count, end - start <= 32, Self.isASCIINameByte(bytes[end]) { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";"), end > start + 1 else {
            eventStart = start
            throw problem("an '&' that does not start a reference (write &amp;)")
        }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<end]), as: UTF8.self)
        position = end + 1
        let scalar: Unicode.Scalar?
        switch name {
        case "lt": scalar = "<"
        case "gt": scalar = ">"
        case "amp": scalar = "&"
        case "quot": scalar = "\""
        case "apos": scalar = "'"
        default:
            if name.hasPrefix("#x") {
                let digits = name.dropFirst(2)
                scalar = digits.allSatisfy(\.isHexDigit) ? UInt32(digits, radix: 16).flatMap(Self.allowedCharacter) : nil
            } else if name.hasPrefix("#") {
                let digits = name.dropFirst()
                scalar = digits.allSatisfy { $0.isASCII && $0.isNumber } ? UInt32(digits, radix: 10).flatMap(Self.allowedCharacter) : nil
            } else {
                eventStart = start
                throw problem("the undefined entity &\(name); (only &lt; &gt; &amp; &quot; &apos; and &#…; are known)")
            }
        }
        guard let scalar else {
            eventStart = start
            throw problem("the character reference &\(name); is not a character XML allows")
        }
        out.append(contentsOf: Array(String(scalar).utf8))
    }

    /// `Char` of XML 1.0 §2.2: tab, line feed, carriage return, and everything from U+0020 except surrogates,
    /// U+FFFE and U+FFFF. (The caller checks for digits first: `UInt32("+9")` would accept a sign.)
    private static func allowedCharacter(_ value: UInt32) -> Unicode.Scalar? {
        switch value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: Unicode.Scalar(value)
        default: nil
        }
    }

    // MARK: Names and whitespace

    /// A name as XML 1.0 allows it, simplified: an ASCII letter, `_`, `:` or any non-ASCII character first, then
    /// also digits, `-` and `.`.
    private mutating func readName(what: @autoclosure () -> String) throws(XMLSyntaxError) -> String {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            let isStart = (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte >= 0x80
            let isLater = (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
            guard isStart || (position > start && isLater) else { break }
            position += 1
        }
        guard position > start else {
            eventStart = start
            throw problem("\(what()) without a valid name")
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    /// What may follow `&` (or `&#`) up to the `;` of a reference this reader knows: ASCII letters and digits
    /// (the five entity names, decimal and hexadecimal numbers); anything else is a stray `&`.
    private static func isASCIINameByte(_ byte: UInt8) -> Bool {
        (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// A name as a problem shows it: a name of any length is well-formed, but a line should stay a line.
    private static func shown(_ name: String) -> String {
        name.count > 40 ? name.prefix(40) + "…" : name
    }

    @discardableResult
    private mutating func skipWhitespace() -> Bool {
        let start = position
        while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
        return position > start
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    private func hasPrefix(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        let pattern = UnsafeRawBufferPointer(start: prefix.utf8Start, count: count)
        return pattern.elementsEqual(bytes[position..<(position + count)])
    }

    /// The offset of the next occurrence of `pattern` at or after `position`.
    private func find(_ pattern: StaticString) -> Int? {
        let count = pattern.utf8CodeUnitCount
        let first = pattern.utf8Start.pointee
        let needle = UnsafeRawBufferPointer(start: pattern.utf8Start, count: count)
        var index = position
        while index + count <= bytes.count {
            if bytes[index] == first && needle.elementsEqual(bytes[index..<(index + count)]) { return index }
            index += 1
        }
        return nil
    }

    // MARK: Problems

    private func problem(_ reason: String) -> XMLSyntaxError {
        XMLSyntaxError(reason: reason, line: Self.line(of: eventStart, in: bytes))
    }

    private static func line(of offset: Int, in bytes: UnsafeRawBufferPointer) -> Int {
        1 + bytes[..<min(offset, bytes.count)].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// The offset of the first byte that does not belong to a valid UTF-8 sequence, or `nil` when all do.
    static func firstInvalidUTF8Offset(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}

/// Why a GPX or KML file could not be read, and on which line.
struct XMLSyntaxError: Error, Equatable, CustomStringConvertible {
    let reason: String
    let line: Int

    var description: String { "\(reason) (line \(line))" }
}
