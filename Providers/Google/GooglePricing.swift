import Foundation
import PlacesCore
import ProviderHTTP

extension GoogleProvider {
    /// Google's list prices (late 2025), dollars per 1,000 calls, by SKU. Override any of them under
    /// `[providers.google.prices]`. Text and Nearby Search bill Essentials fields as Pro.
    public static let defaultPrices = PriceTable(provider: "google", dollarsPerThousand: [
        "details.ids-only": 0, "details.essentials": 5, "details.pro": 17, "details.enterprise": 20,
        "search.ids-only": 0, "search.essentials": 32, "search.pro": 32, "search.enterprise": 35,
        "nearby.essentials": 32, "nearby.pro": 32, "nearby.enterprise": 35,
        "autocomplete": 2.83,
    ])

    /// Place ids may be kept indefinitely (refresh after 12 months), coordinates 30 days; other
    /// content only briefly, so the default is one day. Every figure can be overridden in config.
    public static let defaultCacheTerms = CacheTerms(ids: 365 * 86_400, coordinates: 30 * 86_400, content: 86_400)

    public func price(of operation: ProviderOperation, fields: Set<PlaceField>) -> PriceQuote {
        let tier = GoogleFieldMask.tier(for: fields)
        switch operation {
        case .search, .match: return prices.quote("search.\(tier.skuSuffix)")
        case .nearby: return prices.quote("nearby.\(tier.skuSuffix)")
        case .details: return prices.quote("details.\(tier.skuSuffix)")
        case .suggest: return prices.quote("autocomplete")
        case .probe: return prices.quote("search.ids-only")
        case .reverse: return .free
        }
    }
}
