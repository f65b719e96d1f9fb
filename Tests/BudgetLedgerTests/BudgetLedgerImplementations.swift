import BudgetLedger
import Foundation
import PostgresStorage
import PostgresTestCluster
import StoreTestSupport
import Testing

/// One way to build a budget ledger for the contract suite. A second implementation (PostgreSQL) adds its
/// own value to ``BudgetLedgerImplementation/all``; every test in `BudgetLedgerContract` then runs against it.
struct BudgetLedgerImplementation: Sendable, CustomTestStringConvertible {
    let name: String
    /// Creates fresh, empty storage and returns an opener for it: each call of the opener gives an independent
    /// handle on that same storage (its own connections), as another process or host would open it.
    let freshStorage: @Sendable () async throws -> @Sendable (BudgetPolicy, @escaping @Sendable () -> Date) async throws -> any BudgetLedger

    var testDescription: String { name }

    /// A ledger on fresh storage with this policy and clock.
    func make(_ policy: BudgetPolicy, clock: @escaping @Sendable () -> Date = { Date() }) async throws -> any BudgetLedger {
        try await freshStorage()(policy, clock)
    }

    static let sqlite = BudgetLedgerImplementation(name: "SQLite") {
        let path = temporaryDatabase("budget.sqlite")
        return { policy, clock in try SQLiteBudgetLedger(path: path, policy: policy, clock: clock) }
    }

    static let postgres = BudgetLedgerImplementation(name: "PostgreSQL") {
        let open = try await PostgresTestCluster.freshStorage()
        return { policy, clock in PostgresBudgetLedger(database: try await open(), policy: policy, clock: clock) }
    }

    /// Every implementation the contract runs against: PostgreSQL where a test cluster is configured, and always in
    /// CI (where a missing cluster fails); `PostgresContractAvailability` prints why it is skipped elsewhere.
    static let all: [BudgetLedgerImplementation] = PostgresTestCluster.isAvailable ? [.sqlite, .postgres] : [.sqlite]
}

@Suite struct PostgresContractAvailability {
    @Test(.enabled(if: PostgresTestCluster.isAvailable, Comment(rawValue: PostgresTestCluster.skipReason)))
    func budgetLedgerContractRunsOnPostgres() {
        #expect(BudgetLedgerImplementation.all.map(\.name).contains("PostgreSQL"))
    }
}
