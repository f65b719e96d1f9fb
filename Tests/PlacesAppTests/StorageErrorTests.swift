import Foundation
import GRDB
import PlacesApp
import Testing

/// Issue 16 item 8: a read-only or full disk is one line naming the place, the cause and what to do.
@Suite struct StorageErrorTests {
    let home = URL(fileURLWithPath: "/home/u/.local/share/places")

    @Test(arguments: [
        (ResultCode.SQLITE_READONLY, "cannot use /home/u/.local/share/places: it is read-only"),
        (ResultCode.SQLITE_FULL, "cannot use /home/u/.local/share/places: the disk is full; free some space"),
        (ResultCode.SQLITE_BUSY, "another places process holds the database locked"),
        (ResultCode.SQLITE_NOTADB, "the database file is damaged"),
    ])
    func sqliteFailuresNameTheDirectoryAndTheCause(code: ResultCode, message: String) throws {
        let raw = DatabaseError(resultCode: code, message: "attempt to write a readonly database", sql: "INSERT INTO spot VALUES (?)")
        let storage = try #require(StorageError.classify(raw, directory: home))
        #expect(storage.description.contains(message), "\(storage)")
        #expect(!storage.description.contains("INSERT"))
        #expect(storage.detail.contains("INSERT"), "the raw detail is kept for --verbose")
    }

    @Test func foundationsCode642IsAReadOnlyVolume() throws {
        let raw = CocoaError(.fileWriteVolumeReadOnly, userInfo: [NSFilePathErrorKey: "/mnt/ro/places/spots-backup.geojson"])
        let storage = try #require(StorageError.classify(raw, directory: home))
        #expect(storage.description == "cannot use /mnt/ro/places/spots-backup.geojson: it is read-only; make it writable, or point PLACES_HOME at a writable directory")
    }

    @Test func otherErrorsAreNotStorageErrors() {
        #expect(StorageError.classify(DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table"), directory: home) == nil)
        #expect(StorageError.classify(URLError(.timedOut), directory: home) == nil)
    }
}
