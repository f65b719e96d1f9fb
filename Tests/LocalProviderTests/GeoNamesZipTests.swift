import Foundation
import LocalProvider
import PlaceIndex
import PlacesCore
import Testing
import ZIPFoundation

/// GeoNames `.zip` dumps read through ZIPFoundation: the shapes zip writers produce (data descriptors, zip64) import,
/// and every broken zip fails with one line naming the file, leaving the index as it was.
@Suite struct GeoNamesZipTests {
    /// Written by Python's zipfile to a stream that cannot seek (`Fixtures/make-zip-fixtures.py`): sizes and CRC
    /// follow each entry's data in a data descriptor, and the local headers say 0.
    static let descriptorZip = TestData.fixtures.appendingPathComponent("geonames-helsinki-area-descriptor.zip")
    /// Written by Python's zipfile with `force_zip64`: the dump entry carries zip64 extra fields.
    static let zip64Zip = TestData.fixtures.appendingPathComponent("geonames-helsinki-area-zip64.zip")

    /// The local header of the dump entry, read here byte by byte (independently of the reader under test).
    static func dumpLocalHeader(_ data: Data) throws -> (flags: Int, compressedSize: Int, extraID: Int?) {
        let bytes = [UInt8](data), name = Array("geonames-helsinki-area.txt".utf8)
        for at in 0..<(bytes.count - 30 - name.count) where bytes[at..<(at + 4)].elementsEqual([0x50, 0x4B, 0x03, 0x04])
            && bytes[(at + 30)..<(at + 30 + name.count)].elementsEqual(name) {
            let u16 = { (i: Int) in Int(bytes[at + i]) | Int(bytes[at + i + 1]) << 8 }
            let extraLength = u16(28)
            let extraID = extraLength >= 2 ? Int(bytes[at + 30 + name.count]) | Int(bytes[at + 31 + name.count]) << 8 : nil
            return (u16(6), u16(18) | u16(20) << 16, extraID)
        }
        throw InputError("no local header for the dump")
    }

    @Test func fixturesHaveTheShapesTheyClaim() throws {
        let descriptor = try Self.dumpLocalHeader(Data(contentsOf: Self.descriptorZip))
        #expect(descriptor.flags & 0x08 != 0)
        #expect(descriptor.compressedSize == 0)
        let zip64 = try Self.dumpLocalHeader(Data(contentsOf: Self.zip64Zip))
        #expect(zip64.extraID == 0x0001)
    }

    @Test(arguments: [descriptorZip, zip64Zip])
    func zipsWithDataDescriptorsOrZip64Import(_ url: URL) throws {
        let index = try PlaceIndexStore.inMemory()
        let summary = try LocalImporter(index: index).importFile(url)
        #expect(summary.rowsRead == 12)
        #expect(try index.counts().cities == 12)
        #expect(try index.place(id: PlaceID(parsing: "geonames:658225"))?.name == "Helsinki")
    }

    /// A zip made with ZIPFoundation in the scratch directory, entries given as (name, text, deflated).
    static func makeZip(named name: String, _ entries: [(String, Data, Bool)]) throws -> URL {
        let url = try TestData.temporaryDirectory().appendingPathComponent(UUID().uuidString, isDirectory: true)
            .appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data, deflated) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count),
                                 compressionMethod: deflated ? .deflate : .none) { position, size in
                data.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        return url
    }

    static let dump = { try! Data(contentsOf: TestData.geoNamesText) }()

    @Test func zipsMadeByZIPFoundationImportStoredOrDeflated() throws {
        for deflated in [false, true] {
            let url = try Self.makeZip(named: "FI.zip", [("readme.txt", Data("read me\n".utf8), true), ("FI.txt", Self.dump, deflated)])
            let index = try PlaceIndexStore.inMemory()
            #expect(try LocalImporter(index: index).importFile(url).citiesIndexed == 12)
        }
    }

    /// A download cut short loses the central directory at the end: one line, and the index keeps what it had.
    @Test func truncatedZipFailsAndKeepsThePreviousIndex() throws {
        let url = try Self.makeZip(named: "cities1000.zip", [("cities1000.txt", Self.dump, true)])
        let index = try PlaceIndexStore.inMemory()
        _ = try LocalImporter(index: index).importFile(url)
        let before = try index.counts()
        let whole = try Data(contentsOf: url)
        try whole.prefix(whole.count * 2 / 3).write(to: url)
        let error = #expect(throws: InputError.self) { try LocalImporter(index: index).importFile(url) }
        #expect(error?.message == "cities1000.zip: not a complete zip archive (no readable central directory: a truncated or damaged download?)")
        #expect(try index.counts() == before)
        #expect(try index.place(id: PlaceID(parsing: "geonames:658225"))?.name == "Helsinki")
    }

    @Test func zipWithoutADumpSaysWhatItHolds() throws {
        let url = try Self.makeZip(named: "FI.zip", [("readme.txt", Data("read me\n".utf8), true), ("FI.csv", Data("a,b\n".utf8), true)])
        let error = #expect(throws: InputError.self) { try LocalImporter(index: PlaceIndexStore.inMemory()).importFile(url) }
        #expect(error?.message == "FI.zip: no GeoNames .txt file inside this zip (it holds: readme.txt, FI.csv)")
    }

    /// A byte of a stored entry changed after writing: the CRC-32 in the central directory catches it.
    @Test func corruptedEntryFailsItsChecksum() throws {
        let url = try Self.makeZip(named: "FI.zip", [("FI.txt", Self.dump, false)])
        var bytes = [UInt8](try Data(contentsOf: url))
        let at = try #require(bytes.firstIndex(of: UInt8(ascii: "H")))  // "Helsinki" in the first row
        bytes[at] = UInt8(ascii: "J")
        try Data(bytes).write(to: url)
        let index = try PlaceIndexStore.inMemory()
        let error = #expect(throws: InputError.self) { try LocalImporter(index: index).importFile(url) }
        #expect(error?.message == "FI.zip: zip entry FI.txt is damaged: its CRC-32 does not match the central directory (a corrupted download?)")
        #expect(try index.isEmpty)
    }

    /// The geonames fuzzer's finding: a deflate stream that runs to the end of the file without its end marker.
    /// ZIPFoundation 0.9.20's own extract spins forever on it; the reader stops at the entry's compressed size.
    @Test func deflateStreamWithoutItsEndFailsInsteadOfSpinning() throws {
        let seed = TestData.fixtures.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Corpus/geonames/zip-deflate-without-end-of-stream")
        let url = try TestData.temporaryDirectory().appendingPathComponent("no-end.zip")
        try Data(contentsOf: seed).dropFirst().write(to: url)  // the first byte picks the container for the fuzzer
        let error = #expect(throws: InputError.self) { try LocalImporter(index: PlaceIndexStore.inMemory()).importFile(url) }
        #expect(error?.message.hasPrefix("no-end.zip: ") == true, "\(error?.message ?? "")")
    }
}
