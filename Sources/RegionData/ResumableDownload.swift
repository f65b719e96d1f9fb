import Foundation
import PlacesCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads one large file into `<destination>.part`, resuming with an HTTP `Range` request when a partial file
/// is already there (from a dropped connection in this run or an earlier one), and renames it into place only
/// when every byte has arrived. Bytes go straight to disk: memory use does not grow with the file.
///
/// A server that ignores `Range` (answers 200) restarts the file from its first byte; one that answers 416 to a
/// range (the part is longer than the file now published) gets the part deleted and a fresh start.
public struct ResumableDownloader: Sendable {
    /// Seconds without a byte before an attempt gives up.
    public var idleTimeout: TimeInterval
    /// Attempts per call: a dropped connection is resumed this many times before the error is reported.
    public var attempts: Int
    public var userAgent: String

    public init(idleTimeout: TimeInterval = 60, attempts: Int = 3, userAgent: String) {
        self.idleTimeout = idleTimeout
        self.attempts = max(1, attempts)
        self.userAgent = userAgent
    }

    /// What `progress` is told: bytes on disk so far and the full size when the server said it.
    public typealias Progress = @Sendable (_ received: Int64, _ expected: Int64?) -> Void

    /// The `.part` file a download of `destination` writes to.
    public static func partialFile(for destination: URL) -> URL {
        destination.deletingLastPathComponent().appendingPathComponent(destination.lastPathComponent + ".part")
    }

    /// Downloads `url` to `destination` (replacing it); returns the size in bytes. How many of the attempts
    /// resumed from a partial file is reported through `resumedFrom` (the byte offset asked for), for the user.
    public func download(_ url: URL, to destination: URL, label: String? = nil, progress: Progress? = nil,
                         resumedFrom: (@Sendable (Int64) -> Void)? = nil) async throws(RegionDataError) -> Int64 {
        try RegionDataError.requireLibcurl()
        let part = Self.partialFile(for: destination)
        let label = label ?? destination.lastPathComponent
        var lastError: RegionDataError?
        for _ in 0..<attempts {
            let offset = Self.size(of: part)
            if offset > 0 { resumedFrom?(offset) }
            switch await attempt(url, part: part, label: label, offset: offset, progress: progress) {
            case .complete(let bytes):
                do {
                    if FileManager.default.fileExists(atPath: destination.path) {
                        try FileManager.default.removeItem(at: destination)
                    }
                    try FileManager.default.moveItem(at: part, to: destination)
                } catch {
                    throw .file(path: destination.path, reason: error.localizedDescription)
                }
                return bytes
            case .restart:
                try? FileManager.default.removeItem(at: part)
                lastError = nil
            case .failed(let error):
                if case .interrupted = error { lastError = error; continue }
                throw error
            }
        }
        throw lastError ?? .interrupted(file: label, received: Self.size(of: part),
                                        expected: nil, reason: "the server kept refusing the resumed range")
    }

    static func size(of file: URL) -> Int64 {
        fileSize(atPath: file.path) ?? 0
    }

    enum Outcome: Sendable {
        case complete(Int64)
        case restart
        case failed(RegionDataError)
    }

    private func attempt(_ url: URL, part: URL, label: String, offset: Int64, progress: Progress?) async -> Outcome {
        if offset == 0 {
            guard FileManager.default.createFile(atPath: part.path, contents: nil) else {
                return .failed(.file(path: part.path, reason: "the folder is missing or not writable"))
            }
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: part)
            try handle.seekToEnd()
        } catch {
            return .failed(.file(path: part.path, reason: error.localizedDescription))
        }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: idleTimeout)
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        if offset > 0 { request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range") }
        let receiver = DownloadReceiver(handle: handle, offset: offset, file: label,
                                        url: url, progress: progress)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: receiver, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        let outcome = await withCheckedContinuation { continuation in
            receiver.start(session.dataTask(with: request), continuation: continuation)
        }
        try? handle.close()
        return outcome
    }
}

/// The session delegate of one attempt: decides from the status whether the bytes append, restart or fail, and
/// writes each chunk as it arrives. All calls come on the session's serial delegate queue.
private final class DownloadReceiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let handle: FileHandle
    private let offset: Int64
    private let file: String
    private let url: URL
    private let progress: ResumableDownloader.Progress?
    private let lock = NSLock()
    private var continuation: CheckedContinuation<ResumableDownloader.Outcome, Never>?
    private var received: Int64
    private var expected: Int64?
    private var decided: ResumableDownloader.Outcome?

    init(handle: FileHandle, offset: Int64, file: String, url: URL, progress: ResumableDownloader.Progress?) {
        self.handle = handle
        self.offset = offset
        self.file = file
        self.url = url
        self.progress = progress
        self.received = offset
    }

    func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<ResumableDownloader.Outcome, Never>) {
        lock.withLock { self.continuation = continuation }
        task.resume()
    }

    private func finish(_ outcome: ResumableDownloader.Outcome) {
        let continuation: CheckedContinuation<ResumableDownloader.Outcome, Never>? = lock.withLock {
            defer { self.continuation = nil }
            return self.continuation
        }
        continuation?.resume(returning: outcome)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        let length = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        switch status {
        case 206 where offset > 0 && Self.rangeStart(http?.value(forHTTPHeaderField: "Content-Range")) == offset:
            expected = length.map { offset + $0 }
            completionHandler(.allow)
        case 200:
            // The whole file, from the start: whatever was kept goes.
            do {
                try handle.truncate(atOffset: 0)
            } catch {
                decided = .failed(.file(path: file, reason: error.localizedDescription))
                completionHandler(.cancel)
                return
            }
            received = 0
            expected = length
            completionHandler(.allow)
        case 206, 416:
            decided = .restart
            completionHandler(.cancel)
        default:
            decided = .failed(.httpStatus(url: Redaction.urlPasswords(url.absoluteString), status: status))
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        do {
            try handle.write(contentsOf: data)
        } catch {
            decided = .failed(.file(path: file, reason: error.localizedDescription))
            dataTask.cancel()
            return
        }
        received += Int64(data.count)
        progress?(received, expected)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let decided { return finish(decided) }
        if let error {
            return finish(.failed(.interrupted(file: file, received: received, expected: expected,
                                               reason: Self.reason(error))))
        }
        if let expected, received < expected {
            return finish(.failed(.interrupted(file: file, received: received, expected: expected,
                                               reason: "the connection closed early")))
        }
        finish(.complete(received))
    }

    /// The first byte of `Content-Range: bytes 100-999/1000`.
    static func rangeStart(_ header: String?) -> Int64? {
        guard let header, let range = header.split(separator: " ").last,
              let first = range.split(separator: "-").first else { return nil }
        return Int64(first)
    }

    static func reason(_ error: any Error) -> String {
        let code = (error as NSError).code
        switch code {
        case NSURLErrorTimedOut: return "no data for too long"
        case NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost: return "cannot connect"
        case NSURLErrorNetworkConnectionLost: return "the connection was lost"
        default: return "the connection failed (\(code))"
        }
    }
}
