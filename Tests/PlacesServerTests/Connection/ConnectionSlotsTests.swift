import NIOCore
import Testing
@testable import PlacesServer

@Suite("ConnectionSlots")
struct ConnectionSlotsTests {
    @Test func slotsAreTakenUpToTheLimitAndComeBack() {
        let slots = ConnectionSlots()
        #expect(slots.take(limit: 2))
        #expect(slots.take(limit: 2))
        #expect(!slots.take(limit: 2))
        #expect(slots.release() == 1)
        #expect(slots.take(limit: 2))
        #expect((slots.openCount, slots.acceptedCount, slots.refusedCount) == (2, 4, 1))
    }

    /// A flood of refusals makes one warning a minute, and each later warning says how many it stands for.
    @Test func refusalsAreWarnedAboutAtMostOnceAMinute() {
        let slots = ConnectionSlots()
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        func refuse(at seconds: Int64) -> String? {
            #expect(!slots.take(limit: 0))
            return slots.refusalWarning("client", reason: "max number of clients reached", now: start + .seconds(seconds))
        }
        #expect(refuse(at: 0) == "refused a client: max number of clients reached (refusals are logged at most once a minute)")
        for second in 1...5 { #expect(refuse(at: Int64(second)) == nil) }
        #expect(refuse(at: 59) == nil)
        // The first line stood for one refusal; this one for the six after it and itself.
        #expect(refuse(at: 60) == "refused 7 clients since the last warning: max number of clients reached")
        #expect(refuse(at: 61) == nil)
        #expect(refuse(at: 200) == "refused 2 clients since the last warning: max number of clients reached")
    }
}
