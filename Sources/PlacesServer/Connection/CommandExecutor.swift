import Foundation
import Logging
import NIOCore
import PlacesCore
import PlacesPipeline
import RESP

/// Turns the application's answers and the server's counters into replies. It holds no connection
/// state, so one executor serves every connection and is tested with a fake command table.
public struct CommandExecutor: Sendable {
    public let commands: CommandTable
    public let metrics: ServerMetrics
    public let memo: ReplyMemo
    public let configuration: ServerConfiguration
    public let logger: Logger

    public init(commands: CommandTable, metrics: ServerMetrics, memo: ReplyMemo,
                configuration: ServerConfiguration, logger: Logger) {
        self.commands = commands
        self.metrics = metrics
        self.memo = memo
        self.configuration = configuration
        self.logger = logger
    }

    /// The reply to an identical recent request as it goes on the wire, answered on the event loop before the
    /// request is even parsed; `nil` sends it down the normal path. Ask only for authenticated connections.
    func memorisedFrame(answering request: ReplyMemo.Key, resp3: Bool, at now: NIODeadline = .now()) -> ByteBuffer? {
        guard let (frame, isNull) = memo.frame(answering: request, resp3: resp3, at: now) else { return nil }
        metrics.count(.answeredFromMemory)
        if isNull { metrics.count(.miss) }
        return frame
    }

    /// Runs a call; failures become `-ERR` replies that say what to do, never a stack or a secret.
    /// - Parameter memoKey: the request as memo key, for memoisable calls: as the call's ``Memoisation`` says,
    ///   identical requests in flight share one backend call and the reply is kept for the next ones
    ///   (``Memoisation/forTimeToLive``), or a reply that came with a lease is kept under it (``Memoisation/whileLeased``).
    public func reply(_ call: BackendCall, memoKey: ReplyMemo.Key? = nil) async -> RESPValue {
        guard let memoKey else { return await run(call).reply }
        switch call.memoisation {
        case .never:
            return await run(call).reply
        case .forTimeToLive:
            return await memo.sharedReply(for: memoKey) { await run(call).reply }
        case .whileLeased:
            let (reply, lease) = await run(call)
            if let lease { memo.store(reply, for: memoKey, lease: lease) }
            return reply
        }
    }

    /// `EXEC`'s reply: the queued steps run one after another, in order, their replies in one array (an error
    /// is one element, as in Redis; the steps after it still run).
    public func reply(transaction steps: [ConnectionStateMachine.TransactionStep]) async -> RESPValue {
        var replies: [RESPValue] = []
        replies.reserveCapacity(steps.count)
        for step in steps {
            switch step {
            case .reply(let value): replies.append(value)
            case .execute(let call): replies.append(await reply(call))
            case .report(let sections, let json): replies.append(await report(sections: sections, json: json))
            }
        }
        return .array(replies)
    }

    /// The reply to a call answered on the calling thread (``BackendCall/Work/now(_:)``), kept in the memo as
    /// ``reply(_:memoKey:)`` keeps it. Identical requests are not looked for here: the connection handler shares one
    /// answer among those its event loop received together.
    func replyNow(_ call: BackendCall, answering answer: () throws -> BackendAnswer, memoKey: ReplyMemo.Key?) -> RESPValue {
        metrics.count(.backendCall)
        let (reply, lease): (RESPValue, CacheHitLease?)
        do {
            (reply, lease) = answered(try answer())
        } catch {
            (reply, lease) = (failed(call, error), nil)
        }
        if let memoKey {
            switch call.memoisation {
            case .never: break
            case .forTimeToLive: memo.store(reply, for: memoKey)
            case .whileLeased: if let lease { memo.store(reply, for: memoKey, lease: lease) }
            }
        }
        return reply
    }

    /// The call's reply, and the lease it may be repeated under (a failure has none).
    private func run(_ call: BackendCall) async -> (reply: RESPValue, lease: CacheHitLease?) {
        metrics.count(.backendCall)
        do {
            return answered(try await call.run())
        } catch {
            return (failed(call, error), nil)
        }
    }

    private func answered(_ answer: BackendAnswer) -> (reply: RESPValue, lease: CacheHitLease?) {
        guard let data = answer.data else {
            metrics.count(.miss)
            return (.null, answer.lease)
        }
        return (.bulk(data), answer.lease)
    }

    /// A failed call's `-ERR` reply: what to do, never a stack or a secret.
    private func failed(_ call: BackendCall, _ error: any Error) -> RESPValue {
        do {
            throw error
        } catch let error as ServerBackendError {
            switch error {
            case .notOpened(let reason):
                metrics.countError(.storageUnavailable)
                return .error("ERR \(call.commandName) cannot run: \(reason); fix that and restart the server")
            case .failed(let reason):
                metrics.countError(.internal)
                // The operator sees it too: an outage shows in the log, not only in one client's reply.
                logger.warning("\(call.commandName) failed", metadata: ["request": "\(call.request)", "reason": "\(reason)"])
                return .error("ERR \(call.commandName) failed: \(reason)")
            case .budgetDenied(let reason):
                metrics.countError(.budget)
                return .error("ERR budget \(reason)")
            case .upstream(let reason):
                metrics.countError(.provider)
                logger.warning("\(call.commandName) failed", metadata: ["request": "\(call.request)", "reason": "\(reason)"])
                return .error("ERR upstream \(reason)")
            case .storageUnavailable(let reason):
                metrics.countError(.storageUnavailable)
                logger.error("\(call.commandName) failed", metadata: ["request": "\(call.request)", "reason": "\(reason)"])
                return .error("ERR storage unavailable: \(reason)")
            }
        } catch let error as InputError {
            metrics.countError(.input)
            return .error("ERR " + error.message)
        } catch let error as StorageUnavailable {
            // Shared state is down: say so; the local index and memoised replies keep answering meanwhile.
            metrics.countError(.storageUnavailable)
            return .error("ERR " + error.description)
        } catch let error as ProviderError {
            metrics.countError(.provider)
            return .error("ERR " + error.description)
        } catch is CancellationError {
            metrics.countError(.internal)
            return .error("ERR the server is shutting down; retry")
        } catch {
            metrics.countError(.internal)
            logger.error("backend call failed", metadata: ["command": "\(call.commandName)", "error": "\(String(reflecting: type(of: error)))"])
            return .error("ERR \(call.commandName) failed inside the server; see the server log")
        }
    }

    /// `INFO` text or `STATS` JSON. Only counters and settings appear: never a key or a password.
    public func report(sections requested: [String], json: Bool) async -> RESPValue {
        let counters = metrics.snapshot
        let uptime = Int(Date().timeIntervalSince(metrics.startedAt))
        let builtIn: [InfoSection] = [
            InfoSection(name: "server", fields: [
                ("places_version", configuration.version),
                ("redis_version", "7.0.0"),
                ("redis_mode", "standalone"),
                ("process_id", String(ProcessInfo.processInfo.processIdentifier)),
                ("tcp_port", String(configuration.port)),
                ("uptime_in_seconds", String(uptime)),
            ]),
            InfoSection(name: "clients", fields: [
                ("connected_clients", String(counters.connectedClients)),
                ("maxclients", String(configuration.maxClients)),
                ("idle_timeout_seconds", String(configuration.idleTimeoutSeconds)),
                ("requirepass", configuration.password == nil ? "no" : "yes"),
                ("request_bytes_in_flight", String(counters.requestBytesInFlight)),
                ("max_request_bytes_in_flight", String(configuration.maxRequestBytesInFlight)),
                ("max_request_bytes", String(configuration.limits.maxRequestLength)),
            ]),
            InfoSection(name: "stats", fields: [
                ("total_connections_received", String(counters.totalConnections)),
                ("rejected_connections", String(counters.rejectedConnections)),
                ("total_commands_processed", String(counters.commandsProcessed)),
                ("total_error_replies", String(counters.errorReplies)),
                ("protocol_errors", String(counters.protocolErrors)),
                ("dropped_http_requests", String(counters.droppedHTTPRequests)),
                ("idle_timeouts", String(counters.idleTimeouts)),
                ("backend_calls", String(counters.backendCalls)),
                ("answered_from_memory", String(counters.answeredFromMemory)),
                ("misses", String(counters.misses)),
                ("requests_refused_for_memory", String(counters.requestsRefusedForMemory)),
            ]),
            // Redis's sections of the same names: requests by command and error replies by kind.
            InfoSection(name: "commandstats", fields: metrics.commands.filter { $0.callCount > 0 }.map {
                ("cmdstat_" + $0.name.lowercased(), "calls=\($0.callCount)")
            }),
            InfoSection(name: "errorstats", fields: ServerMetrics.ErrorKind.allCases.map {
                ("errorstat_" + $0.rawValue, "count=\(metrics.errorCount($0))")
            }),
        ]
        var sections = builtIn + (await commands.infoSections())
        let memo = self.memo.statistics
        let memoFields = [
            ("memo_entries", String(memo.entries)), ("memo_bytes", String(memo.bytes)),
            ("memo_hits", String(memo.hits)), ("memo_misses", String(memo.misses)),
            ("memo_capacity", String(self.memo.capacity)),
        ]
        if let index = sections.firstIndex(where: { $0.name == "cache" }) {
            sections[index].fields += memoFields
        } else {
            sections.append(InfoSection(name: "cache", fields: memoFields))
        }
        if !sections.contains(where: { $0.name == "budget" }) {
            sections.append(InfoSection(name: "budget", fields: [("available", "no")]))
        }
        if json {
            var object: [String: [String: String]] = [:]
            for section in sections { object[section.name] = Dictionary(section.fields, uniquingKeysWith: { $1 }) }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
            return .bulk(data)
        }
        let wanted = Set(requested.filter { !["all", "everything", "default"].contains($0) })
        let shown = wanted.isEmpty ? sections : sections.filter { wanted.contains($0.name) }
        let text = shown.map { section in
            (["# " + section.name.prefix(1).uppercased() + section.name.dropFirst()]
                + section.fields.map { "\($0.0):\($0.1)" }).joined(separator: "\r\n")
        }.joined(separator: "\r\n\r\n")
        return .bulk(text + "\r\n")
    }
}
