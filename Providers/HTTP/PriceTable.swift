import Foundation
import PlacesCore

/// A provider's price list by SKU name, as defaults that config overrides figure by figure.
///
/// Prices change, so none is a hard-coded truth: `[providers.google.prices]` in `config.toml`
/// replaces any entry ("details.enterprise" = 20.0 dollars per 1,000 calls).
public struct PriceTable: Sendable, Hashable {
    /// The provider prefix of every SKU name (`google` in `google.details.pro`).
    public var provider: String
    /// Cost of one call, keyed by the SKU name without the provider prefix (`details.pro`).
    public var perCall: [String: MicroDollars]

    public init(provider: String, perCall: [String: MicroDollars]) {
        self.provider = provider
        self.perCall = perCall
    }

    /// Builds a table from "$ per 1,000 calls", the unit providers publish.
    public init(provider: String, dollarsPerThousand: [String: Double]) {
        self.init(provider: provider, perCall: dollarsPerThousand.mapValues { MicroDollars.perThousand(dollars: $0) })
    }

    /// Returns a copy with `overrides` (dollars per 1,000, keyed by short SKU) replacing the defaults.
    public func overriding(dollarsPerThousand overrides: [String: Double]) -> PriceTable {
        var copy = self
        for (sku, dollars) in overrides {
            let short = sku.hasPrefix(provider + ".") ? String(sku.dropFirst(provider.count + 1)) : sku
            copy.perCall[short] = MicroDollars.perThousand(dollars: dollars)
        }
        return copy
    }

    /// The quote for `sku` (short name); an unknown SKU costs nothing rather than crashing a lookup.
    public func quote(_ sku: String) -> PriceQuote {
        PriceQuote(sku: "\(provider).\(sku)", cost: perCall[sku] ?? .zero)
    }
}

/// Encodes a request body the way JSON APIs expect: no escaped slashes, stable key order.
public enum JSONBody {
    public static func encode<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Request bodies are our own plain structs; encoding them cannot fail.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}
