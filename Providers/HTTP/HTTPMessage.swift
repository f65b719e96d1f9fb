import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LibcurlOnDemand

/// One request to a provider, before the client adds its `User-Agent` and sends it.
public struct HTTPRequest: Sendable, Hashable {
    public enum Method: String, Sendable { case get = "GET", post = "POST" }

    public var method: Method
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: Method, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// Builds `base` + `path` + query items, leaving out items whose value is `nil`.
    public static func url(base: URL, path: String, query: [(String, String?)] = []) -> URL {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        let basePath = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.percentEncodedPath = basePath + path
        let items = query.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        if !items.isEmpty {
            components.queryItems = items
            // `+` in a query value means a space to most servers; encode it so "A+B Cafe" survives.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        }
        return components.url!
    }
}

/// A provider's answer: status, headers (looked up case-insensitively) and the raw body.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The body as text, cut to `limit` characters, for error messages.
    public func bodySnippet(limit: Int = 120) -> String {
        let text = String(decoding: body.prefix(limit * 4), as: UTF8.self)
            .replacingOccurrences(of: "\n", with: " ")
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}

/// What actually moves bytes. The real one is ``URLSessionTransport``; tests of the client's own
/// logic may pass a closure-backed one.
///
/// A transport never follows redirects: a 3xx comes back as the response it is. Providers send their key
/// in a header or the query, and a redirect to another host would carry it there.
public protocol HTTPTransport: Sendable {
    /// `maxBodyBytes` caps the reply body; a longer one fails with ``TransportFailure/bodyTooLarge(limit:)``
    /// as soon as it is known, without reading the rest.
    func send(_ request: HTTPRequest, timeout: TimeInterval, maxBodyBytes: Int) async throws(TransportFailure) -> HTTPResponse
}

/// Why no complete HTTP response arrived.
public enum TransportFailure: Error, Sendable, Hashable {
    case timedOut
    /// Refused, DNS, TLS, or closed before any reply: with the system's one-line reason.
    case connection(String)
    /// The reply had started (status and headers arrived) when the connection was cut.
    case cutMidBody(String)
    /// The body is longer than the client's cap.
    case bodyTooLarge(limit: Int)
    case cancelled
    /// This machine has no libcurl, which URLSession needs: why, and what to install.
    case libcurlMissing(String)
}

/// URLSession (libcurl on Linux). One session per transport, so each provider's connections are reused.
/// Its delegate refuses redirects, caps bodies while they stream in, and tells a connection cut
/// mid-body from one that never answered.
///
/// The session is made on the first request, after libcurl is known to be there (``LibcurlOnDemand``): making one
/// calls libcurl, and without it that call ends the process. So `places serve` and every local command run on a
/// machine without libcurl, and a request that needs the network fails with the one line saying what to install.
public struct URLSessionTransport: HTTPTransport {
    private let tasks: TransportTasks

    public init(maximumConnectionsPerHost: Int = 16) {
        tasks = TransportTasks(maximumConnectionsPerHost: maximumConnectionsPerHost)
    }

    public func send(_ request: HTTPRequest, timeout: TimeInterval, maxBodyBytes: Int) async throws(TransportFailure) -> HTTPResponse {
        if let missing = places_libcurl_missing() { throw .libcurlMissing(String(cString: missing)) }
        var urlRequest = URLRequest(url: request.url, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method.rawValue
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let tasks = self.tasks
        let session = tasks.session
        let outcome = OneShot()
        // libcurl's own timeout does not fire for a server that accepts and then stays silent, so the
        // deadline is enforced here: whichever of reply, deadline or cancellation comes first wins.
        let result: Result<HTTPResponse, TransportFailure> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                outcome.install(continuation)
                let task = session.dataTask(with: urlRequest)
                tasks.register(task, maxBodyBytes: maxBodyBytes, outcome: outcome)
                outcome.onLoss { task.cancel() }
                task.resume()
                // A Dispatch timer, not a sleeping task: the deadline must fire on time even when every
                // cooperative thread is busy. The first outcome wins, so a timer firing after the reply is a no-op.
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                    outcome.finish(.failure(.timedOut))
                }
            }
        } onCancel: {
            outcome.finish(.failure(.cancelled))
        }
        return try result.get()
    }
}

/// The session delegate: each running task's reply so far and who waits for it.
private final class TransportTasks: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private final class Pending {
        let maxBodyBytes: Int
        let outcome: OneShot
        var response: HTTPURLResponse?
        var body = Data()
        init(maxBodyBytes: Int, outcome: OneShot) {
            self.maxBodyBytes = maxBodyBytes
            self.outcome = outcome
        }
    }

    private let lock = NSLock()
    private var pending: [Int: Pending] = [:]
    private let maximumConnectionsPerHost: Int
    private var madeSession: URLSession?

    init(maximumConnectionsPerHost: Int) {
        self.maximumConnectionsPerHost = maximumConnectionsPerHost
    }

    /// The one session, made on first use with this object as its delegate.
    var session: URLSession {
        lock.withLock {
            if let madeSession { return madeSession }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.urlCache = nil
            configuration.httpCookieStorage = nil
            let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
            madeSession = session
            return session
        }
    }

    func register(_ task: URLSessionTask, maxBodyBytes: Int, outcome: OneShot) {
        lock.withLock { pending[task.taskIdentifier] = Pending(maxBodyBytes: maxBodyBytes, outcome: outcome) }
    }

    private func entry(_ task: URLSessionTask) -> Pending? { lock.withLock { pending[task.taskIdentifier] } }

    /// Never follow: the 3xx itself becomes the response, and the client refuses it.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let entry = entry(dataTask) else { return completionHandler(.cancel) }
        lock.withLock { entry.response = response as? HTTPURLResponse }
        if response.expectedContentLength > Int64(entry.maxBodyBytes) {
            entry.outcome.finish(.failure(.bodyTooLarge(limit: entry.maxBodyBytes)))
            return completionHandler(.cancel)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let entry = entry(dataTask) else { return }
        let tooLarge: Bool = lock.withLock {
            guard entry.body.count + data.count <= entry.maxBodyBytes else { return true }
            entry.body.append(data)
            return false
        }
        if tooLarge {
            entry.outcome.finish(.failure(.bodyTooLarge(limit: entry.maxBodyBytes)))
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = lock.withLock({ pending.removeValue(forKey: task.taskIdentifier) }) else { return }
        let (response, body) = lock.withLock { (entry.response ?? task.response as? HTTPURLResponse, entry.body) }
        entry.outcome.finish(Self.result(response: response, body: body, error: error))
    }

    private static func result(response: HTTPURLResponse?, body: Data, error: (any Error)?) -> Result<HTTPResponse, TransportFailure> {
        if let error {
            let urlError = error as? URLError
            switch urlError?.code {
            case .timedOut?: return .failure(.timedOut)
            case .cancelled?: return .failure(.cancelled)
            default:
                let reason = urlError.map(describe) ?? error.localizedDescription
                if response != nil { return .failure(.cutMidBody("\(reason) after \(body.count) bytes of the reply")) }
                return .failure(.connection(reason))
            }
        }
        guard let http = response else { return .failure(.connection("not an HTTP response")) }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        return .success(HTTPResponse(status: http.statusCode, headers: headers, body: body))
    }

    private static func describe(_ error: URLError) -> String {
        switch error.code {
        case .cannotConnectToHost: "connection refused"
        case .networkConnectionLost: "connection reset"
        case .badServerResponse: "connection closed without a reply"
        case .cannotFindHost, .dnsLookupFailed: "host not found"
        case .notConnectedToInternet: "no network"
        case .secureConnectionFailed, .serverCertificateUntrusted: "TLS handshake failed"
        default: "network error \(error.code.rawValue)"
        }
    }
}

/// Resumes a continuation exactly once, with whichever outcome arrives first; the losers' work
/// (the still-running data task) is cancelled.
private final class OneShot: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Result<HTTPResponse, TransportFailure>, Never>?
    private var early: Result<HTTPResponse, TransportFailure>?
    private var cancelLoser: (@Sendable () -> Void)?
    private var done = false

    func install(_ continuation: CheckedContinuation<Result<HTTPResponse, TransportFailure>, Never>) {
        let pending: Result<HTTPResponse, TransportFailure>? = lock.withLock {
            if let early { return early }
            self.continuation = continuation
            return nil
        }
        if let pending { continuation.resume(returning: pending) }
    }

    func onLoss(_ cancel: @escaping @Sendable () -> Void) {
        let alreadyDone = lock.withLock {
            cancelLoser = cancel
            return done
        }
        if alreadyDone { cancel() }
    }

    func finish(_ result: Result<HTTPResponse, TransportFailure>) {
        typealias Pending = (CheckedContinuation<Result<HTTPResponse, TransportFailure>, Never>?, (@Sendable () -> Void)?)
        let (continuation, cancel): Pending = lock.withLock {
            guard !done else { return (nil, nil) }
            done = true
            if self.continuation == nil { early = result }
            defer { self.continuation = nil }
            return (self.continuation, cancelLoser)
        }
        continuation?.resume(returning: result)
        if case .success = result {} else { cancel?() }
    }
}
