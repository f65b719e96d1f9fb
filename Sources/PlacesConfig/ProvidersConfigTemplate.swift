/// The `[providers.*]` part of a commented default `config.toml` (for `places config init`).
public enum ProvidersConfigTemplate {
    public static let text = """
        # Network providers. Keys stay in environment variables (api_key_env); api_key = "…" also works
        # but puts the secret in this file. Prices are dollars per 1,000 calls by SKU; cache_limits are seconds.

        [providers.google]
        enabled = true
        api_key_env = "GOOGLE_PLACES_API_KEY"
        base_url = "https://places.googleapis.com"
        timeout_s = 5
        rate_limit_per_s = 10
        # [providers.google.prices]
        # "details.pro" = 17
        # "details.enterprise" = 20
        # "search.pro" = 32
        # "search.enterprise" = 35
        # "autocomplete" = 2.83
        # [providers.google.cache_limits]
        # content_s = 86400

        [providers.yelp]
        enabled = true
        api_key_env = "YELP_API_KEY"
        base_url = "https://api.yelp.com"
        timeout_s = 5
        rate_limit_per_s = 5
        # [providers.yelp.prices]
        # "call" = 9.99

        [providers.foursquare]
        enabled = true
        api_key_env = "FOURSQUARE_API_KEY"
        base_url = "https://places-api.foursquare.com"
        timeout_s = 5
        rate_limit_per_s = 20
        # [providers.foursquare.prices]
        # "pro" = 15
        # "premium" = 18.75

        [providers.nominatim]
        enabled = true
        base_url = "https://nominatim.openstreetmap.org"
        timeout_s = 10
        # Required by Nominatim's usage policy: an email or URL that identifies you.
        # contact = "you@example.com"

        """
}
