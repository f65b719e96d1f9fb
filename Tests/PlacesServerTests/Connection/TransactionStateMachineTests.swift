import NIOCore
import PlacesCore
import RESP
import Testing
@testable import PlacesServer

/// `MULTI` / `EXEC` / `DISCARD` as Redis answers them (https://redis.io/docs/latest/develop/interact/transactions/),
/// decided without I/O.
@Suite struct TransactionStateMachineTests {
    @Test func queuedCommandsAnswerQueuedThenExecRunsThemInOrder() {
        var machine = ConnectionStateMachine(password: nil)
        #expect(machine.received(RESPRequest(["MULTI"])) == .reply(.ok))
        #expect(!machine.isReady, "inside MULTI no request may be answered from the memo: it must be queued")
        #expect(machine.received(RESPRequest(["SEARCH", "kiasma"])) == .reply(.simpleString("QUEUED")))
        #expect(machine.received(RESPRequest(["PING"])) == .reply(.simpleString("QUEUED")))
        #expect(machine.received(RESPRequest(["INFO", "stats"])) == .reply(.simpleString("QUEUED")))
        #expect(machine.received(RESPRequest(["EXEC"])) == .executeTransaction([
            .execute(expectedCall("SEARCH", ServerRequests.Filtered(query: SearchQuery(text: "kiasma")))),
            .reply(.simpleString("PONG")),
            .report(sections: ["stats"], json: false),
        ]))
        #expect(machine.isReady)
        #expect(machine.received(RESPRequest(["PING"])) == .reply(.simpleString("PONG")), "after EXEC commands run at once again")
    }

    @Test func anEmptyTransactionIsAnEmptyArray() {
        var machine = ConnectionStateMachine(password: nil)
        #expect(machine.received(RESPRequest(["multi"])) == .reply(.ok))
        #expect(machine.received(RESPRequest(["exec"])) == .executeTransaction([]))
    }

    @Test func discardDropsTheQueue() {
        var machine = ConnectionStateMachine(password: nil)
        #expect(machine.received(RESPRequest(["MULTI"])) == .reply(.ok))
        #expect(machine.received(RESPRequest(["SPOT.ADD", "Kiasma", "60.1717", "24.9363"])) == .reply(.simpleString("QUEUED")))
        #expect(machine.received(RESPRequest(["DISCARD"])) == .reply(.ok))
        #expect(machine.received(RESPRequest(["EXEC"])) == .reply(.error("ERR EXEC without MULTI")))
    }

    @Test func execAndDiscardWithoutMultiAreErrors() {
        var machine = ConnectionStateMachine(password: nil)
        #expect(machine.received(RESPRequest(["EXEC"])) == .reply(.error("ERR EXEC without MULTI")))
        #expect(machine.received(RESPRequest(["DISCARD"])) == .reply(.error("ERR DISCARD without MULTI")))
    }

    /// Redis refuses a nested MULTI with an error and keeps the transaction going.
    @Test func nestedMultiIsAnErrorAndTheTransactionGoesOn() {
        var machine = ConnectionStateMachine(password: nil)
        #expect(machine.received(RESPRequest(["MULTI"])) == .reply(.ok))
        #expect(machine.received(RESPRequest(["MULTI"])) == .reply(.error("ERR MULTI calls can not be nested")))
        #expect(machine.received(RESPRequest(["ECHO", "hi"])) == .reply(.simpleString("QUEUED")))
        #expect(machine.received(RESPRequest(["EXEC"])) == .executeTransaction([.reply(.bulkString(ByteBuffer(string: "hi")))]))
    }

    /// A command refused while queuing (unknown, wrong arity, bad arguments) makes EXEC discard the whole transaction.
    @Test(arguments: [["NOSUCH", "x"], ["SEARCH"], ["NEARBY", "north", "east"]])
    func aSyntaxErrorWhileQueuingAbortsExec(_ bad: [String]) {
        var machine = ConnectionStateMachine(password: nil)
        #expect(machine.received(RESPRequest(["MULTI"])) == .reply(.ok))
        #expect(machine.received(RESPRequest(["PING"])) == .reply(.simpleString("QUEUED")))
        guard case .reply(.error) = machine.received(RESPRequest(bad)) else {
            Issue.record("\(bad) should be refused with an error while queuing")
            return
        }
        #expect(machine.received(RESPRequest(["EXEC"])) == .reply(.error("EXECABORT Transaction discarded because of previous errors.")))
        #expect(machine.received(RESPRequest(["PING"])) == .reply(.simpleString("PONG")), "the transaction is over")
    }

    @Test func quitInsideMultiClosesAtOnce() {
        var machine = ConnectionStateMachine(password: nil)
        #expect(machine.received(RESPRequest(["MULTI"])) == .reply(.ok))
        #expect(machine.received(RESPRequest(["QUIT"])) == .replyAndClose(.ok))
    }
}
