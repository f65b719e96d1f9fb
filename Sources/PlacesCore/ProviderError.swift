import Foundation

/// A provider call that failed. The message names the provider and the cause, says what to do, and
/// never contains a credential: constructors scrub known secrets (see ``redacting(_:)``).
public struct ProviderError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        /// The provider has no such operation.
        case unsupported
        /// Not configured, or configured wrongly (no key, no contact address).
        case misconfigured
        /// The key was rejected (401/403).
        case authentication
        /// A daily or monthly quota is used up, or credits ran out (402).
        case quotaExhausted
        /// Throttled (429) even after retries.
        case rateLimited
        /// No answer within the configured timeout.
        case timeout
        /// 5xx after retries.
        case server
        /// The provider rejected the request as malformed (400).
        case badRequest
        /// The reply was not JSON, or not the documented shape.
        case malformedResponse
        /// Connection refused, reset, DNS failure.
        case transport
        /// Too many recent failures; calls are paused until the cool-down ends.
        case circuitOpen
        /// The provider answered with a redirect (3xx). Never followed: the key would go along.
        case redirected
    }

    public var provider: String
    public var kind: Kind
    public var message: String
    public var httpStatus: Int?
    /// Seconds the provider asked us to wait (`Retry-After`).
    public var retryAfter: TimeInterval?

    public init(provider: String, kind: Kind, message: String, httpStatus: Int? = nil, retryAfter: TimeInterval? = nil) {
        self.provider = provider
        self.kind = kind
        self.message = message
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
    }

    public static func unsupported(_ provider: String, _ operation: ProviderOperation) -> ProviderError {
        ProviderError(provider: provider, kind: .unsupported, message: "\(operation.rawValue) is not supported by this provider")
    }

    /// "google: API key rejected (403 PERMISSION_DENIED)".
    public var description: String { "\(provider): \(message)" }

    /// Whether the provider billed the call anyway. Only answered calls are billed; a refused,
    /// throttled, timed-out or failed call is refunded from the budget.
    public var wasBilled: Bool { kind == .malformedResponse }

    /// Returns a copy with every occurrence of each secret replaced by `[REDACTED]`.
    public func redacting(_ secrets: [String]) -> ProviderError {
        var copy = self
        copy.message = Redaction.scrub(message, secrets: secrets)
        return copy
    }
}

/// Removes secrets from text that is about to be shown or logged.
public enum Redaction {
    public static let placeholder = "[REDACTED]"

    /// RFC 3986 unreserved characters: what a URL-encoder leaves as is.
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    public static func scrub(_ text: String, secrets: [String]) -> String {
        var result = text
        for secret in secrets where secret.count >= 4 {
            result = result.replacingOccurrences(of: secret, with: placeholder)
            // Upstreams echo keys back URL-encoded, in either case of hex digits.
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: unreserved), encoded != secret {
                result = result.replacingOccurrences(of: encoded, with: placeholder, options: .caseInsensitive)
            }
        }
        return result
    }
}
