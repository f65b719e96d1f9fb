import Testing
@testable import PlacesServer

@Suite struct ServerMetricsTests {
    @Test("a connection's requests are counted under their command, whichever it sent before, any case")
    func recentCommandCountsEveryRequestUnderItsCommand() {
        let metrics = ServerMetrics(commandNames: ["DETAILS", "PING"])
        var recent = ServerMetrics.RecentCommand()
        // A name longer than 16 bytes is not remembered by its bytes; the request after it is still counted right.
        for name in ["DETAILS", "details", "DETAILS", "PING", "NOPE", "DETAILS", "DETAILSX", "DETAILSDETAILSDETAILS", "DETAILS"] {
            _ = Array(name.utf8).withUnsafeBytes { recent.countRequest(named: $0, in: metrics) }
        }
        let calls = Dictionary(uniqueKeysWithValues: metrics.commands.map { ($0.name, $0.callCount) })
        #expect(calls == ["DETAILS": 5, "PING": 1, ServerMetrics.otherCommand: 3])
        #expect(metrics.snapshot.commandsProcessed == 9)
    }
}
