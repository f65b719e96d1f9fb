import Foundation
import Logging
import NIOCore
import PlacesPipeline
import RESP
import Synchronization
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

    /// What a connection does with received bytes: the request at the front, located without parsing, is looked up
    /// by its bytes, and finds what was stored for the parsed request.
    private func frame(answering received: String, in memo: ReplyMemo, resp3: Bool = false) -> String? {
        let buffer = ByteBuffer(string: received)
        guard let located = RESPFrame.atFront(of: buffer) else { return nil }
        let key = ReplyMemo.Key(borrowing: buffer.getSlice(at: buffer.readerIndex, length: located.length)!,
                                command: located.command)
        return memo.frame(answering: key, resp3: resp3, at: .now()).map { String(buffer: $0.frame) }
    }

    @Test("a received request is found by its bytes, the command name in any case, the arguments exact")
    func aReceivedRequestIsFoundByItsBytes() {
        let memo = ReplyMemo()
        store(memo, ["DETAILS", "osm:node/1"], .bulk("one"))
        store(memo, ["details", "osm:node/2"], .null)
        #expect(frame(answering: "*2\r\n$7\r\nDETAILS\r\n$10\r\nosm:node/1\r\n", in: memo) == "$3\r\none\r\n")
        #expect(frame(answering: "*2\r\n$7\r\ndetAILS\r\n$10\r\nosm:node/1\r\nPING\r\n", in: memo) == "$3\r\none\r\n")
        #expect(frame(answering: "*2\r\n$7\r\nDETAILS\r\n$10\r\nOSM:NODE/1\r\n", in: memo) == nil)
        #expect(frame(answering: "*2\r\n$7\r\nDETAILS\r\n$10\r\nosm:node/2\r\n", in: memo) == "$-1\r\n")
        #expect(frame(answering: "*2\r\n$7\r\nDETAILS\r\n$10\r\nosm:node/2\r\n", in: memo, resp3: true) == "_\r\n")
        #expect(frame(answering: "*3\r\n$7\r\nDETAILS\r\n$10\r\nosm:node/1\r\n$0\r\n\r\n", in: memo) == nil)
    }

    @Test func aStoredKeyDoesNotPinTheReceiveBuffer() {
        var received = ByteBuffer(string: String(repeating: "x", count: 100_000) + "DETAILSosm:node/1")
        let command = received.getSlice(at: 100_000, length: 7)!
        let id = received.getSlice(at: 100_007, length: 10)!
        let key = ReplyMemo.Key(copying: RESPRequest(arguments: [command, id]))
        received.clear()
        #expect(key.frame.capacity < 1024)
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
        #expect(memo.statistics.bytes == "*2\r\n$7\r\nDETAILS\r\n$1\r\na\r\n".utf8.count + 5, "the request's bytes and the reply's")
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

    // MARK: LOOKUP replies kept under a cache hit's lease

    private func storeLeased(_ memo: ReplyMemo, _ stamp: Stamp, lifetime: TimeInterval = 3_600, _ reply: RESPValue = .bulk("hit")) {
        memo.store(reply, for: ReplyMemo.Key(copying: RESPRequest(["LOOKUP", "Maya Bar"])), lease: stamp.lease(lifetime: lifetime))
    }

    private func lookup(_ memo: ReplyMemo) -> RESPValue? { memo.reply(to: RESPRequest(["LOOKUP", "Maya Bar"])) }

    @Test("a leased reply is repeated while the cache's stamp is the one the hit was read under, and never after it changes")
    func leasedReplyHoldsWhileTheStampDoes() {
        let memo = ReplyMemo()
        let stamp = Stamp(7)
        storeLeased(memo, stamp)
        #expect(lookup(memo) == .bulk("hit"))
        #expect(lookup(memo) == .bulk("hit"))
        #expect(stamp.reads == 2, "the stamp is read again for every repeat")
        #expect(stamp.repeats == 2, "each repeat counts as the lookup-cache hit it stands for")
        stamp.set(8)
        #expect(lookup(memo) == nil, "a write anywhere (purge, overwrite, eviction) sends the next LOOKUP to the store")
        stamp.set(nil)
        #expect(lookup(memo) == nil, "an unknown stamp (listener down) is not the hit's")
        #expect(stamp.repeats == 2)
        #expect(memo.statistics.hits == 2)
    }

    @Test("the recomputed reply replaces the stale one under its new lease")
    func recomputedReplyReplacesTheStaleOne() {
        let memo = ReplyMemo()
        let stamp = Stamp(1)
        storeLeased(memo, stamp, .bulk("old"))
        stamp.set(2)
        #expect(lookup(memo) == nil)
        storeLeased(memo, stamp, .bulk("new"))
        #expect(lookup(memo) == .bulk("new"))
        #expect(memo.statistics.entries == 1)
    }

    @Test("a leased reply lives no longer than the lease (row expiry, touch interval), nor than the memo's age")
    func leasedReplyExpires() async throws {
        let shortLease = ReplyMemo(timeToLive: .seconds(3_600))
        storeLeased(shortLease, Stamp(1), lifetime: 0.02)
        #expect(lookup(shortLease) == .bulk("hit"))
        try await Task.sleep(for: .milliseconds(40))
        #expect(lookup(shortLease) == nil, "past the lease's lifetime")

        let shortAge = ReplyMemo(timeToLive: .milliseconds(20))
        storeLeased(shortAge, Stamp(1), lifetime: 3_600)
        #expect(lookup(shortAge) == .bulk("hit"))
        try await Task.sleep(for: .milliseconds(40))
        #expect(lookup(shortAge) == nil, "past the memo's age, however long the lease")
    }

    @Test("a lease already over, or a memo turned off, keeps nothing")
    func expiredLeaseKeepsNothing() {
        let memo = ReplyMemo()
        storeLeased(memo, Stamp(1), lifetime: 0)
        storeLeased(memo, Stamp(1), lifetime: -5)
        #expect(memo.statistics.entries == 0)
        let off = ReplyMemo(timeToLive: .zero)
        storeLeased(off, Stamp(1))
        #expect(off.statistics.entries == 0)
    }

    @Test("a leased command's reply is kept only when it came with a lease, and its misses are not shared flights")
    func executorKeepsOnlyLeasedReplies() async {
        let stamp = Stamp(3)
        let calls = Counter()
        let table = CommandTable([
            .leased("LOOKUP", arity: 1...1, syntax: "LOOKUP name", summary: "fake lookup",
                    parse: { arguments throws(CommandSyntaxError) in try arguments.text() }) { name in
                calls.increment()
                // "hit" answers come from a cache hit (leased); anything else was a miss upstream.
                return BackendAnswer(data: Data("\"\(name)\"".utf8), lease: name == "hit" ? stamp.lease(lifetime: 60) : nil)
            },
        ])
        let memo = ReplyMemo()
        let executor = CommandExecutor(commands: table, metrics: ServerMetrics(), memo: memo,
                                       configuration: ServerConfiguration(), logger: Logger(label: "test"))
        for name in ["miss", "hit"] {
            let request = RESPRequest(["LOOKUP", name])
            guard case .backend(let call)? = try? table.parse(request) else {
                Issue.record("LOOKUP did not parse")
                return
            }
            #expect(call.memoisation == .whileLeased)
            #expect(await executor.reply(call, memoKey: ReplyMemo.Key(copying: request)) == .bulk("\"\(name)\""))
        }
        func memorised(_ name: String) -> ByteBuffer? {
            executor.memorisedFrame(answering: ReplyMemo.Key(copying: RESPRequest(["LOOKUP", name])), resp3: false)
        }
        #expect(memorised("miss") == nil, "a miss is never repeated")
        #expect(memorised("hit") == ByteBuffer(string: "$5\r\n\"hit\"\r\n"))
        #expect(calls.value == 2)
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

/// A cache's change stamp a test sets, and the leases it gives out.
final class Stamp: Sendable {
    private let state: Mutex<(stamp: UInt64?, reads: Int, repeats: Int)>

    init(_ stamp: UInt64?) { state = Mutex((stamp, 0, 0)) }

    func set(_ stamp: UInt64?) { state.withLock { $0.stamp = stamp } }
    var reads: Int { state.withLock { $0.reads } }
    var repeats: Int { state.withLock { $0.repeats } }

    /// A lease on a hit read under the stamp as it is now.
    func lease(lifetime: TimeInterval) -> CacheHitLease {
        CacheHitLease(stamp: state.withLock { $0.stamp! }, lifetime: lifetime, currentStamp: {
            self.state.withLock { state in
                state.reads += 1
                return state.stamp
            }
        }, repeated: { self.state.withLock { $0.repeats += 1 } })
    }
}
