import Foundation
import PlacesCore
import Synchronization

/// How many writes one ledger transaction takes by default: enough for every request of a busy instance (the
/// server's clients, a bench's 50 tasks) to share one commit, small enough that one statement stays short.
public enum GroupCommitQueueLimit {
    public static let `default` = 256
}

/// Who is in the next batch: the pure bookkeeping of application-level group commit, no I/O.
///
/// A ledger pays one durable commit per transaction, under a lock that serialises every reservation. Requests that
/// arrive while a batch is being committed wait here; when it is done they all leave together as the next batch
/// (at most ``maximumBatch``, oldest first), so N concurrent callers cost one commit instead of N. A request that
/// finds nothing in flight leaves at once, alone: group commit adds no delay to an idle ledger.
struct GroupCommitQueue<Element> {
    /// The most requests one transaction takes (a bound on how long the lock is held and how big one statement grows).
    let maximumBatch: Int
    private(set) var waiting: [Element] = []
    /// Whether a batch is being committed; only one is at a time per queue.
    private(set) var committing = false

    init(maximumBatch: Int) {
        self.maximumBatch = max(1, maximumBatch)
    }

    /// Adds a request; returns the batch to commit now when none is being committed (this arrival leads it),
    /// or nil when the request waits for the batch in flight to finish.
    mutating func arrive(_ element: Element) -> [Element]? {
        waiting.append(element)
        return committing ? nil : takeBatch()
    }

    /// The batch in flight is done: returns the next one (everything that arrived meanwhile, oldest first, up to
    /// ``maximumBatch``), or nil when nobody is waiting and the queue goes idle.
    mutating func batchFinished() -> [Element]? {
        committing = false
        return waiting.isEmpty ? nil : takeBatch()
    }

    private mutating func takeBatch() -> [Element] {
        let batch = Array(waiting.prefix(maximumBatch))
        waiting.removeFirst(batch.count)
        committing = true
        return batch
    }

    /// Each request's own answer: the batch's results in request order, or the batch's failure for every request.
    /// A store that answered with the wrong number of results fails the whole batch rather than misattribute one.
    static func answers<Response>(for batch: [Element], from results: Result<[Response], any Error>)
        -> [(Element, Result<Response, any Error>)] {
        switch results {
        case .failure(let error):
            return batch.map { ($0, .failure(error)) }
        case .success(let responses) where responses.count != batch.count:
            let error = GroupCommitMismatch(requests: batch.count, results: responses.count)
            return batch.map { ($0, .failure(error)) }
        case .success(let responses):
            return zip(batch, responses).map { ($0, .success($1)) }
        }
    }
}

/// The store answered a batch with a different number of results than it was given requests.
struct GroupCommitMismatch: Error, CustomStringConvertible {
    var requests: Int
    var results: Int
    var description: String { "budget ledger: a batch of \(requests) requests came back with \(results) results" }
}

/// Application-level group commit for one process: concurrent ``submit(_:)`` calls are coalesced into batches that
/// `commit` runs as ONE transaction (one round trip, one durable commit), and each caller gets its own answer.
///
/// `commit` receives the requests in arrival order and must return one response per request, in the same order;
/// if it throws, every request of that batch fails with its error (nothing of the batch was committed, since it is
/// one transaction). Batches never overlap, so a batch sees everything the previous one committed.
///
/// ```swift
/// let committer = GroupCommitter<Request, Reply>(maximumBatch: 256) { requests in try await store.runAll(requests) }
/// let reply = try await committer.submit(request)
/// ```
package final class GroupCommitter<Request: Sendable, Response: Sendable>: Sendable {
    private struct Waiter: Sendable {
        var request: Request
        var continuation: CheckedContinuation<Response, any Error>
    }

    private let queue: Mutex<GroupCommitQueue<Waiter>>
    private let commit: @Sendable ([Request]) async throws -> [Response]

    package init(maximumBatch: Int = GroupCommitQueueLimit.default, commit: @escaping @Sendable ([Request]) async throws -> [Response]) {
        queue = Mutex(GroupCommitQueue(maximumBatch: maximumBatch))
        self.commit = commit
    }

    /// How many requests wait for the batch in flight to finish (what a test waits on; nothing else needs it).
    var waitingCount: Int { queue.withLock { $0.waiting.count } }

    /// Runs `request` in the next batch and returns its own response.
    package func submit(_ request: Request) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            if let batch = queue.withLock({ $0.arrive(Waiter(request: request, continuation: continuation)) }) {
                Task { await self.drain(startingWith: batch) }
            }
        }
    }

    /// Commits batches one after another until nobody is waiting.
    private func drain(startingWith first: [Waiter]) async {
        var batch: [Waiter]? = first
        while let current = batch {
            let results: Result<[Response], any Error>
            do {
                results = .success(try await commit(current.map(\.request)))
            } catch {
                results = .failure(error)
            }
            for (waiter, answer) in GroupCommitQueue<Waiter>.answers(for: current, from: results) {
                waiter.continuation.resume(with: answer)
            }
            batch = queue.withLock { $0.batchFinished() }
        }
    }
}

/// One write to a budget ledger as a batch carries it, in the order the callers made them.
package enum LedgerWrite: Sendable {
    /// Reserve the price of one call; `day`, `month` and `time` were read from the ledger's clock when it was asked.
    case reserve(provider: String, quote: PriceQuote, day: String, month: String, time: Date)
    case settle(chargeID: Int64)
    case refund(chargeID: Int64)
}

/// The write side both ledgers share: a free call is granted here without touching the store (id 0, which settle
/// and refund ignore); every other reserve, settle and refund goes to group commit, stamped with the ledger's clock
/// and the policy's day and month when it was asked.
package struct GroupCommittedWrites: Sendable {
    private let committer: GroupCommitter<LedgerWrite, ReservationOutcome?>
    private let policy: BudgetPolicy
    private let clock: @Sendable () -> Date

    /// - Parameter commit: runs one batch as one transaction: each `.reserve`'s outcome in its place, nil for the others.
    package init(policy: BudgetPolicy, clock: @escaping @Sendable () -> Date, maximumBatch: Int,
                 commit: @escaping @Sendable ([LedgerWrite]) async throws -> [ReservationOutcome?]) {
        committer = GroupCommitter(maximumBatch: maximumBatch, commit: commit)
        self.policy = policy
        self.clock = clock
    }

    package func reserve(provider: String, quote: PriceQuote) async throws -> ReservationOutcome {
        guard quote.cost > .zero else {
            return .granted(Reservation(id: 0, provider: provider, sku: quote.sku, cost: .zero, listPrice: .zero))
        }
        let now = clock()
        let (day, month) = policy.periodKeys(for: now)
        guard let outcome = try await committer.submit(.reserve(provider: provider, quote: quote, day: day, month: month, time: now)) else {
            throw GroupCommitMismatch(requests: 1, results: 0)
        }
        return outcome
    }

    package func settle(_ reservation: Reservation) async throws {
        guard reservation.id > 0 else { return }
        _ = try await committer.submit(.settle(chargeID: reservation.id))
    }

    package func refund(_ reservation: Reservation) async throws {
        guard reservation.id > 0 else { return }
        _ = try await committer.submit(.refund(chargeID: reservation.id))
    }
}
