import Foundation
import NIOCore
import PlacesCore
import PostgresNIO

/// PostgreSQL answered, but refused a statement (a constraint, a type, a bug): its own message, without the SQL.
public struct PostgresStatementError: Error, Sendable, Hashable, CustomStringConvertible {
    public var sqlState: String?
    public var message: String

    public var description: String { "PostgreSQL refused a statement: \(message)" }
}

enum PostgresErrors {
    /// Turns what postgres-nio, the pool and NIO throw into the two errors the stores report.
    static func classify(_ error: any Error, endpoint: String) -> any Error {
        switch error {
        case let transaction as PostgresTransactionError:
            // The closure's own error (an InputError from a store rule) is what the caller should see.
            if let inner = transaction.closureError { return classify(inner, endpoint: endpoint) }
            if let inner = transaction.beginError ?? transaction.commitError ?? transaction.rollbackError {
                return classify(inner, endpoint: endpoint)
            }
            return StorageUnavailable(endpoint: endpoint, reason: "the transaction failed")
        case let psql as PSQLError:
            if psql.code == .server, let info = psql.serverInfo {
                let state = info[.sqlState]
                // Class 57 (operator intervention: admin shutdown, crash shutdown, cannot connect now) and
                // class 08 (connection exception) mean the server is going away, not that the statement is wrong;
                // class 28 (a wrong role or password) and 3D000 (no such database) that the URL cannot connect.
                if let state, state.hasPrefix("57") || state.hasPrefix("08") || state.hasPrefix("28") || state == "3D000" {
                    return StorageUnavailable(endpoint: endpoint, reason: info[.message] ?? "the server is shutting down")
                }
                return PostgresStatementError(sqlState: state, message: info[.message] ?? "error \(state ?? "unknown")")
            }
            return StorageUnavailable(endpoint: endpoint, reason: reason(of: psql))
        case is IOError, is NIOConnectionError, is ChannelError:
            return StorageUnavailable(endpoint: endpoint, reason: plain(error))
        default:
            // The pool's own errors (shut down, circuit breaker tripped) have no public type outside an underscored
            // module; everything else (a store rule's InputError, cancellation) passes through as it is.
            let type = String(reflecting: Swift.type(of: error))
            if type.contains("ConnectionPoolError") { return StorageUnavailable(endpoint: endpoint, reason: plain(error)) }
            return error
        }
    }

    private static func reason(of error: PSQLError) -> String {
        switch error.code {
        case .connectionError: error.underlying.map(plain) ?? "cannot connect"
        case .serverClosedConnection, .uncleanShutdown: "the server closed the connection"
        case .clientClosedConnection, .poolClosed: "the connection pool is closed"
        case .sslUnsupported: "the server does not offer TLS, and sslmode requires it"
        case .failedToAddSSLHandler: "TLS could not be set up"
        case .authMechanismRequiresPassword: "the server wants a password and the URL has none"
        case .unsupportedAuthMechanism: "the server asks for an authentication method places does not support"
        case .saslError: "authentication failed"
        default: error.underlying.map(plain) ?? "\(error.code)"
        }
    }

    /// NIO's and the system's errors in words, without Swift type names.
    private static func plain(_ error: any Error) -> String {
        if let io = error as? IOError {
            switch io.errnoCode {
            case ECONNREFUSED: return "connection refused"
            case ECONNRESET: return "connection reset"
            case ETIMEDOUT: return "connection timed out"
            case EHOSTUNREACH, ENETUNREACH: return "host unreachable"
            default: return io.description
            }
        }
        if let connect = error as? NIOConnectionError {
            if let first = connect.connectionErrors.first?.error { return plain(first) }
            if connect.dnsAAAAError != nil || connect.dnsAError != nil { return "cannot resolve \(connect.host)" }
            return "cannot connect"
        }
        if error is ChannelError { return "connection lost" }
        // The pool's own errors (shut down, circuit breaker tripped) have no public type outside an underscored module.
        let text = String(describing: error)
        if text.contains("poolShutdown") { return "the connection pool is closed" }
        if text.contains("CircuitBreaker") { return "no connection could be made" }
        if text.contains("connectTimeout") || text.contains("Timeout") { return "connection timed out" }
        return text
    }
}
