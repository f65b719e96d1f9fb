import Foundation
import GRDB
import PlacesCore
import PostgresStorage
import StoreSupport

/// A failure to read or write places' own files (the index, spots, cache, budget ledger), in one line that
/// names where, why, and what to do: "cannot write to /home/u/.local/share/places: the disk is full; free
/// some space and try again". SQLite's and Foundation's own wording (`NSCocoaErrorDomain Code=642`, raw SQL)
/// is kept in ``detail`` for `--verbose`.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    public enum Cause: Sendable, Equatable {
        case readOnly, diskFull, locked, permissionDenied, notADirectory, damaged, cannotOpen

        var explanation: String {
            switch self {
            case .readOnly: "it is read-only; make it writable, or point PLACES_HOME at a writable directory"
            case .diskFull: "the disk is full; free some space and try again"
            case .locked: "another places process holds the database locked; wait for it to finish and try again"
            case .permissionDenied: "permission denied; make it writable by this user, or point PLACES_HOME elsewhere"
            case .notADirectory: "part of that path is a file, not a directory; point PLACES_HOME at a directory"
            case .damaged: "the database file is damaged; move it aside and run the command again to rebuild it"
            case .cannotOpen: "the database cannot be opened there; check the directory exists and is writable"
            }
        }
    }

    /// The file or directory concerned.
    public var path: String
    public var cause: Cause
    /// The underlying error as the library reported it.
    public var detail: String

    public var description: String { "cannot use \(path): \(cause.explanation)" }

    /// The storage failure inside `error`, if it is one; `directory` is where places keeps its files, named
    /// when the error itself does not say which file (SQLite's errors never do).
    public static func classify(_ error: any Error, directory: URL) -> StorageError? {
        if let storage = error as? StorageError { return storage }
        // A store that failed to open knows its file: name that rather than the directory.
        if let opening = error as? StoreOpenError {
            return classify(opening.database, directory: URL(fileURLWithPath: opening.path))
        }
        if let database = error as? DatabaseError {
            let cause: Cause? = switch database.resultCode.primaryResultCode {
            case .SQLITE_READONLY: .readOnly
            case .SQLITE_FULL: .diskFull
            case .SQLITE_BUSY, .SQLITE_LOCKED: .locked
            case .SQLITE_PERM, .SQLITE_AUTH: .permissionDenied
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: .damaged
            case .SQLITE_CANTOPEN: .cannotOpen
            case .SQLITE_IOERR: .diskFull
            default: nil
            }
            return cause.map { StorageError(path: directory.path, cause: $0, detail: "\(database)") }
        }
        var posixCode: POSIXErrorCode?
        var cocoaCode: CocoaError.Code?
        var path: String?
        if let cocoa = error as? CocoaError {
            cocoaCode = cocoa.code
            path = cocoa.filePath ?? cocoa.url?.path
            posixCode = cocoa.underlying.flatMap(Self.posixCode)
        } else {
            posixCode = Self.posixCode(error)
        }
        let cause: Cause? = switch posixCode {
        case .EROFS?: .readOnly
        case .ENOSPC?, .EDQUOT?: .diskFull
        case .EACCES?, .EPERM?: .permissionDenied
        case .ENOTDIR?, .EEXIST?: .notADirectory
        default:
            switch cocoaCode {
            case .fileWriteVolumeReadOnly?: .readOnly
            case .fileWriteOutOfSpace?: .diskFull
            case .fileWriteNoPermission?, .fileReadNoPermission?: .permissionDenied
            default: nil
            }
        }
        guard let cause else { return nil }
        return StorageError(path: path ?? directory.path, cause: cause, detail: "\(error)")
    }

    private static func posixCode(_ error: any Error) -> POSIXErrorCode? {
        if let posix = error as? POSIXError { return posix.code }
        let nsError = error as NSError
        guard nsError.domain == NSPOSIXErrorDomain, let raw = Int32(exactly: nsError.code) else { return nil }
        return POSIXErrorCode(rawValue: raw)
    }
}

extension StorageError {
    /// Why storage failed, in one line without the word "storage", when `error` is a storage failure of
    /// either kind: a local file (``classify(_:directory:)``) or the shared PostgreSQL database being
    /// unreachable. The server replies `-ERR storage unavailable: ` and this.
    public static func unavailableReason(_ error: any Error, directory: URL) -> String? {
        if let shared = error as? StorageUnavailable { return "PostgreSQL at \(shared.endpoint): \(shared.reason)" }
        return classify(error, directory: directory)?.description
    }
}
