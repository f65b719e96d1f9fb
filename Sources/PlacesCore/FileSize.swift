import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The size in bytes of the file at `path`, or `nil` when there is none (or it cannot be read).
///
/// One `stat`: Foundation's `attributesOfItem` and `resourceValues(forKeys: [.fileSizeKey])` also look the owner
/// and group up in `/etc/passwd` and `/etc/group`, which showed up in every short command that checks a file's
/// size (the index check on `places search`).
public func fileSize(atPath path: String) -> Int64? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return Int64(status.st_size)
}
