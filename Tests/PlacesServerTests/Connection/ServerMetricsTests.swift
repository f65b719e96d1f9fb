import NIOCore
import Testing
@testable import PlacesServer

@Suite struct ServerMetricsTests {
    @Test("a connection's requests are counted under their command, whichever it sent before, any case")
    func recentCommandCountsEveryRequestUnderItsCommand() {
        let metrics = ServerMetrics(commandNames: ["DETAILS", "PING"])
        var recent = ServerMetrics.RecentCommand()
        for name in ["DETAILS", "details", "DETAILS", "PING", "NOPE", "DETAILS", "DETAILSX"] {
            _ = recent.countRequest(named: ByteBuffer(string: name), in: metrics)
        }
        let calls = Dictionary(uniqueKeysWithValues: metrics.commands.map { ($0.name, $0.callCount) })
        #expect(calls == ["DETAILS": 4, "PING": 1, ServerMetrics.otherCommand: 2])
        #expect(metrics.snapshot.commandsProcessed == 7)
    }
}
