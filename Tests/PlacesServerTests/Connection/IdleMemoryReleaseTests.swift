import Foundation
import Synchronization
import Testing
@testable import PlacesServer

/// The server gives malloc's free memory back when its last client leaves, at most once per interval: a server whose
/// clients come and go releases once at once and once more when the interval has passed, not once per departure.
@Suite struct IdleMemoryReleaseTests {
    @Test func departuresWithinTheIntervalComeToOneReleaseNowAndOneAfterIt() async throws {
        let releases = Mutex<[ContinuousClock.Instant]>([])
        let (released, announce) = AsyncStream.makeStream(of: Int.self)
        let interval = Duration.milliseconds(300)
        let idle = IdleMemoryRelease(minimumInterval: .milliseconds(300)) {
            let count = releases.withLock { $0.append(.now); return $0.count }
            announce.yield(count)
        }
        idle.serverBecameIdle()
        var iterator = released.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        // Five more departures before the interval is over: one release, once it is.
        for _ in 1...5 { idle.serverBecameIdle() }
        #expect(await iterator.next() == 2)
        let times = releases.withLock { $0 }
        #expect(times.count == 2)
        #expect(times[1] - times[0] >= interval - .milliseconds(5), "the second waited for the interval")
    }
}
