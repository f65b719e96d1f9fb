import Foundation
import PlacesCore

/// One input row of `places lookup --batch`: the row's own id plus the question.
public struct BatchRow: Sendable, Hashable {
    public var id: String
    public var query: MatchQuery

    public init(id: String, query: MatchQuery) {
        self.id = id
        self.query = query
    }
}

public struct BatchRowResult: Sendable {
    public var row: BatchRow
    public var outcome: LookupOutcome?
    /// Set when the lookup itself failed (not when providers failed and the pipeline degraded).
    public var failure: String?
}

/// The end-of-batch summary: rows, cache hits, calls per provider, money spent, failures.
public struct BatchSummary: Sendable, Hashable, Codable {
    public var rows = 0
    public var cacheHits = 0
    public var staleAnswers = 0
    public var accepted = 0
    public var unanswered = 0
    public var budgetExhausted = 0
    public var failures = 0
    public var callsPerProvider: [String: Int] = [:]
    public var cost = MicroDollars.zero

    public init() {}

    mutating func add(_ result: BatchRowResult) {
        rows += 1
        guard let outcome = result.outcome else {
            failures += 1
            return
        }
        if outcome.cache == .hit { cacheHits += 1 }
        if outcome.cache == .stale { staleAnswers += 1 }
        if outcome.isAccepted { accepted += 1 } else { unanswered += 1 }
        if outcome.budgetExhausted { budgetExhausted += 1 }
        if !outcome.errors.isEmpty && outcome.cache != .stale && !outcome.isAccepted { failures += 1 }
        for (provider, count) in outcome.calls { callsPerProvider[provider, default: 0] += count }
        cost = cost + outcome.cost
    }

    public var lines: [String] {
        var lines = ["rows: \(rows)", "cache hits: \(cacheHits)", "accepted: \(accepted)", "unanswered: \(unanswered)",
                     "budget exhausted: \(budgetExhausted)", "failures: \(failures)", "spent: \(cost)"]
        if staleAnswers > 0 { lines.append("stale answers: \(staleAnswers)") }
        for provider in callsPerProvider.keys.sorted() {
            lines.append("calls \(provider): \(callsPerProvider[provider]!)")
        }
        return lines
    }
}

extension LookupPipeline {
    /// Looks up every row with at most `concurrency` lookups in flight. Re-running a batch is a
    /// resume: rows answered before are cache hits and cost nothing; rows that failed are retried.
    /// - Parameters:
    ///   - request: how a row's question is asked (fields, caps, offline): the caller's one lookup policy.
    ///   - onResult: called once per row, in completion order, with the number of rows done so far.
    public func runBatch(_ rows: [BatchRow], concurrency: Int = 8,
                         request: @escaping @Sendable (MatchQuery) -> LookupRequest = { LookupRequest(query: $0) },
                         onResult: @Sendable (BatchRowResult, Int) async throws -> Void) async throws -> BatchSummary {
        var summary = BatchSummary()
        try await withThrowingTaskGroup(of: BatchRowResult.self) { group in
            var next = 0
            func startNext() {
                guard next < rows.count else { return }
                let row = rows[next]
                next += 1
                group.addTask { [self] in
                    do {
                        let outcome = try await lookup(request(row.query))
                        return BatchRowResult(row: row, outcome: outcome, failure: nil)
                    } catch {
                        return BatchRowResult(row: row, outcome: nil, failure: "\(error)")
                    }
                }
            }
            for _ in 0..<max(1, concurrency) { startNext() }
            while let result = try await group.next() {
                summary.add(result)
                try await onResult(result, summary.rows)
                startNext()
            }
        }
        return summary
    }
}
