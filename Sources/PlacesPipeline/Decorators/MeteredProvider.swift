import BudgetLedger
import Foundation
import Logging
import PlacesCore

/// A provider that wraps another one. Decorators forward what they do not change, so a chain of them is
/// still one ``PlaceProvider`` and the innermost provider can be found (``innermost(_:)``).
public protocol ProviderDecorator: PlaceProvider {
    var wrapped: any PlaceProvider { get }
}

extension ProviderDecorator {
    public var name: String { wrapped.name }
    public var capabilities: ProviderCapabilities { wrapped.capabilities }
    public var cacheTerms: CacheTerms { wrapped.cacheTerms }
    public func price(of operation: ProviderOperation, fields: Set<PlaceField>) -> PriceQuote {
        wrapped.price(of: operation, fields: fields)
    }
}

/// The metering layer of a decorated provider, wherever it sits in the chain of decorators.
func meteringLayer(of provider: any PlaceProvider) -> MeteredProvider? {
    var current: any PlaceProvider = provider
    while true {
        if let metered = current as? MeteredProvider { return metered }
        guard let decorator = current as? any ProviderDecorator else { return nil }
        current = decorator.wrapped
    }
}

/// What one call cost, as the ledger recorded it.
public struct Charge: Sendable, Hashable {
    /// The provider's quote before the call (SKU and list price).
    public var quote: PriceQuote
    /// What was charged: zero when a free monthly allowance covered the call.
    public var cost: MicroDollars
    /// A free allowance (`[budget.free_calls_per_month]`) paid for this call.
    public var coveredByFreeAllowance: Bool
}

/// A value and what it cost to get.
public struct Charged<Value: Sendable>: Sendable {
    public var value: Value
    public var charge: Charge
}

/// A paid call the budget did not allow. Nothing was sent upstream.
public struct BudgetDenied: Error, Sendable, Hashable, CustomStringConvertible {
    public var provider: String
    public var quote: PriceQuote
    public var denial: BudgetDenial

    public var description: String { "\(provider) skipped: \(denial)" }
}

/// A metered call that failed upstream, with what the ledger kept: a failure the provider bills for stays
/// charged, any other is refunded. ``underlying`` is the provider's own error.
public struct MeteredCallFailure: Error, Sendable {
    public var provider: String
    public var underlying: any Error
    /// What was reserved before the call.
    public var reserved: MicroDollars
    /// The provider bills this failure, so the reservation was settled rather than refunded.
    public var billed: Bool
}

/// Reserves every call's price in the ``BudgetLedger`` before it is made, settles it when the provider
/// answers (or bills the failure) and refunds it otherwise, and logs each charge. The provider factory
/// wraps every network provider in one, so no path to a paid provider can spend outside the budget.
///
/// ```swift
/// let google = MeteredProvider(GoogleProvider(client: client), ledger: ledger)
/// let places = try await google.search(query)           // throws BudgetDenied when a limit forbids it
/// ```
public struct MeteredProvider: ProviderDecorator {
    public let wrapped: any PlaceProvider
    public let ledger: any BudgetLedger
    private let logger: Logger?
    private let paidCalls: PaidCallMetrics

    public init(_ provider: any PlaceProvider, ledger: any BudgetLedger, logger: Logger? = nil) {
        wrapped = provider
        self.ledger = ledger
        self.logger = logger
        paidCalls = PaidCallMetrics(provider: provider.name)
    }

    /// Runs `call` on the wrapped provider inside a reservation for `operation`'s price.
    /// - Throws: ``BudgetDenied`` (nothing was sent), or ``MeteredCallFailure`` wrapping the provider's error.
    public func charged<Value: Sendable>(_ operation: ProviderOperation, fields: Set<PlaceField>,
                                         _ call: (any PlaceProvider) async throws -> Value) async throws -> Charged<Value> {
        let quote = wrapped.price(of: operation, fields: fields)
        let reservation: Reservation
        switch try await ledger.reserve(provider: name, quote: quote) {
        case .granted(let granted): reservation = granted
        case .denied(let denial):
            logger?.notice("budget denied a call", metadata: ["provider": "\(name)", "sku": "\(quote.sku)", "reason": "\(denial)"])
            throw BudgetDenied(provider: name, quote: quote, denial: denial)
        }
        let value: Value
        do {
            value = try await call(wrapped)
        } catch {
            let billed = (error as? ProviderError)?.wasBilled ?? false
            if billed {
                try await ledger.settle(reservation)
                if quote.cost > .zero { paidCalls.record(costMicroDollars: reservation.cost.value) }
            } else {
                try await ledger.refund(reservation)
            }
            if reservation.cost > .zero {
                logger?.info("paid call failed", metadata: [
                    "provider": "\(name)", "sku": "\(quote.sku)", "cost": "\(billed ? reservation.cost : .zero)",
                    "ledger": "\(billed ? "settled" : "refunded")"])
            }
            throw MeteredCallFailure(provider: name, underlying: error, reserved: reservation.cost, billed: billed)
        }
        try await ledger.settle(reservation)
        if quote.cost > .zero {
            paidCalls.record(costMicroDollars: reservation.cost.value)
            logger?.info("paid call", metadata: [
                "provider": "\(name)", "operation": "\(operation.rawValue)", "sku": "\(quote.sku)",
                "cost": "\(reservation.cost)", "free_allowance": "\(reservation.isFree)"])
        }
        return Charged(value: value, charge: Charge(quote: quote, cost: reservation.cost,
                                                    coveredByFreeAllowance: reservation.isFree))
    }

    /// A plain call: the provider's own error comes out, not the metering wrapper around it.
    private func call<Value: Sendable>(_ operation: ProviderOperation, fields: Set<PlaceField>,
                                       _ body: (any PlaceProvider) async throws -> Value) async throws -> Value {
        do {
            return try await charged(operation, fields: fields, body).value
        } catch let failure as MeteredCallFailure {
            throw failure.underlying
        }
    }

    public func search(_ query: SearchQuery) async throws -> [Place] {
        try await call(.search, fields: query.fields) { try await $0.search(query) }
    }

    public func nearby(_ query: NearbyQuery) async throws -> [Place] {
        try await call(.nearby, fields: query.fields) { try await $0.nearby(query) }
    }

    public func details(_ query: DetailsQuery) async throws -> Place? {
        try await call(.details, fields: query.fields) { try await $0.details(query) }
    }

    public func reverse(_ query: ReverseQuery) async throws -> ReverseGeocode? {
        try await call(.reverse, fields: PlaceField.defaultSet) { try await $0.reverse(query) }
    }

    public func suggest(_ query: SuggestQuery) async throws -> [Suggestion] {
        try await call(.suggest, fields: []) { try await $0.suggest(query) }
    }

    public func match(_ query: MatchQuery) async throws -> [Place] {
        try await call(.match, fields: query.fields) { try await $0.match(query) }
    }

    /// Metered like any call, at the provider's quote for a probe (Google's IDs-only search: $0), so a free
    /// probe still shows in the ledger's call counts and a priced one is still held to the budget.
    public func probe(_ query: ProbeQuery) async throws -> [String] {
        try await call(.probe, fields: [.id]) { try await $0.probe(query) }
    }
}
