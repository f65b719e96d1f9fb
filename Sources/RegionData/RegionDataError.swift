import Foundation
import LibcurlOnDemand

/// What can go wrong while finding, downloading and checking a region. Each case renders one line that says
/// what failed and what to do; the index is never touched before a download has been checked.
public enum RegionDataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No region has this id; `suggestions` are ids containing the text typed.
    case unknownRegion(String, suggestions: [String])
    /// Geofabrik's index could not be read.
    case badIndex(String)
    /// The server answered with an HTTP status other than success.
    case httpStatus(url: String, status: Int)
    /// The connection failed or dropped; `received` bytes of `expected` are kept for the next attempt.
    case interrupted(file: String, received: Int64, expected: Int64?, reason: String)
    /// The downloaded file's MD5 sum is not the published one; the file was deleted.
    case checksumMismatch(file: String, expected: String, actual: String)
    /// The published `.md5` file holds no MD5 sum.
    case badChecksumFile(url: String)
    /// The file on disk could not be written or read.
    case file(path: String, reason: String)
    /// No libcurl on this machine (URLSession needs it): why, and what to install.
    case libcurlMissing(String)

    public var description: String {
        switch self {
        case .unknownRegion(let name, let suggestions):
            let hint = suggestions.isEmpty ? "" : " (did you mean \(suggestions.map { "'\($0)'" }.joined(separator: ", "))?)"
            return "unknown region '\(name.prefix(80))'\(hint); `places data list [FILTER]` shows every region"
        case .badIndex(let why):
            return "cannot read Geofabrik's region index: \(why); check [data] geofabrik_url (or PLACES_GEOFABRIK_URL)"
        case .httpStatus(let url, let status):
            return "\(url) answered HTTP \(status); nothing was imported"
        case .interrupted(let file, let received, let expected, let reason):
            let of = expected.map { " of \($0)" } ?? ""
            return "download of \(file) stopped at \(received)\(of) bytes (\(reason)); run the same command again to resume"
        case .checksumMismatch(let file, let expected, let actual):
            return "\(file): MD5 is \(actual) but the publisher's is \(expected); the download was deleted "
                + "and the index is unchanged (run the command again to download it afresh)"
        case .badChecksumFile(let url):
            return "\(url) holds no MD5 sum; nothing was imported"
        case .file(let path, let reason):
            return "cannot write \(path): \(reason)"
        case .libcurlMissing(let why):
            return why
        }
    }
}

extension RegionDataError {
    /// Throws ``libcurlMissing`` when libcurl is not on this machine: making a URLSession without it would end the
    /// process (see LibcurlOnDemand), so every request asks first.
    static func requireLibcurl() throws(RegionDataError) {
        if let missing = places_libcurl_missing() { throw .libcurlMissing(String(cString: missing)) }
    }
}
