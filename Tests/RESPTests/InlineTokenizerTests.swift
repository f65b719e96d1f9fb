import Testing
@testable import RESP

private func tokens(_ line: String) throws -> [String] {
    try InlineTokenizer.split(Array(line.utf8)).map { String(decoding: $0, as: UTF8.self) }
}

@Suite struct InlineTokenizerTests {
    @Test func whitespaceSeparatesTokens() throws {
        #expect(try tokens("SEARCH  maya\tbar ") == ["SEARCH", "maya", "bar"])
        #expect(try tokens("   ") == [])
    }

    @Test func doubleQuotesKeepSpacesAndUnderstandEscapes() throws {
        #expect(try tokens(#"SEARCH "maya bar""#) == ["SEARCH", "maya bar"])
        #expect(try tokens(#"ECHO "a\nb\rc\td\be\af\\g\"h""#) == ["ECHO", "a\nb\rc\td\u{8}e\u{7}f\\g\"h"])
        #expect(try tokens(#"ECHO "caf\xc3\xA9""#) == ["ECHO", "café"])
        #expect(try tokens(#"ECHO "\q""#) == ["ECHO", "q"])
        #expect(try tokens(#"ECHO """#) == ["ECHO", ""])
    }

    @Test func singleQuotesOnlyEscapeTheQuote() throws {
        #expect(try tokens(#"ECHO 'it\'s \n raw'"#) == ["ECHO", #"it's \n raw"#])
    }

    @Test func aQuoteInsideAWordStartsAQuotedPart() throws {
        #expect(try tokens(#"ECHO foo"bar baz""#) == ["ECHO", "foobar baz"])
    }

    @Test func aClosingQuoteMustBeFollowedBySpaceOrEnd() {
        #expect(throws: RESPProtocolError.unbalancedQuotes) { try tokens(#"ECHO "a"b"#) }
        #expect(throws: RESPProtocolError.unbalancedQuotes) { try tokens("ECHO 'a'b") }
    }

    @Test func unbalancedQuotesAreProtocolErrors() {
        #expect(throws: RESPProtocolError.unbalancedQuotes) { try tokens(#"ECHO "abc"#) }
        #expect(throws: RESPProtocolError.unbalancedQuotes) { try tokens("ECHO 'abc") }
        #expect(throws: RESPProtocolError.unbalancedQuotes) { try tokens(#"ECHO "abc\"#) }
    }
}
