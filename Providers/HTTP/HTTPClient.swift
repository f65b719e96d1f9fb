import Foundation
import Logging
import PlacesCore

/// How one provider's client behaves. Built by the app's provider factory from `[providers.<name>]`.
public struct HTTPClientConfiguration: Sendable {
    /// `google`, `yelp`, …: the first word of every error message.
    public var provider: String
    /// Scheme + host (+ optional path prefix); providers append their versioned paths (`/v1/places:searchText`).
    public var baseURL: URL
    /// Seconds for one attempt.
    public var timeout: Double
    /// The whole `User-Agent` value; see ``UserAgent``.
    public var userAgent: String
    public var retry: RetryPolicy
    /// Strings that must never appear in an error or a log line (the API key).
    public var secrets: [String]
    /// What to do when the key is rejected: "check GOOGLE_PLACES_API_KEY (or api_key in [providers.google])".
    public var credentialHint: String
    /// The longest reply body read; a longer one is refused unread (`max_body_mb` in `[providers.<name>]`).
    public var maxBodyBytes: Int

    /// 8 MiB: far above any real page of places (a Google page of 20 with every field is ~100 KiB).
    public static let defaultMaxBodyBytes = 8 << 20

    public init(provider: String, baseURL: URL, timeout: Double = 10, userAgent: String,
                retry: RetryPolicy = RetryPolicy(), secrets: [String] = [], credentialHint: String? = nil,
                maxBodyBytes: Int = HTTPClientConfiguration.defaultMaxBodyBytes) {
        self.provider = provider
        self.baseURL = baseURL
        self.timeout = timeout
        self.userAgent = userAgent
        self.retry = retry
        self.secrets = secrets.filter { !$0.isEmpty }
        self.credentialHint = credentialHint ?? "check the API key for \(provider) in config.toml or its environment variable"
        self.maxBodyBytes = max(1, maxBodyBytes)
    }
}

/// Builds `User-Agent` values that name the app and its version, plus a contact where a provider's
/// policy asks for one: `places/0.1.0`, `places/0.1.0 (ops@example.com)`.
public enum UserAgent {
    public static func make(product: String, contact: String? = nil) -> String {
        guard let contact = contact?.trimmingCharacters(in: .whitespaces), !contact.isEmpty else { return product }
        return "\(product) (\(contact))"
    }
}

/// What a provider's error body said: its status word (`PERMISSION_DENIED`, `TOKEN_INVALID`) and
/// message, and when the provider's own vocabulary decides the kind (Yelp's `ACCESS_LIMIT_REACHED`
/// is a daily quota, not a per-second throttle).
public struct UpstreamErrorDetail: Sendable, Hashable {
    public var code: String?
    public var message: String?
    public var kind: ProviderError.Kind?

    public init(code: String? = nil, message: String? = nil, kind: ProviderError.Kind? = nil) {
        self.code = code
        self.message = message
        self.kind = kind
    }
}

/// The HTTP layer every network provider shares: timeout, pacing, retries with backoff, circuit
/// breaking, a real `User-Agent`, and one-line typed errors that never contain the key.
///
/// ```swift
/// let client = HTTPClient(configuration: .init(provider: "yelp", baseURL: url, userAgent: UserAgent.make(product: "places/0.1.0")),
///                         limiter: RateLimiter(requestsPerSecond: 5))
/// let response = try await client.send(HTTPRequest(method: .get, url: url))
/// let reply = try client.decode(SearchReply.self, from: response)
/// ```
public struct HTTPClient: Sendable {
    public let configuration: HTTPClientConfiguration
    public let limiter: RateLimiter?
    public let breaker: CircuitBreaker
    public let clock: any ProviderClock
    public let transport: any HTTPTransport
    /// Reads the provider's error body; the default knows Google's and Yelp's `{"error":{…}}` and `{"message":…}`.
    public let errorReader: @Sendable (HTTPResponse) -> UpstreamErrorDetail
    private let logger: Logger

    public init(configuration: HTTPClientConfiguration, limiter: RateLimiter? = nil, breaker: CircuitBreaker? = nil,
                clock: any ProviderClock = SystemClock(), transport: any HTTPTransport = URLSessionTransport(),
                errorReader: @escaping @Sendable (HTTPResponse) -> UpstreamErrorDetail = HTTPClient.genericErrorDetail,
                logger: Logger = Logger(label: "places.http")) {
        self.configuration = configuration
        self.limiter = limiter
        self.breaker = breaker ?? CircuitBreaker(clock: clock)
        self.clock = clock
        self.transport = transport
        self.errorReader = errorReader
        self.logger = logger
    }

    public var baseURL: URL { configuration.baseURL }
    private var provider: String { configuration.provider }

    /// Sends `request`, retrying 429 and 5xx. Returns 2xx replies and 404 (a real "no such place");
    /// everything else becomes a ``ProviderError``.
    public func send(_ request: HTTPRequest) async throws(ProviderError) -> HTTPResponse {
        if let wait = await breaker.admit() {
            throw error(.circuitOpen, "paused after \(breaker.failureThreshold) failures in a row; "
                        + "next try in \(Int(wait.rounded(.up))) s (the provider kept failing: check its status or base_url)")
        }
        var prepared = request
        prepared.headers["User-Agent"] = configuration.userAgent
        if prepared.headers["Accept"] == nil { prepared.headers["Accept"] = "application/json" }

        var attempt = 1
        while true {
            do {
                try await limiter?.acquire()
            } catch {
                throw self.error(.transport, "cancelled while waiting for the rate limiter")
            }
            let started = clock.now()
            let response: HTTPResponse
            do {
                response = try await transport.send(prepared, timeout: configuration.timeout, maxBodyBytes: configuration.maxBodyBytes)
            } catch {
                await breaker.recordFailure()
                throw transportError(error, request: prepared)
            }
            logger.debug("\(provider) \(prepared.method.rawValue) \(scrub(prepared.url.path)) → \(response.status) in \(Int((clock.now() - started) * 1000)) ms")

            if (300..<400).contains(response.status) {
                // Never followed (see HTTPTransport): the key would go wherever Location points.
                await breaker.recordSuccess()
                throw redirectError(response, request: prepared)
            }
            if response.isSuccess || response.status == 404 {
                await breaker.recordSuccess()
                return response
            }
            let failure = classify(response, attempts: attempt)
            let retryable = failure.kind == .server || failure.kind == .rateLimited
            guard retryable else {
                // The provider answered and refused: it is up, so this does not count towards the breaker.
                await breaker.recordSuccess()
                throw failure
            }
            if attempt < configuration.retry.maxAttempts {
                let delay: Double
                if let retryAfter = failure.retryAfter {
                    guard retryAfter <= configuration.retry.maxRetryAfter else {
                        await breaker.recordFailure()
                        throw failure
                    }
                    delay = retryAfter
                } else {
                    delay = configuration.retry.backoff(beforeRetry: attempt)
                }
                do { try await clock.sleep(seconds: delay) } catch {
                    throw self.error(.transport, "cancelled while waiting to retry")
                }
                attempt += 1
                continue
            }
            await breaker.recordFailure()
            throw failure
        }
    }

    /// Decodes a JSON reply, telling "not JSON at all" apart from "JSON of the wrong shape".
    public func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse) throws(ProviderError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: response.body)
        } catch {
            // Only on failure is the body parsed a second time, to tell "not JSON" from "wrong shape".
            guard (try? JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed])) != nil else {
                let contentType = response.header("content-type").map { ", \($0)" } ?? ""
                throw self.error(.malformedResponse, "reply is not JSON (\(response.status)\(contentType): \(response.bodySnippet(limit: 60))); "
                                 + "check base_url points at the provider's API", status: response.status)
            }
            let detail = (error as? DecodingError).map(Self.describe) ?? "\(error)"
            throw self.error(.malformedResponse, "reply has an unexpected shape (\(detail)); "
                             + "the API may have changed: try again later or report it", status: response.status)
        }
    }

    /// A ``ProviderError`` for this provider with the message scrubbed of every secret.
    public func error(_ kind: ProviderError.Kind, _ message: String, status: Int? = nil,
                      retryAfter: Double? = nil) -> ProviderError {
        ProviderError(provider: provider, kind: kind, message: scrub(message), httpStatus: status, retryAfter: retryAfter)
    }

    public func scrub(_ text: String) -> String { Redaction.scrub(text, secrets: configuration.secrets) }

    // MARK: Classification

    private func transportError(_ failure: TransportFailure, request: HTTPRequest) -> ProviderError {
        let host = request.url.host.map { "\($0)\(request.url.port.map { ":\($0)" } ?? "")" } ?? request.url.absoluteString
        switch failure {
        case .timedOut:
            return error(.timeout, "no answer within \(Self.seconds(configuration.timeout)) s from \(host); "
                         + "try again, or raise timeout_s in [providers.\(provider)]")
        case .connection(let reason):
            return error(.transport, "could not reach \(host) (\(reason)); check the network and base_url in [providers.\(provider)]")
        case .cutMidBody(let reason):
            return error(.transport, "the connection to \(host) was cut while reading the reply (\(reason)); try again")
        case .bodyTooLarge(let limit):
            return error(.malformedResponse, "reply from \(host) is larger than \(Self.size(limit)); "
                         + "check base_url, or raise max_body_mb in [providers.\(provider)]")
        case .cancelled:
            return error(.transport, "request to \(host) was cancelled")
        case .libcurlMissing(let why):
            return error(.transport, why)
        }
    }

    /// A 3xx: names where it pointed (scheme, host and port only; a path or query could echo the key).
    private func redirectError(_ response: HTTPResponse, request: HTTPRequest) -> ProviderError {
        let target = response.header("location").flatMap { URL(string: $0, relativeTo: request.url)?.absoluteURL }
        let place = target.map { url in
            let port = url.port.map { ":\($0)" } ?? ""
            return " to \(url.scheme ?? "?")://\(url.host ?? "?")\(port)"
        } ?? ""
        return error(.redirected, "answered \(response.status), a redirect\(place), which places does not follow "
                     + "so the API key never goes to another address; set base_url in [providers.\(provider)] to the final address",
                     status: response.status)
    }

    private func classify(_ response: HTTPResponse, attempts: Int) -> ProviderError {
        let detail = errorReader(response)
        let status = response.status
        let label = ([String(status)] + [detail.code].compactMap { $0 }).joined(separator: " ")
        let retryAfter = RetryPolicy.parseRetryAfter(response.header("retry-after"))
        let tries = attempts > 1 ? " after \(attempts) attempts" : ""

        // Yelp says when a daily cap (not a per-second throttle) is used up.
        let dailyCapReached = status == 429 && response.header("ratelimit-remaining") == "0"
        let kind: ProviderError.Kind = detail.kind ?? (dailyCapReached ? .quotaExhausted : Self.kind(forStatus: status))
        switch kind {
        case .authentication:
            let what = configuration.secrets.isEmpty ? "access refused" : "API key rejected"
            return error(kind, "\(what) (\(label)); \(configuration.credentialHint)", status: status)
        case .quotaExhausted:
            let reset = response.header("ratelimit-resettime").map { ", resets at \($0)" } ?? ""
            return error(kind, "quota exhausted (\(label)\(reset)); wait for it to reset or raise it in the provider's console",
                         status: status, retryAfter: retryAfter)
        case .rateLimited:
            let wait = retryAfter.map { ", asked to wait \(Self.seconds($0)) s" } ?? ""
            return error(kind, "rate limited (\(label)\(wait))\(tries); slow down or lower rate_limit_per_s in [providers.\(provider)]",
                         status: status, retryAfter: retryAfter)
        case .server:
            return error(kind, "server error (\(label))\(tries); try again later", status: status, retryAfter: retryAfter)
        case .badRequest:
            let said = detail.message.map { ": \($0)" } ?? ""
            return error(kind, "request rejected (\(label)\(said))", status: status)
        default:
            let said = detail.message.map { ": \($0)" } ?? ""
            return error(kind, "unexpected reply (\(label)\(said))", status: status)
        }
    }

    static func kind(forStatus status: Int) -> ProviderError.Kind {
        switch status {
        case 401, 403: .authentication
        case 402: .quotaExhausted
        case 429: .rateLimited
        case 500...599: .server
        default: .badRequest
        }
    }

    /// Reads `{"error":{"status":…,"message":…}}` (Google), `{"error":{"code":…,"description":…}}` (Yelp)
    /// and `{"message":…}` (Foursquare). Bodies that are not JSON (an HTML 403 page) give no detail.
    public static func genericErrorDetail(_ response: HTTPResponse) -> UpstreamErrorDetail {
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] else {
            return UpstreamErrorDetail()
        }
        if let error = object["error"] as? [String: Any] {
            let code = (error["status"] as? String) ?? (error["code"] as? String)
            let message = (error["message"] as? String) ?? (error["description"] as? String)
            return UpstreamErrorDetail(code: code, message: message.map(oneLine))
        }
        return UpstreamErrorDetail(message: (object["message"] as? String).map(oneLine))
    }

    /// `8 MiB`, `512 KiB`, `300 bytes`.
    static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    static func oneLine(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > 160 ? String(flat.prefix(160)) + "…" : flat
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() || !value.isFinite ? value.compactText : String(format: "%.1f", value)
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "top level" : text)
        }
        switch error {
        case .keyNotFound(let key, let context):
            let at = path(context)
            return "\(at == "top level" ? "" : at + ".")\(key.stringValue) missing"
        case .typeMismatch(let type, let context): return "\(path(context)) is not \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)) is null, expected \(type)"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

extension HTTPClient {
    /// A reply's candidates with their numbers checked (``PlacesCore/Place/withCheckedNumbers()``); those
    /// off the Earth are dropped. When every candidate was junk the reply is malformed, not "no such place",
    /// so no negative is ever cached from it.
    public func checked(_ places: [Place]) throws(ProviderError) -> [Place] {
        let kept = places.compactMap { $0.withCheckedNumbers() }
        if kept.isEmpty && !places.isEmpty {
            let example = places[0].coordinate
            throw error(.malformedResponse, "every place in the reply has an impossible position (such as \(example.latitude.compactText),"
                        + "\(example.longitude.compactText)); the API may have changed: try again later or report it")
        }
        return kept
    }

    /// One place (a details answer) with its numbers checked; an impossible position makes the reply malformed.
    public func checked(_ place: Place) throws(ProviderError) -> Place {
        try checked([place])[0]
    }
}
