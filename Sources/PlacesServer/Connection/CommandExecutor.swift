import Foundation
import Logging
import PlacesCore

/// Turns backend answers and server counters into replies. It holds no connection state, so one
/// executor serves every connection and is tested with a fake backend.
public struct CommandExecutor: Sendable {
    public let backend: any ServerBackend
    public let metrics: ServerMetrics
    public let configuration: ServerConfiguration
    public let logger: Logger

    public init(backend: any ServerBackend, metrics: ServerMetrics, configuration: ServerConfiguration, logger: Logger) {
        self.backend = backend
        self.metrics = metrics
        self.configuration = configuration
        self.logger = logger
    }

    /// The reply when the backend already has it in memory; `nil` sends the call down the async path.
    public func immediateReply(_ call: BackendCall) -> RESPValue? {
        switch backend.cachedAnswer(for: call) {
        case .found(let data)?:
            metrics.record { $0.answeredFromMemory += 1 }
            return .bulk(data)
        case .miss?:
            metrics.record { $0.answeredFromMemory += 1; $0.misses += 1 }
            return .null
        case nil:
            return nil
        }
    }

    /// Runs a call; failures become `-ERR` replies that say what to do, never a stack or a secret.
    public func reply(_ call: BackendCall) async -> RESPValue {
        metrics.record { $0.backendCalls += 1 }
        do {
            guard let data = try await call.run(on: backend) else {
                metrics.record { $0.misses += 1 }
                return .null
            }
            return .bulk(data)
        } catch let error as ServerBackendError {
            switch error {
            case .unavailable(let command): return .error("ERR \(command) is not available in this build")
            }
        } catch let error as InputError {
            return .error("ERR " + error.message)
        } catch let error as ProviderError {
            return .error("ERR " + error.description)
        } catch is CancellationError {
            return .error("ERR the server is shutting down; retry")
        } catch {
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
            ]),
        ]
        var sections = builtIn + (await backend.infoSections())
        for name in ["cache", "budget"] where !sections.contains(where: { $0.name == name }) {
            sections.append(InfoSection(name: name, fields: [("available", "no")]))
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
