import Foundation
import PlacesCore

/// A `places lookup` question: which place, how much it may cost, and whether the network may be used.
public struct LookupRequest: Sendable, Hashable {
    /// Name, `--near`, optional address/phone, and the `--fields` that must be present to stop early.
    public var query: MatchQuery
    /// `--max-cost`: the most this one lookup may spend, on top of the ledger's limits.
    public var maxCost: MicroDollars?
    /// `--offline`: the cache and the local index only.
    public var offline: Bool
    /// The fields an answer must carry to be accepted; ``MatchQuery/fields`` is what providers are asked
    /// for. They differ when a caller wants the usual fields shown but will not pay for a missing address.
    public var requiredFields: Set<PlaceField>
    /// `--pay-when-ambiguous` / `[pipeline] pay_when_ambiguous`: ask paid providers even when the cheap
    /// candidates show the question is ambiguous. Off by default: a paid provider answers such a question
    /// with its own guess, which settles nothing (see ``StopReason/ambiguous``).
    public var payWhenAmbiguous: Bool

    public init(query: MatchQuery, maxCost: MicroDollars? = nil, offline: Bool = false,
                requiredFields: Set<PlaceField>? = nil, payWhenAmbiguous: Bool = false) {
        self.query = query
        self.maxCost = maxCost
        self.offline = offline
        self.requiredFields = requiredFields ?? query.fields
        self.payWhenAmbiguous = payWhenAmbiguous
    }
}

/// How a candidate compares with the question, in the pipeline's own terms (independent of the matcher's types).
public enum LookupVerdict: String, Sendable, Hashable, Codable {
    case match, review
    case nonMatch = "non_match"
}

public struct CandidateScore: Sendable, Hashable, Codable {
    public var score: Double
    public var verdict: LookupVerdict
    public var reasons: [String]
    /// Another candidate of the same answer, a different place, fits the question as well: the words
    /// typed cannot tell them apart ("Kalmari" for Kalmari Grill and Kalmari Pizzeria side by side).
    public var ambiguous: Bool
    /// One of several candidates named as typed, none near enough to be the one meant (a chain's branches):
    /// listed when no source answers better, without stopping the paid ones, which may know a nearer branch.
    public var branchBeyondReach: Bool

    public init(score: Double, verdict: LookupVerdict, reasons: [String] = [], ambiguous: Bool = false,
                branchBeyondReach: Bool = false) {
        self.score = score
        self.verdict = verdict
        self.reasons = reasons
        self.ambiguous = ambiguous
        self.branchBeyondReach = branchBeyondReach
    }

    private enum CodingKeys: String, CodingKey { case score, verdict, reasons, ambiguous, branchBeyondReach }

    /// Reads cache entries written before `ambiguous` or `branchBeyondReach` existed as neither.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        score = try container.decode(Double.self, forKey: .score)
        verdict = try container.decode(LookupVerdict.self, forKey: .verdict)
        reasons = try container.decode([String].self, forKey: .reasons)
        ambiguous = try container.decodeIfPresent(Bool.self, forKey: .ambiguous) ?? false
        branchBeyondReach = try container.decodeIfPresent(Bool.self, forKey: .branchBeyondReach) ?? false
    }
}

public enum CacheStatus: String, Sendable, Hashable, Codable {
    case hit, miss, stale
}

/// Why the pipeline stopped asking providers.
public enum StopReason: String, Sendable, Hashable, Codable {
    /// A confident match with every requested field.
    case accepted
    case cacheHit = "cache_hit"
    /// Every usable provider was asked.
    case chainExhausted = "chain_exhausted"
    /// Every provider failed and an expired entry was served.
    case staleServed = "stale_served"
    /// Several cheap candidates, different places, fit the question equally well, so no paid provider
    /// was asked: it would answer with its own guess among them, which settles nothing. The answer is
    /// `review`, with every fitting place in ``LookupOutcome/ambiguousCandidates``.
    case ambiguous
}

/// One candidate as `--explain` shows it.
public struct ExplainedCandidate: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public var distanceMeters: Double?
    public var score: CandidateScore
}

/// One step of a lookup, for `--explain`. Plain values so the server can return them too.
public struct LookupStep: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable {
        case cache, skipped, budgetDenied = "budget_denied", called, failed, accepted, merged, stopped
        /// A free id probe before a paid call (``LookupPipeline``): how many places the words fit.
        case probed
    }

    public var kind: Kind
    public var provider: String?
    public var message: String
    public var cost: MicroDollars?
    public var candidates: [ExplainedCandidate]

    public init(_ kind: Kind, provider: String? = nil, _ message: String, cost: MicroDollars? = nil,
                candidates: [ExplainedCandidate] = []) {
        self.kind = kind
        self.provider = provider
        self.message = message
        self.cost = cost
        self.candidates = candidates
    }

    public var description: String {
        var line = "\(kind.rawValue)"
        if let provider { line += " \(provider)" }
        line += ": \(message)"
        if let cost { line += " [cost \(cost)]" }
        for c in candidates {
            let distance = c.distanceMeters.map { String(format: ", %.0f m", $0) } ?? ""
            line += String(format: "\n    %@ %@ (%@%@) score %.3f %@", c.score.verdict.rawValue, c.name, c.id, distance,
                           c.score.score, c.score.reasons.isEmpty ? "" : "— " + c.score.reasons.joined(separator: "; "))
        }
        return line
    }
}

/// The answer to one lookup.
public struct LookupOutcome: Sendable, Hashable {
    /// The merged place; `nil` when no provider knew a plausible candidate.
    public var place: Place?
    /// The score of the answer against the question (`match` when accepted, `review` when only a doubtful candidate was found).
    public var match: CandidateScore?
    /// Money this lookup reserved (zero for cache hits and for calls inside a free allowance).
    public var cost: MicroDollars
    public var cache: CacheStatus
    /// A paid provider was skipped because a limit or `--max-cost` would have been exceeded.
    public var budgetExhausted: Bool
    /// Why a paid provider was skipped, for the stderr note.
    public var budgetNote: String?
    public var stopReason: StopReason
    /// Upstream calls made by this lookup, per provider.
    public var calls: [String: Int]
    /// Provider failures, already redacted, in the order they happened.
    public var failures: [ProviderFailure]
    /// The failures as one line each ("yelp: 503 UNAVAILABLE after 2 retries"), as JSON shows them.
    public var errors: [String] { failures.map(\.description) }
    /// The provider whose candidate is the answer (the first to match, or the one with the doubtful
    /// candidate), "cache" for a cache hit; `nil` without an answer.
    public var answeredBy: String?
    /// Shared another identical lookup's upstream work (single-flight); its cost was counted there.
    public var coalesced: Bool
    public var steps: [LookupStep]
    /// When the question is ambiguous: every place that fits it equally well, best first (``place`` is the
    /// first), for the "did you mean" line. Empty otherwise.
    public var ambiguousCandidates: [Place] = []
    /// Free id probes this lookup made, per provider (``LookupPipeline``'s probe before paying); not in ``calls``,
    /// which counts the calls that return places.
    public var probes: [String: Int] = [:]

    public var isAccepted: Bool { match?.verdict == .match && place != nil }

}

/// A provider that failed during a lookup, and what it said (already redacted).
public struct ProviderFailure: Sendable, Hashable, CustomStringConvertible {
    public var provider: String
    public var message: String

    public init(provider: String, message: String) {
        self.provider = provider
        self.message = message
    }

    public var description: String { "\(provider): \(message)" }
}

/// What the cache stores for a lookup: the answer without the per-run details.
struct CachedLookup: Codable, Sendable {
    var place: Place?
    var match: CandidateScore?
    /// Absent in entries written before ambiguous answers were kept.
    var ambiguousCandidates: [Place]?
}
