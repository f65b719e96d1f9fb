import Foundation
@testable import SpotStore
import Testing

/// The hand-written XML reader behind GPX and KML import and `spots watch --gpx`. Expected events and
/// problems follow from XML 1.0 (fifth edition): §2.2 characters, §2.4 character data, §2.7 CDATA, §2.11 line
/// ends, §3.1 tags, §3.3.3 attribute-value normalisation, §4.1 character references, §4.6 predefined entities.
@Suite("XML reader")
struct XMLReaderTests {
    static func events(_ text: String) throws(XMLSyntaxError) -> [XMLReader.Event] {
        try events(Data(text.utf8))
    }

    static func events(_ data: Data) throws(XMLSyntaxError) -> [XMLReader.Event] {
        let result: Result<[XMLReader.Event], XMLSyntaxError> = data.withUnsafeBytes { bytes in
            var reader = XMLReader(bytes)
            var events: [XMLReader.Event] = []
            do throws(XMLSyntaxError) {
                while let event = try reader.next() { events.append(event) }
            } catch {
                return .failure(error)
            }
            return .success(events)
        }
        return try result.get()
    }

    /// The text events of one document joined, as a tree keeps them.
    static func text(_ text: String) throws -> String {
        try events(text).map { if case .text(let value) = $0 { value } else { "" } }.joined()
    }

    static func problem(_ text: String) -> XMLSyntaxError? {
        do {
            _ = try events(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsElementsAttributesTextAndSkipsTheRest() throws {
        let document = "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- saved -->\n"
            + "<gpx xmlns:places='urn:x' version=\"1.1\"><?app data?><wpt lat=\"60.1\" lon='24.9'/>"
            + "<places:id>a<!-- no -->b</places:id><desc><![CDATA[<b>&amp;</b>]]></desc></gpx>\n<!-- end -->\n"
        #expect(try Self.events(document) == [
            .startElement(name: "gpx", attributes: ["xmlns:places": "urn:x", "version": "1.1"]),
            .startElement(name: "wpt", attributes: ["lat": "60.1", "lon": "24.9"]),
            .endElement(name: "wpt"),
            .startElement(name: "places:id", attributes: [:]),
            .text("a"), .text("b"),
            .endElement(name: "places:id"),
            .startElement(name: "desc", attributes: [:]),
            .text("<b>&amp;</b>"),
            .endElement(name: "desc"),
            .endElement(name: "gpx"),
        ])
    }

    @Test func resolvesThePredefinedEntitiesAndCharacterReferences() throws {
        #expect(try Self.text("<a>&lt;&gt;&amp;&quot;&apos;</a>") == "<>&\"'")
        #expect(try Self.text("<a>&#65;&#x42;&#xe9;&#x1F600;&#10;</a>") == "ABé😀\n")
        #expect(try Self.events("<a b=\"&lt;&#x41;&amp;\"/>").first == .startElement(name: "a", attributes: ["b": "<A&"]))
    }

    @Test func normalisesLineEndsInTextAndWhitespaceInAttributes() throws {
        #expect(try Self.text("<a>1\r\n2\r3\n4&#13;5</a>") == "1\n2\n3\n4\r5")
        #expect(try Self.text("<a><![CDATA[1\r\n2]]></a>") == "1\n2")
        #expect(try Self.events("<a b=\"1\r\n2\t3\n4&#10;5&#9;6\"/>").first
                    == .startElement(name: "a", attributes: ["b": "1 2 3 4\n5\t6"]))
    }

    @Test func nestsAsDeepAsTheLimitAndNoDeeper() throws {
        let depth = XMLReader.maximumDepth
        let deepest = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        #expect(try Self.events(deepest).count == 2 * depth)
        let tooDeep = String(repeating: "<a>", count: depth + 1) + String(repeating: "</a>", count: depth + 1)
        #expect(Self.problem(tooDeep)?.reason == "elements nested more than \(depth) deep")
    }

    /// Each input is not well-formed XML (or, for the DOCTYPE, not what a GPX or KML file holds): the reader
    /// stops with this reason on this line.
    static let malformed: [(String, String, Int)] = [
        ("", "there is no root element", 1),
        ("  \n<!-- only a comment -->\n", "there is no root element", 3),
        ("<a>", "the file ends inside <a>", 1),
        ("<a><b></a>", "</a> closes <b>", 1),
        ("<a/></a>", "</a> closes nothing", 1),
        ("<a/><b/>", "a second root element <b>", 1),
        ("<a/>text", "text outside the root element", 1),
        ("text<a/>", "text outside the root element", 1),
        ("<![CDATA[x]]><a/>", "a CDATA section outside the root element", 1),
        ("<a x=\"1\" x=\"2\"/>", "the attribute x appears twice in <a>", 1),
        ("<a x=1/>", "the value of x in <a> is not in quotes", 1),
        ("<a x/>", "the attribute x in <a> has no '=' and value", 1),
        ("<a x=\"1\"y=\"2\"/>", "the tag <a> needs a space before each attribute", 1),
        ("<a x=\"<\"/>", "a '<' inside the value of x in <a> (write &lt;)", 1),
        ("<a x=\"1/>", "the file ends inside the value of x in <a>", 1),
        ("<a", "the file ends inside the tag <a>", 1),
        ("<a></a", "the closing tag </a> is not closed with '>'", 1),
        ("< a/>", "an element without a valid name", 1),
        ("<1a/>", "an element without a valid name", 1),
        ("<a>\n\n&nbsp;</a>", "the undefined entity &nbsp; (only &lt; &gt; &amp; &quot; &apos; and &#…; are known)", 3),
        ("<a>fish & chips</a>", "an '&' that does not start a reference (write &amp;)", 1),
        ("<a>&#0;</a>", "the character reference &#0; is not a character XML allows", 1),
        ("<a>&#xD800;</a>", "the character reference &#xD800; is not a character XML allows", 1),
        ("<a>&#xFFFE;</a>", "the character reference &#xFFFE; is not a character XML allows", 1),
        ("<a>&#x110000;</a>", "the character reference &#x110000; is not a character XML allows", 1),
        ("<a>&#+65;</a>", "an '&' that does not start a reference (write &amp;)", 1),
        ("<a x=\"&\n<b>;\"/>", "an '&' that does not start a reference (write &amp;)", 1),
        ("<a>&#X43;</a>", "the character reference &#X43; is not a character XML allows", 1),  // §4.1: a lower-case x only
        ("<a>&#x;</a>", "the character reference &#x; is not a character XML allows", 1),
        ("<a>\u{1}</a>", "the control character U+0001, which XML does not allow", 1),
        ("<a>\n]]></a>", "']]>' in text (write ]]&gt;)", 2),
        ("<a><!-- a -- b --></a>", "'--' inside a comment", 1),
        ("<a><!-- open", "the file ends inside a comment", 1),
        ("<a><![CDATA[open", "the file ends inside a CDATA section", 1),
        ("<a><?pi open", "the file ends inside the processing instruction <?pi", 1),
        ("<a><??></a>", "a processing instruction without a valid name", 1),
        ("\n<?xml version=\"1.0\"?><a/>", "an XML declaration (<?xml …?>) that is not at the start of the file", 2),
        ("<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>", "it has a DOCTYPE, which GPX and KML files do not use; remove it", 1),
        ("<a><!ELEMENT a ANY></a>", "markup starting with '<!' that is not a comment or CDATA section", 1),
    ]

    @Test(arguments: malformed)
    func malformedInputStopsWithOneReasonAndItsLine(text: String, reason: String, line: Int) {
        #expect(Self.problem(text) == XMLSyntaxError(reason: reason, line: line))
    }

    @Test func bytesThatAreNotUTF8AreRefusedBeforeAnythingIsRead() {
        // Seven bytes, then a lead byte without its continuation byte.
        let data = Data("<a>\nok\n".utf8) + [0xC3, 0x28] + Data("</a>".utf8)
        #expect(throws: XMLSyntaxError(
            reason: "it is not UTF-8 (invalid byte at offset 7); save it as UTF-8, for example with iconv -t UTF-8", line: 3)) {
            try Self.events(data)
        }
    }

    /// Every prefix of a document that uses each construct either reads or stops with a reason; none traps.
    @Test func everyTruncationEndsWithAReasonNotACrash() throws {
        let document = Array(("<?xml version=\"1.0\"?>\r\n<!-- c --><kml a='1' b=\"&amp;&#x41;\"><?pi d?>"
            + "<Placemark><name>Caf&#xe9; &lt;1&gt;</name><description><![CDATA[x]]></description></Placemark><e/></kml>").utf8)
        #expect(try Self.events(Data(document)).count == 12)
        for length in 0..<document.count {
            #expect(throws: XMLSyntaxError.self) { try Self.events(Data(document[..<length])) }
        }
    }
}
