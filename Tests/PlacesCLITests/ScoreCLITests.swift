import Foundation
import Testing

/// `places score` on the precision traps of issue 13, through the binary. Expected verdicts are the issue's
/// own ("Ateneum" and "Ateneum Bistro" are two places) and hand-checked: the score printed in text is the
/// JSON score rounded to two decimals, as the reasons print theirs.
@Suite("places score through the binary")
struct ScoreCLITests {
    let cli = CLIHarness.shared

    func verdict(_ a: String, _ b: String) throws -> (verdict: String?, score: Double?) {
        let result = try cli.run("score", a, b, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any], "\(result.stdoutText)")
        return (object["verdict"] as? String, object["score"] as? Double)
    }

    @Test func aNameExtendedByAKindWordIsNotAMatchOnDistanceAlone() throws {
        // Neither side has a category: 22 m and 20 m apart, nothing else to say they are one place.
        #expect(try verdict(#"{"name":"Ateneum","lat":60.1704,"lon":24.9441}"#,
                            #"{"name":"Ateneum Bistro","lat":60.1705,"lon":24.9443}"#).verdict == "review")
        #expect(try verdict(#"{"name":"Nordea","lat":60.1680,"lon":24.9410}"#,
                            #"{"name":"Nordea Bar","lat":60.1681,"lon":24.9413}"#).verdict == "review")
        // An equal phone or an equal street address says they are one business.
        #expect(try verdict(#"{"name":"Ateneum","lat":60.1704,"lon":24.9441,"phone":"+358 9 123 4567"}"#,
                            #"{"name":"Ateneum Bistro","lat":60.1705,"lon":24.9443,"phone":"09 1234567","country":"FI"}"#)
            .verdict == "match")
        #expect(try verdict(#"{"name":"Ateneum","lat":60.1704,"lon":24.9441,"address":"Kaivokatu 2"}"#,
                            #"{"name":"Ateneum Bistro","lat":60.1705,"lon":24.9443,"address":"Kaivokatu 2"}"#).verdict == "match")
        // A category that says the kind the word names explains it: the bar "Maya Bar & Grill" is "Maya".
        #expect(try verdict(#"{"name":"Maya","lat":60.1721,"lon":24.9450}"#,
                            #"{"name":"Maya Bar & Grill","lat":60.1722,"lon":24.9451,"category":"bar"}"#).verdict == "match")
    }

    @Test func theTextScoreIsRoundedToTwoDecimals() throws {
        let a = #"{"name":"Ateneum","lat":60.1704,"lon":24.9441}"#, b = #"{"name":"Ateneum Bistro","lat":60.1705,"lon":24.9443}"#
        let json = try verdict(a, b)
        let text = try cli.run("score", a, b)
        #expect(text.status == 0)
        let line = try #require(text.stdoutText.split(separator: "\n").first.map(String.init))
        #expect(line == "score    \(String(format: "%.2f", try #require(json.score)))", "\(text.stdoutText)")
        #expect(line.count == "score    0.79".count)
    }
}
