import Foundation
import NIOCore
import RESP
import Testing
@testable import PlacesServer

@Suite struct ReplyMemoTests {
    private func store(_ memo: ReplyMemo, _ arguments: [String], _ reply: RESPValue) {
        memo.store(reply, for: ReplyMemo.Key(copying: RESPRequest(arguments)))
    }

    @Test func theCommandNameIsCaseInsensitiveButArgumentsAreExact() {
        let memo = ReplyMemo()
        store(memo, ["DETAILS", "osm:node/1"], .bulk("one"))
        #expect(memo.reply(to: RESPRequest(["details", "osm:node/1"])) == .bulk("one"))
        #expect(memo.reply(to: RESPRequest(["DeTaIlS", "osm:node/1"])) == .bulk("one"))
        #expect(memo.reply(to: RESPRequest(["DETAILS", "OSM:NODE/1"])) == nil)
        #expect(memo.reply(to: RESPRequest(["DETAILS", "osm:node/1", "x"])) == nil)
        #expect(memo.reply(to: RESPRequest(["DETAILS"])) == nil)
        // Argument boundaries count: "a b" + "c" is not "a" + "b c".
        store(memo, ["SCORE", "a b", "c"], .bulk("first"))
        #expect(memo.reply(to: RESPRequest(["SCORE", "a", "b c"])) == nil)
    }

    @Test func aStoredKeyDoesNotPinTheReceiveBuffer() {
        var received = ByteBuffer(string: String(repeating: "x", count: 100_000) + "DETAILSosm:node/1")
        let command = received.getSlice(at: 100_000, length: 7)!
        let id = received.getSlice(at: 100_007, length: 10)!
        let key = ReplyMemo.Key(copying: RESPRequest(arguments: [command, id]))
        received.clear()
        #expect(key.arguments.allSatisfy { $0.capacity < 1024 })
        let memo = ReplyMemo()
        memo.store(.null, for: key)
        #expect(memo.reply(to: RESPRequest(["DETAILS", "osm:node/1"])) == .null)
    }

    @Test func onlyBulkAndNullRepliesAreKept() {
        let memo = ReplyMemo()
        store(memo, ["SEARCH", "x"], .error("ERR upstream timed out"))
        store(memo, ["PING"], .simpleString("PONG"))
        #expect(memo.reply(to: RESPRequest(["SEARCH", "x"])) == nil)
        #expect(memo.reply(to: RESPRequest(["PING"])) == nil)
        #expect(memo.statistics.entries == 0)
    }

    @Test func theOldestEntriesGoFirstWhenOverTheEntryOrByteBound() {
        let byCount = ReplyMemo(capacity: 2)
        for id in 1...3 { store(byCount, ["DETAILS", "osm:node/\(id)"], .bulk("\(id)")) }
        #expect(byCount.reply(to: RESPRequest(["DETAILS", "osm:node/1"])) == nil)
        #expect(byCount.reply(to: RESPRequest(["DETAILS", "osm:node/3"])) == .bulk("3"))
        #expect(byCount.statistics.entries == 2)

        let byBytes = ReplyMemo(maxBytes: 2_500)
        for id in 1...3 { store(byBytes, ["SEARCH", "\(id)"], .bulk(String(repeating: "x", count: 1_000))) }
        #expect(byBytes.statistics.entries == 2)
        #expect(byBytes.statistics.bytes <= 2_500)
        #expect(byBytes.reply(to: RESPRequest(["SEARCH", "1"])) == nil)
        store(byBytes, ["SEARCH", "huge"], .bulk(String(repeating: "x", count: 5_000)))
        #expect(byBytes.reply(to: RESPRequest(["SEARCH", "huge"])) == nil, "a reply larger than the whole memo is not kept")
        #expect(byBytes.statistics.entries == 2)
    }

    @Test func replacingAnEntryKeepsTheByteCountRight() {
        let memo = ReplyMemo()
        store(memo, ["DETAILS", "a"], .bulk(String(repeating: "x", count: 100)))
        store(memo, ["DETAILS", "a"], .bulk("short"))
        #expect(memo.statistics.entries == 1)
        #expect(memo.statistics.bytes == "DETAILSa".utf8.count + 5)
        #expect(memo.reply(to: RESPRequest(["DETAILS", "a"])) == .bulk("short"))
    }

    @Test func aZeroAgeKeepsNothing() {
        let memo = ReplyMemo(timeToLive: .zero)
        store(memo, ["DETAILS", "a"], .bulk("one"))
        #expect(memo.statistics.entries == 0)
        #expect(memo.reply(to: RESPRequest(["DETAILS", "a"])) == nil)
    }

    @Test func entriesExpire() async throws {
        let memo = ReplyMemo(timeToLive: .milliseconds(20))
        store(memo, ["DETAILS", "a"], .bulk("one"))
        #expect(memo.reply(to: RESPRequest(["DETAILS", "a"])) == .bulk("one"))
        try await Task.sleep(for: .milliseconds(40))
        #expect(memo.reply(to: RESPRequest(["DETAILS", "a"])) == nil)
    }

    @Test func evictionKeepsWorkingPastManyRounds() {
        let memo = ReplyMemo(capacity: 8)
        for id in 0..<1_000 { store(memo, ["DETAILS", "\(id)"], .bulk("\(id)")) }
        #expect(memo.statistics.entries == 8)
        #expect(memo.reply(to: RESPRequest(["DETAILS", "999"])) == .bulk("999"))
        #expect(memo.reply(to: RESPRequest(["DETAILS", "991"])) == nil)
    }

    @Test func identicalRequestsInFlightShareOneComputation() async throws {
        let memo = ReplyMemo()
        let gate = Gate()
        let computations = Counter()
        let key = ReplyMemo.Key(copying: RESPRequest(["SEARCH", "hot"]))
        let replies = await withTaskGroup(of: RESPValue.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await memo.sharedReply(for: key) {
                        computations.increment()
                        await gate.pass()
                        return .bulk("[]")
                    }
                }
            }
            await gate.waitUntilEntered()
            // The other nineteen join the flight; the deadline only bounds a failure (a starved cooperative pool).
            try? await waitUntil("the other nineteen wait on the first", within: 600) { memo.followersWaiting == 19 }
            gate.open()
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies == Array(repeating: .bulk("[]"), count: 20))
        #expect(computations.value == 1)
        #expect(memo.statistics.entries == 1)
    }

    @Test func aSharedErrorIsNotStored() async {
        let memo = ReplyMemo()
        let key = ReplyMemo.Key(copying: RESPRequest(["SEARCH", "x"]))
        #expect(await memo.sharedReply(for: key) { .error("ERR upstream timed out") } == .error("ERR upstream timed out"))
        #expect(await memo.sharedReply(for: key) { .bulk("[]") } == .bulk("[]"), "the next request computes afresh")
    }
}

/// Counts calls from any task.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
