import BudgetLedger
import Foundation
import PlacesCore
import PlacesPipeline
import Testing

@Suite("Lookup under a budget")
struct BudgetEnforcementTests {
    @Test("a budget of N paid calls allows exactly N across 100 concurrent different lookups")
    func concurrentLookups() async throws {
        let price = MicroDollars.perThousand(dollars: 35)
        let costly = (0..<100).map { i in
            Place(id: PlaceID(provider: "google", nativeID: "p\(i)"), name: "Cafe Number \(i)",
                  coordinate: Coordinate(latitude: 60.1 + Double(i) * 0.01, longitude: 24.9))
        }
        let rig = try PipelineRig(costly: costly, budget: BudgetPolicy(providers: ["google": BudgetLimits(perDay: price * 5)]))
        let outcomes = try await withThrowingTaskGroup(of: LookupOutcome.self) { group in
            for i in 0..<100 {
                group.addTask {
                    try await rig.lookup("Cafe Number \(i)", near: Coordinate(latitude: 60.1 + Double(i) * 0.01, longitude: 24.9))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(rig.costly.calls == 5)
        #expect(outcomes.filter(\.isAccepted).count == 5)
        #expect(outcomes.filter(\.budgetExhausted).count == 95)
        #expect(try await rig.ledger.report().providers.first { $0.provider == "google" }?.today.spent == price * 5)
    }

    @Test("concurrent identical lookups share one upstream call")
    func singleFlight() async throws {
        let rig = try PipelineRig(cheap: [mayaElsewhere()])
        let outcomes = try await withThrowingTaskGroup(of: LookupOutcome.self) { group in
            for _ in 0..<20 { group.addTask { try await rig.lookup() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(rig.costly.calls == 1)
        #expect(outcomes.filter(\.isAccepted).count == 20)
        #expect(outcomes.map(\.cost).reduce(.zero, +) == .perThousand(dollars: 35))
    }

    @Test("when the budget would be exceeded the best cheap result comes back flagged, and is not cached")
    func budgetExhausted() async throws {
        let rig = try PipelineRig(local: [mayaLocal()],
                                  budget: BudgetPolicy(overall: BudgetLimits(perDay: .zero)))
        let outcome = try await rig.lookup(fields: [.phone])
        #expect(outcome.budgetExhausted)
        #expect(outcome.place?.id.provider == "osm")
        #expect(outcome.budgetNote?.contains("google") == true)
        #expect(rig.costly.calls == 0)
        let again = try await rig.lookup(fields: [.phone])
        #expect(again.cache == .miss)
    }

    @Test("--max-cost below the price of a call skips the paid provider")
    func maxCost() async throws {
        let rig = try PipelineRig(cheap: [mayaElsewhere()])
        let outcome = try await rig.lookup(maxCost: MicroDollars(10_000))
        #expect(outcome.budgetExhausted && rig.costly.calls == 0 && outcome.cost == .zero)
    }

    @Test("a failed call the provider does not bill is refunded")
    func refundOnFailure() async throws {
        let rig = try PipelineRig()
        rig.costly.fail(with: serverError)
        let outcome = try await rig.lookup()
        #expect(rig.costly.calls == 1 && outcome.cost == .zero)
        #expect(try await rig.ledger.report().overallToday.spent == .zero)
    }
}
