import Foundation
import PlacesCore
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

/// How `places` talks to PostgreSQL: the URL, the pool's size, and how long a request waits for a connection.
public struct PostgresStorageConfiguration: Sendable, Hashable {
    public var url: PostgresURL
    /// Connections for store reads and writes.
    public var poolSize: Int
    /// Connections that hold cross-instance single-flight locks while a provider answers; kept apart from the
    /// store pool so a lock holder can always get a connection to store what it fetched.
    public var lockPoolSize: Int
    /// How long a request may wait for a connection (and its statements run) before it fails with
    /// ``StorageUnavailable``. libpq's `connect_timeout` in the URL sets it; 5 s otherwise.
    public var timeout: Duration

    public init(url: PostgresURL, poolSize: Int = 10, lockPoolSize: Int? = nil, timeout: Duration? = nil) {
        self.url = url
        self.poolSize = max(1, poolSize)
        self.lockPoolSize = max(1, lockPoolSize ?? poolSize * 2)
        self.timeout = timeout ?? url.connectTimeout.map { .milliseconds(Int64($0 * 1000)) } ?? .seconds(5)
    }
}

/// One process's connection to the shared database: a postgres-nio `PostgresClient` pool running in the
/// background, the schema brought up to date once when opened, and every request bounded by the configured
/// timeout so a database that is down gives a clear ``StorageUnavailable`` instead of a hang.
///
/// ```swift
/// let database = try await SharedDatabase.open(PostgresStorageConfiguration(url: url))
/// let ledger = PostgresBudgetLedger(database: database, policy: policy)
/// ```
///
/// The pool reconnects by itself: after PostgreSQL restarts, the next request gets a new connection.
public final class SharedDatabase: Sendable {
    public let configuration: PostgresStorageConfiguration
    let client: PostgresClient
    /// A second pool for the advisory locks of cross-instance single flight (see ``PostgresStorageConfiguration/lockPoolSize``).
    let lockClient: PostgresClient
    /// One connection, opened only when something LISTENs (``listen(on:ready:notified:)``): the server's cache front.
    let listenClient: PostgresClient
    let logger: Logger
    /// The pools' failed attempts to connect, so that a request waiting for a connection learns why at once.
    let connectFailures = ConnectFailures()
    private let runner: Task<Void, Never>
    /// Whether this process has brought the schema up to date yet.
    let schema = SchemaGate()
    /// The pools' TLS setting, for a connection opened outside them (``whyConnectionsFail()``).
    private let tls: (configuration: TLSConfiguration, required: Bool)?

    /// Starts the pools (connecting lazily) without waiting for the server: opening never blocks, so a process whose
    /// database is down still starts and serves what needs no database. The schema is brought up to date by the
    /// first request (or by ``open(_:logger:)``), once per process.
    /// - Throws: ``PostgresURLError`` for a TLS setting that cannot be honoured (an unreadable `sslrootcert`).
    public init(_ configuration: PostgresStorageConfiguration, logger: Logger = SharedDatabase.quietLogger) throws(PostgresURLError) {
        self.configuration = configuration
        self.logger = logger
        let tls = try Self.tls(for: configuration.url)
        let backgroundLogger = connectFailures.watching(logger)
        func makeClient(size: Int) -> PostgresClient {
            var clientConfiguration = PostgresClient.Configuration(
                host: configuration.url.host, port: configuration.url.port, username: configuration.url.user,
                password: configuration.url.password, database: configuration.url.database,
                tls: tls.map { $0.required ? .require($0.configuration) : .prefer($0.configuration) } ?? .disable)
            clientConfiguration.options.maximumConnections = size
            clientConfiguration.options.minimumConnections = 0
            clientConfiguration.options.connectTimeout = configuration.timeout
            clientConfiguration.options.connectionIdleTimeout = .seconds(60)
            return PostgresClient(configuration: clientConfiguration, backgroundLogger: backgroundLogger)
        }
        self.tls = tls
        client = makeClient(size: configuration.poolSize)
        lockClient = makeClient(size: configuration.lockPoolSize)
        listenClient = makeClient(size: 1)
        let (client, lockClient, listenClient) = (client, lockClient, listenClient)
        runner = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                group.addTask { await lockClient.run() }
                group.addTask { await listenClient.run() }
            }
        }
    }

    /// Starts the pool and applies the schema migrations this build knows (once, however many instances start at once).
    /// - Throws: ``StorageUnavailable`` when the server cannot be reached within the timeout; ``PostgresURLError`` for a
    ///   TLS setting that cannot be honoured; ``PostgresStatementError`` when a migration is refused.
    public static func open(_ configuration: PostgresStorageConfiguration,
                            logger: Logger = SharedDatabase.quietLogger) async throws -> SharedDatabase {
        let database = try SharedDatabase(configuration, logger: logger)
        do {
            try await database.schema.ensure(database)
        } catch {
            database.close()
            throw error
        }
        return database
    }

    /// The pool's background log, errors only: a refused connection attempt is reported to the request that needed
    /// it (``StorageUnavailable``), not once more per retry on stderr. Warnings stay out too: the one PostgresNIO gives
    /// in normal use is a request leasing a connection before the pool's `run()` (started by ``runner``) has begun,
    /// which is harmless (the lease waits for the pool) and put a second line under a CLI's one-line error.
    public static var quietLogger: Logger {
        var logger = Logger(label: "places.postgres")
        logger.logLevel = .error
        return logger
    }

    /// Stops the pools; requests still waiting fail with ``StorageUnavailable``.
    public func close() { runner.cancel() }

    deinit { runner.cancel() }

    /// The URL's `sslmode` and `sslrootcert`: `nil` for no TLS, else how to check the server and whether TLS is required.
    private static func tls(for url: PostgresURL) throws(PostgresURLError) -> (configuration: TLSConfiguration, required: Bool)? {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch url.sslMode {
        case .disable:
            return nil
        case .allow, .prefer, .require:
            // libpq does not check the certificate below verify-ca: TLS protects against eavesdropping only.
            tls.certificateVerification = .none
        case .verifyCA:
            tls.certificateVerification = .noHostnameVerification
        case .verifyFull:
            tls.certificateVerification = .fullVerification
        }
        if let root = url.sslRootCertificate, url.sslMode == .verifyCA || url.sslMode == .verifyFull {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(root))
            } catch {
                throw PostgresURLError(url: url.description, reason: "cannot read sslrootcert \(root): \(error)")
            }
        }
        return (tls, !(url.sslMode == .allow || url.sslMode == .prefer))
    }

    /// Opens one connection outside the pools and closes it, to learn why theirs fail: the pools keep only that an
    /// attempt failed. `nil` when it opens (the failure has passed, or was the pools' own).
    func whyConnectionsFail() async -> (any Error)? {
        let url = configuration.url
        let connectionTLS: PostgresConnection.Configuration.TLS
        do {
            connectionTLS = try tls.map { setting in
                let context = try NIOSSLContext(configuration: setting.configuration)
                return setting.required ? .require(context) : .prefer(context)
            } ?? .disable
        } catch {
            return error
        }
        var single = PostgresConnection.Configuration(host: url.host, port: url.port, username: url.user,
                                                      password: url.password, database: url.database, tls: connectionTLS)
        single.options.connectTimeout = TimeAmount(configuration.timeout)
        do {
            let connection = try await PostgresConnection.connect(configuration: single, id: 0, logger: logger)
            try? await connection.close()
            return nil
        } catch {
            return error
        }
    }

    // MARK: Running requests

    /// Runs `body` on a pooled connection; the whole request fails with ``StorageUnavailable`` when it does not
    /// finish within `timeout` (the configured one by default), and every database error is classified.
    func withConnection<T: Sendable>(timeout: Duration? = nil, pool: PoolKind = .stores,
                                     _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await schema.ensure(self)
        return try await withoutSchemaCheck(timeout: timeout, pool: pool, body)
    }

    /// ``withConnection(timeout:pool:_:)`` for the migrations themselves.
    func withoutSchemaCheck<T: Sendable>(timeout: Duration? = nil, pool: PoolKind = .stores,
                                         _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let client = pool == .stores ? client : lockClient
        let connectFailures = connectFailures
        let endpoint = configuration.url.endpoint
        let limit = timeout ?? configuration.timeout
        do {
            let failuresSeen = connectFailures.count
            let lease = LeaseProgress()
            return try await outcome(within: limit, else: { StorageUnavailable(endpoint: endpoint, reason: "no answer within \(limit.seconds) s") },
                                     unless: {
                // A request still waiting for a connection when an attempt fails ends with the reason, if the server
                // refuses connections; one that has a connection is not concerned.
                var seen = failuresSeen
                if connectFailures.lastAttemptFailed, let refusal = await self.whyConnectionsFail() { return refusal }
                while !Task.isCancelled {
                    await connectFailures.failure(after: seen)
                    seen = connectFailures.count
                    if !lease.connected.load(ordering: .relaxed), let refusal = await self.whyConnectionsFail() { return refusal }
                }
                return nil
            }) {
                try await client.withConnection { connection in
                    lease.connected.store(true, ordering: .relaxed)
                    connectFailures.connected()
                    // postgres-nio's queries do not answer cancellation: against a server that stopped answering
                    // (paused, its host gone) a timed-out request would hold its connection for ever. Closing the
                    // connection fails what it runs. The lease goes back only once the pool has seen the close (with
                    // TLS, up to NIOSSL's 5 s wait for the server's goodbye), or the next request would be handed
                    // the closed connection; the caller has its answer by then.
                    do {
                        return try await withTaskCancellationHandler { try await body(connection) } onCancel: {
                            let _: EventLoopFuture<Void> = connection.close()
                        }
                    } catch {
                        // A connection the server dropped (its backend terminated, the server going away) is
                        // closed here too, so that the pool has seen it close before it is given back.
                        let lost = Task.isCancelled || PostgresErrors.classify(error, endpoint: endpoint) is StorageUnavailable
                        if lost {
                            let _: EventLoopFuture<Void> = connection.close()
                            try? await connection.closeFuture.get()
                            self.replaceLostConnection(in: client)
                        }
                        throw error
                    }
                }
            }
        } catch {
            throw PostgresErrors.classify(error, endpoint: endpoint)
        }
    }

    /// Makes the pool open a connection for the requests queued behind one that was just lost. postgres-nio's pool
    /// opens connections when a lease is asked for, or to keep its minimum (0 here, so that a process whose
    /// database is down starts without trying it): a request already queued when the only connection it waited for
    /// closes would wait for its own timeout, though the pool may open another. One more lease, given back at once,
    /// makes it open a connection, which goes to the first request in the queue. It runs on its own, bounded by the
    /// timeout, so the request that lost its connection has its error at once.
    private func replaceLostConnection(in client: PostgresClient) {
        let (limit, endpoint) = (configuration.timeout, configuration.url.endpoint)
        Task {
            _ = try? await outcome(within: limit, else: { StorageUnavailable(endpoint: endpoint, reason: "no connection") }) {
                try await client.withConnection { _ in }
            }
        }
    }

    /// Runs `body` in one transaction (committed when it returns, rolled back when it throws).
    func withTransaction<T: Sendable>(timeout: Duration? = nil, pool: PoolKind = .stores,
                                      _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let logger = logger
        return try await withConnection(timeout: timeout, pool: pool) { connection in
            try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    /// One statement; its rows collected.
    func rows(_ query: PostgresQuery, timeout: Duration? = nil) async throws -> [PostgresRow] {
        let logger = logger
        return try await withConnection(timeout: timeout) { connection in
            try await connection.query(query, logger: logger).collect()
        }
    }

    /// One prepared statement (prepared once per connection by postgres-nio); its rows decoded.
    func execute<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row]
        where Statement.Row: Sendable {
        let logger = logger
        return try await withConnection { connection in
            var rows: [Statement.Row] = []
            for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }

    enum PoolKind: Sendable { case stores, locks }

    /// Whether a request has its connection yet.
    private final class LeaseProgress: Sendable {
        let connected = Atomic(false)
    }

    /// LISTENs on `channel` on a connection of its own until the connection fails or the task is cancelled:
    /// `ready` runs once the LISTEN is in place, `notified` on each notification. Returns (or throws) when the
    /// listening ends; the caller reconnects.
    ///
    /// Every `heartbeat` a `SELECT 1` must come back within `answerWithin` (the configured timeout by default). A connection can die without a
    /// word (a NAT or firewall forgetting an idle one, the server's host gone): no notification would arrive again,
    /// and the listener would go on trusting what its process remembers. When the heartbeat fails the connection is
    /// closed, which ends the listening with an error.
    func listen(on channel: String, heartbeat: Duration = .seconds(30), answerWithin: Duration? = nil,
                ready: @escaping @Sendable () -> Void, notified: @escaping @Sendable () -> Void) async throws {
        try await schema.ensure(self)
        let (logger, limit, endpoint) = (logger, answerWithin ?? configuration.timeout, configuration.url.endpoint)
        try await listenClient.withConnection { connection in
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await connection.listen(on: channel) { notifications in
                            ready()
                            for try await _ in notifications { notified() }
                        }
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: heartbeat)
                            do {
                                try await outcome(within: limit, else: {
                                    StorageUnavailable(endpoint: endpoint, reason: "the listening connection did not answer within \(limit.seconds) s")
                                }) { _ = try await connection.query("SELECT 1", logger: logger).collect() }
                            } catch {
                                // Closing it ends the notifications the other task waits for, so the group can end.
                                let _: EventLoopFuture<Void> = connection.close()
                                throw error
                            }
                        }
                    }
                    defer { group.cancelAll() }
                    // Either ends the listening: the heartbeat only by failing, the listening when its connection does.
                    try await group.next()
                    throw StorageUnavailable(endpoint: endpoint, reason: "the listening connection closed")
                }
            } catch {
                // The lease goes back only once the pool has seen the close (see withoutSchemaCheck).
                try? await connection.close()
                throw error
            }
        }
    }
}

extension Duration {
    /// Whole and fractional seconds, for messages.
    var seconds: String {
        let (whole, attoseconds) = components
        return attoseconds == 0 ? "\(whole)" : String(format: "%.1f", Double(whole) + Double(attoseconds) / 1e18)
    }
}

extension SharedDatabase {
    /// The planner's plan for `sql` with sequential scans ruled out, one line per step: whether an index can answer
    /// a query at all (on a handful of test rows the planner would rightly prefer a scan).
    func explain(_ sql: String) async throws -> String {
        let logger = logger
        return try await withTransaction { connection in
            try await connection.query("SET LOCAL enable_seqscan = off", logger: logger)
            return try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN " + sql), logger: logger).collect()
                .map { try $0.decode(String.self) }.joined(separator: "\n")
        }
    }

    /// The versions recorded in `places_schema_migrations`, in order.
    func appliedMigrations() async throws -> [Int] {
        try await rows("SELECT version FROM places_schema_migrations ORDER BY version").map { try $0.decode(Int.self) }
    }
}

/// Applies the migrations once per process: the first request runs them, requests arriving meanwhile wait for that
/// run, and a failed run (the server was down) is retried by the next request.
final class SchemaGate: Sendable {
    private let state = Mutex<State>(.pending)

    private enum State: Sendable {
        case pending
        case running(Task<Void, any Error>)
        case current
    }

    func ensure(_ database: SharedDatabase) async throws {
        let task: Task<Void, any Error>? = state.withLock { state in
            switch state {
            case .current: return nil
            case .running(let task): return task
            case .pending:
                let task = Task { try await PostgresMigrations.apply(database) }
                state = .running(task)
                return task
            }
        }
        guard let task else { return }
        do {
            try await task.value
            state.withLock { $0 = .current }
        } catch {
            state.withLock { state in
                if case .running = state { state = .pending }
            }
            throw error
        }
    }
}
