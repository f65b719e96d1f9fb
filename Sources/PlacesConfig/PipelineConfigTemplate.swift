/// The commented `[pipeline]`, `[cache]` and `[budget]` part of the file `places config init` writes.
/// Every value shown is the built-in default, so deleting a line changes nothing.
public enum PipelineConfigTemplate {
    public static let text = """
        # ── Lookup pipeline ─────────────────────────────────────────────────────────
        [pipeline]
        # Providers to try for `places lookup`. Free ones are always asked before paid ones;
        # providers without a key are skipped.
        chain = ["local", "nominatim", "foursquare", "yelp", "google"]
        # A candidate scoring at least accept_threshold is accepted; between review_threshold and
        # accept_threshold it is shown as "review" and the next provider is asked.
        accept_threshold = 0.8
        review_threshold = 0.6
        # Rows looked up at once by `places lookup --batch`.
        batch_concurrency = 8
        # A name several nearby places fit equally ("Kalmari" beside Kalmari Grill and Kalmari
        # Pizzeria) is answered "not sure" with the places that fit, without paying: a paid provider
        # would only guess. true asks the paid providers anyway (`places lookup --pay-when-ambiguous`).
        pay_when_ambiguous = false

        # When several providers describe the same place, each field comes from the first provider
        # in its list that has it ("default" covers every field not listed).
        [pipeline.field_preference]
        default = ["google", "yelp", "foursquare", "nominatim", "local"]
        hours = ["google", "yelp", "foursquare", "nominatim", "local"]
        phone = ["google", "yelp", "foursquare", "nominatim", "local"]
        coordinate = ["local", "nominatim", "google", "yelp", "foursquare"]

        # ── Lookup cache (safe to delete; `places cache purge`) ─────────────────────
        [cache]
        # Coordinates in cache keys snap to a grid of this many metres, so nearby repeats hit.
        grid_meters = 100
        # The longest an answer is kept. A provider's terms may shorten it (Yelp 24 h,
        # Foursquare: ids only, so its content is not cached).
        answer_ttl = "7d"
        # How long "no such place" is remembered. Provider errors are never cached.
        negative_ttl = "6h"
        max_size_mb = 64

        # ── Spending limits (US dollars; `places budget`, `places budget set`) ──────
        [budget]
        # Days and months are calendar periods in this zone (default: the system's).
        # time_zone = "Europe/Helsinki"
        daily_usd = 1.0
        monthly_usd = 10.0

        # Per-provider limits, on top of the overall ones:
        # [budget.providers.google]
        # daily_usd = 0.50
        # monthly_usd = 5.00

        # Calls per calendar month each SKU gives for free (Google's allowances, late 2025).
        [budget.free_calls_per_month]
        "google.details.essentials" = 10000
        "google.details.pro" = 5000
        "google.details.enterprise" = 1000
        "google.search.pro" = 5000
        "google.search.enterprise" = 1000
        "google.nearby.pro" = 5000
        "google.nearby.enterprise" = 1000
        "google.autocomplete" = 10000

        """
}
