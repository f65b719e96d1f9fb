import Foundation
import PlacesCore

/// The money ledger's whole contract: every paid call is reserved here before it is made. Any
/// implementation (SQLite today, PostgreSQL next) must pass the shared contract suite in
/// `Tests/BudgetLedgerTests/BudgetLedgerContract.swift`.
///
/// What every implementation guarantees:
/// - **Atomic reservation.** ``reserve(provider:quote:)`` checks every limit and records the charge as one
///   atomic step against every other reservation, in this process or any other sharing the store: with a
///   budget of N calls, exactly N reservations succeed however many race for them. Never overspend.
/// - **Limits.** A call is denied when it would take the provider's or the overall spend past a per-day
///   or per-month limit (equal to the limit is allowed). Checked in this order: provider/day, provider/month,
///   overall/day, overall/month; the first that fails is the denial. A limit set with ``setLimits(provider:perDay:perMonth:)``
///   wins over the configured ``BudgetPolicy``; `.some(nil)` stores "no cap", which also wins.
/// - **Windows.** Days and months are calendar periods in ``BudgetPolicy/timeZone`` (``BudgetPolicy/periodKeys(for:)``),
///   read from the implementation's clock at reservation time.
/// - **Free tiers.** While a SKU has used fewer than ``BudgetPolicy/freeCallsPerMonth`` calls this month
///   (refunded calls not counted), a reservation costs zero and is never denied; it still counts as a call.
/// - **Free calls** (a quote of zero) are granted without being recorded: their reservation's id is `0`,
///   and settling or refunding it does nothing.
/// - **Settle** keeps the charge; **refund** gives it back (money and free-tier call). Both are idempotent;
///   refunding after settling still refunds (the provider said it did not bill).
/// - A reservation never settled nor refunded (the process died mid-call) stays counted: it errs on the
///   side of the user's wallet.
///
/// ```swift
/// let ledger: any BudgetLedger = try SQLiteBudgetLedger(path: env.budgetDatabase, policy: policy)
/// switch try await ledger.reserve(provider: "google", quote: google.price(of: .match, fields: fields)) {
/// case .granted(let reservation): … call … try await ledger.settle(reservation) or ledger.refund(reservation)
/// case .denied(let why): … skip google, flag budget_exhausted …
/// }
/// ```
public protocol BudgetLedger: Sendable {
    /// The configured limits, time zone and free tiers (limits set with ``setLimits(provider:perDay:perMonth:)`` are stored, not here).
    var policy: BudgetPolicy { get }

    /// Reserves the price of one call, or says which limit forbids it.
    func reserve(provider: String, quote: PriceQuote) async throws -> ReservationOutcome

    /// The call was answered: the charge stays.
    func settle(_ reservation: Reservation) async throws

    /// The call failed and the provider does not bill failures: the money (and the free-tier call) comes back.
    func refund(_ reservation: Reservation) async throws

    /// Persists limits for one provider (or overall when `provider` is nil); a `nil` period is left as it was.
    /// Pass `.some(nil)` to remove a cap.
    func setLimits(provider: String?, perDay: MicroDollars??, perMonth: MicroDollars??) async throws

    /// Today's and this month's figures for every provider that is configured, limited or has spent this month.
    func report() async throws -> BudgetReport
}

