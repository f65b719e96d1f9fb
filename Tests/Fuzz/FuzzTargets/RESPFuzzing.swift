import Foundation
import GRDB
import NIOCore
import PlacesApp
import PlacesServer
import RESP
import SpotStore

/// The server's input path without a socket: bytes → ``RESPRequestParser`` → ``CommandTable`` → `SPOT.*`.
enum RESPFuzzing {
    /// Small limits, so the fuzzer reaches every "too big" branch with short inputs.
    static let smallLimits = RESPLimits(maxInlineLength: 64, maxBulkLength: 48, maxPayloadBulkLength: 96,
                                        maxArguments: 12, maxArgumentsBeforeAuth: 3, maxBulkLengthBeforeAuth: 16)

    /// What a stream parsed to: its requests, then the error that ended it, if any.
    struct Outcome: Equatable {
        var requests: [RESPRequest] = []
        var error: RESPProtocolError?
    }

    /// Feeds `bytes` in chunks of `chunkSize` (a socket may cut anywhere), collecting every request.
    static func parse(_ bytes: Data, chunkSize: Int, limits: RESPLimits, authenticated: Bool) -> Outcome {
        var parser = RESPRequestParser(limits: limits, isAuthenticated: authenticated)
        var buffer = ByteBuffer()
        var outcome = Outcome()
        var offset = bytes.startIndex
        repeat {
            let end = bytes.index(offset, offsetBy: chunkSize, limitedBy: bytes.endIndex) ?? bytes.endIndex
            buffer.writeBytes(bytes[offset..<end])
            offset = end
            do {
                while let request = try parser.next(&buffer) { outcome.requests.append(request) }
            } catch {
                outcome.error = error
                return outcome
            }
            buffer.discardReadBytes()
        } while offset < bytes.endIndex
        return outcome
    }

    /// First byte: bit 0 = before AUTH, bit 1 = default limits, the rest = chunk size − 1.
    static func parser(_ data: Data) {
        guard let control = data.first else { return }
        let stream = data.dropFirst()
        let limits = control & 2 == 0 ? smallLimits : RESPLimits()
        let authenticated = control & 1 == 0
        let whole = parse(stream, chunkSize: max(stream.count, 1), limits: limits, authenticated: authenticated)
        let chunked = parse(stream, chunkSize: Int(control >> 2) + 1, limits: limits, authenticated: authenticated)
        FuzzTarget.check(whole == chunked, "a stream fed in chunks parsed differently from the same stream fed whole")
        locatedFrameIsWhatTheParserReads(stream)
        for request in whole.requests {
            FuzzTarget.check(request.arguments.count <= (authenticated ? limits.maxArguments : limits.maxArgumentsBeforeAuth),
                             "a request has more arguments than the limit")
            if !request.isInline {
                FuzzTarget.check(request.arguments.allSatisfy { $0.readableBytes <= longestArgument(of: request, limits, authenticated) },
                                 "an argument is longer than the limit")
            }
        }
    }

    /// The longest argument `request` may carry, worked out here from the limits' documentation rather than asked of
    /// the parser: the payload commands (`PING`, `ECHO`, any case) take ``RESPLimits/maxPayloadBulkLength`` after their
    /// name, every other argument ``RESPLimits/maxBulkLength``; before AUTH nothing exceeds `maxBulkLengthBeforeAuth`.
    static func longestArgument(of request: RESPRequest, _ limits: RESPLimits, _ authenticated: Bool) -> Int {
        let asciiUpperCase = { (byte: UInt8) in (0x61...0x7A).contains(byte) ? byte - 0x20 : byte }
        let name = request.arguments.first.map { String(decoding: $0.readableBytesView.map(asciiUpperCase), as: UTF8.self) }
        let isPayloadCommand = request.arguments.count > 1 && name.map(limits.payloadCommands.contains) == true
        let cap = isPayloadCommand ? max(limits.maxBulkLength, limits.maxPayloadBulkLength) : limits.maxBulkLength
        return authenticated ? cap : min(cap, limits.maxBulkLengthBeforeAuth)
    }

    /// The server answers a memoised request by its bytes, located by ``RESPFrame`` without parsing: those bytes
    /// must be exactly the request the parser reads from them (default limits), written back in multibulk form,
    /// the command name where the frame says, or a memo key built from a parsed request would not find them.
    static func locatedFrameIsWhatTheParserReads(_ stream: Data) {
        var received = ByteBuffer()
        received.writeBytes(stream)
        guard let frame = RESPFrame.atFront(of: received) else { return }
        var parser = RESPRequestParser()
        var rest = received
        guard let request = try? parser.next(&rest) else {
            FuzzTarget.check(false, "a located request does not parse")
            return
        }
        FuzzTarget.check(received.readableBytes - rest.readableBytes == frame.length,
                         "the parser read another length than the located request's")
        FuzzTarget.check(RESPValue.array(request.arguments.map(RESPValue.bulkString)).encoded
                            == received.getSlice(at: received.readerIndex, length: frame.length),
                         "a located request's bytes are not its arguments written back")
        FuzzTarget.check(request.arguments.first
                            == received.getSlice(at: received.readerIndex + frame.command.start, length: frame.command.length),
                         "the located command name is not the first argument")
    }

    /// Every request of the stream through the command table, and spot commands through their handlers
    /// on a scratch database, as the server would run them.
    static func commands(_ data: Data) {
        let outcome = parse(data, chunkSize: max(data.count, 1), limits: RESPLimits(), authenticated: true)
        for request in outcome.requests {
            let command: ServerCommand
            do { command = try SpotSandbox.commands.parse(request) } catch {
                FuzzTarget.check(error.message.hasPrefix("ERR "), "a syntax error reply does not start with ERR")
                continue
            }
            guard case .backend(let call) = command, call.commandName.hasPrefix("SPOT.") else { continue }
            SpotSandbox.runBlocking(call)
        }
    }
}

/// A spots database for the `command` target, on the scratch directory, with SQLite's fsync off
/// (durability is not under test; speed of the loop is). The other parts of the application are absent.
enum SpotSandbox {
    static let commands: CommandTable = {
        do {
            let store = try SQLiteSpotStore(path: ScratchFile.directory.appendingPathComponent("spots.sqlite"))
            try store.database.barrierWriteWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = OFF") }
            var application = ServerApplication.unopened("not part of the fuzz harness")
            application.spots = .success(SpotsService(store: store, backupDirectory: ScratchFile.directory))
            return .places(application)
        } catch {
            fatalError("fuzz harness: cannot open the scratch spots database: \(error)")
        }
    }()

    /// libFuzzer calls a target synchronously on its own thread (never on Swift's cooperative pool), while the
    /// spots layer is async: run one command to completion and wait for it, so inputs never overlap. Errors are expected.
    static func runBlocking(_ call: BackendCall) {
        let done = DispatchSemaphore(value: 0)
        Task {
            _ = try? await call.run()
            done.signal()
        }
        done.wait()
    }
}
