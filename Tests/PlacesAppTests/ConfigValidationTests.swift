import Foundation
import PlacesConfig
import PlacesCore
import Testing

/// Issue 16 item 8: values that make no sense and misspelt names are errors that say what to write instead.
@Suite struct ConfigValidationTests {
    func problem(_ toml: String) -> String? {
        do {
            _ = try PipelineSettings(configuration: PlacesConfiguration.parse(toml))
            return nil
        } catch {
            return error.message
        }
    }

    @Test(arguments: [
        ("[providers.google]\nrate_limit_per_s = 0", "rate_limit_per_s must be a positive number"),
        ("[providers.yelp]\nmax_attempts = 1e19", "max_attempts must be a whole number from 1 to 10"),
        ("[providers.yelp]\nmax_body_mb = 0", "max_body_mb must be a positive number of MiB"),
        ("[budget]\ndaily_usd = -1", "daily_usd must be a number of dollars from 0 to 1000000000"),
        ("[budget]\nmonthly_usd = 1e300", "monthly_usd must be a number of dollars"),
        ("[cache]\ngrid_meters = 0", "grid_meters must be a number of metres from 0.01 to 100000"),
        ("[cache]\nmax_size_mb = 1e19", "max_size_mb must be a number of MiB"),
        ("[cache]\nnegative_ttl = \"1e300d\"", "negative_ttl must be seconds or a duration"),
        ("[pipeline]\naccept_threshold = 5", "accept_threshold must be a matcher score from 0.01 to 1"),
        ("[pipeline]\nreview_threshold = 0.9\naccept_threshold = 0.8", "review_threshold 0.9 must not be above accept_threshold 0.8"),
        ("[pipeline]\nbatch_concurrency = 1e19", "batch_concurrency must be a number of lookups in flight from 1 to 256"),
        ("[pipeline]\nchain = []", "chain must name at least one provider"),
        // Misspelt names get the nearest known one.
        ("[pipline]\nchain = [\"local\"]", "unknown section 'pipline' (did you mean 'pipeline'?)"),
        ("[cache]\ngrid_metres = 50", "unknown key 'grid_metres' (did you mean 'grid_meters'?)"),
        ("[pipeline]\nchain = [\"local\", \"nosuch\"]", "unknown provider 'nosuch'"),
        ("[pipeline]\nchain = [\"local\", \"gogle\"]", "unknown provider 'gogle' (did you mean 'google'?)"),
        ("[providers.google]\ntimout_s = 5", "unknown key 'timout_s' (did you mean 'timeout_s'?)"),
        ("[budget.providers.yelpp]\ndaily_usd = 1", "unknown provider 'yelpp' (did you mean 'yelp'?)"),
        ("pipeline = 5", "'pipeline' must be a [pipeline] section"),
    ])
    func outOfRangeValuesAndMisspeltNamesAreErrors(toml: String, message: String) {
        let found = problem(toml)
        #expect(found?.contains(message) == true, "\(toml) → \(found ?? "accepted")")
    }

    @Test func theTemplatesAreStillValid() throws {
        let text = ProvidersConfigTemplate.text + "\n" + PipelineConfigTemplate.text
        #expect(problem(text) == nil)
    }
}
