import Foundation
@testable import LocalProvider
import PlacesCore
import Testing

@Suite struct LocationStoreTests {
    /// A large extract keeps node positions in a temporary file; lookups across the written runs, the
    /// in-memory tail and the gaps between ids answer as the in-memory store does.
    @Test(arguments: [0, Int.max])
    func findsEveryPositionWhereverItIsKept(fileSize: Int) {
        var store = LocationStore(fileSize: fileSize)
        #expect(store.usesDisk == (fileSize > LocationStore.onDiskAboveFileSize))
        let count = 2 * (1 << 20) + 1_000  // two runs written to disk and a tail in memory
        for i in 0..<count {
            store.append(id: Int64(i) * 3 + 1, latitude: 60 + Double(i % 1000) * 1e-5, longitude: 24.9 + Double(i % 777) * 1e-5)
        }
        for i in [0, 1, 1 << 20 - 1, 1 << 20, 1 << 20 + 1, 2 << 20, count - 1] {
            let location = store.location(of: Int64(i) * 3 + 1)
            #expect(location.map { abs($0.latitude - (60 + Double(i % 1000) * 1e-5)) < 1e-7 } == true)
            #expect(location.map { abs($0.longitude - (24.9 + Double(i % 777) * 1e-5)) < 1e-7 } == true)
            #expect(store.location(of: Int64(i) * 3 + 2) == nil)
        }
        #expect(store.location(of: 0) == nil)
        #expect(store.location(of: Int64(count) * 3 + 1) == nil)
    }

    /// Lookups search outwards from where the one before ended: in any order, near or far, present or not,
    /// each finds what a dictionary of the same positions holds.
    @Test func lookupsInAnyOrderFindWhatADictionaryHolds() {
        var store = LocationStore(fileSize: 0)
        var expected: [Int64: Double] = [:]
        var generator = SystemRandomNumberGenerator()
        var id: Int64 = 0
        for _ in 0..<5_000 {
            id += Int64.random(in: 1...40, using: &generator)
            let latitude = Double(Int.random(in: -900_000_000...900_000_000, using: &generator)) / 1e7
            store.append(id: id, latitude: latitude, longitude: 1)
            expected[id] = latitude
        }
        var probes = (0...(id + 5)).shuffled(using: &generator).prefix(20_000).map { $0 }
        probes += Array(0...(id + 5)).reversed()  // downwards, one step at a time
        for probe in probes {
            #expect(store.location(of: probe)?.latitude == expected[probe], "\(probe)")
        }
    }

    /// Files not sorted by id still resolve (one sort, in memory), on disk too.
    @Test(arguments: [0, Int.max])
    func unsortedInputStillResolves(fileSize: Int) {
        var store = LocationStore(fileSize: fileSize)
        for id: Int64 in [50, 10, 40, 20, 30] { store.append(id: id, latitude: Double(id) / 100, longitude: 1) }
        #expect(store.location(of: 20)?.latitude == 0.2)
        #expect(store.location(of: 50)?.latitude == 0.5)
        #expect(store.location(of: 25) == nil)
    }
}
