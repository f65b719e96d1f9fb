import Foundation
@testable import PlacesConfig
import PlacesCore
import ScratchDirectory
import Testing

@Suite("config.toml")
struct ConfigurationTests {
    func temporaryFile(_ text: String) throws -> URL {
        let url = try ScratchDirectory.lastingTheProcess("places-config").appendingPathComponent("config.toml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func missingFileMeansDefaults() throws {
        let configuration = try PlacesConfiguration.load(from: URL(fileURLWithPath: "/nonexistent/places/config.toml"))
        #expect(!configuration.fileExists)
        let google = configuration.settings(for: "google")
        #expect(google.enabled && google.apiKeyEnv == "GOOGLE_PLACES_API_KEY")
        #expect(google.baseURL.absoluteString == "https://places.googleapis.com")
        #expect(configuration.settings(for: "yelp").apiKeyEnv == "YELP_API_KEY")
        #expect(configuration.settings(for: "foursquare").apiKeyEnv == "FOURSQUARE_API_KEY")
        #expect(configuration.settings(for: "nominatim").rateLimitPerSecond == 1)
    }

    @Test func readsProviderSectionsWithPricesAndCacheLimits() throws {
        let url = try temporaryFile("""
            [providers.google]
            enabled = true
            api_key_env = "MY_GOOGLE_KEY"
            base_url = "http://127.0.0.1:8080"
            timeout_s = 2.5
            rate_limit_per_s = 3

            [providers.google.prices]
            "details.enterprise" = 25

            [providers.google.cache_limits]
            content_s = 3600

            [providers.yelp]
            enabled = false

            [providers.nominatim]
            contact = "ops@example.com"
            """)
        let configuration = try PlacesConfiguration.load(from: url)
        let google = configuration.settings(for: "google")
        #expect(google.apiKeyEnv == "MY_GOOGLE_KEY" && google.timeout == 2.5 && google.rateLimitPerSecond == 3)
        #expect(google.baseURL.port == 8080)
        #expect(google.prices == ["details.enterprise": 25])
        let terms = google.cacheLimits.applied(to: CacheTerms(ids: 10, coordinates: 20, content: 86_400))
        #expect(terms == CacheTerms(ids: 10, coordinates: 20, content: 3600))
        #expect(!configuration.settings(for: "yelp").enabled)
        #expect(configuration.settings(for: "nominatim").contact == "ops@example.com")
    }

    @Test func badTOMLNamesTheFileAndLine() throws {
        let url = try temporaryFile("[providers.google]\nenabled = true\ntimeout_s = = 5\n")
        #expect {
            try PlacesConfiguration.load(from: url)
        } throws: { error in
            let message = (error as? InputError)?.message ?? ""
            return message.hasPrefix("\(url.path):3: invalid TOML")
        }
    }

    /// Found by the config fuzzer: toml++ asserted (and aborted the process) on these table headers.
    @Test(arguments: [("[é]\n", 1), ("[[é]]\n", 1), ("[providers.google]\nenabled = true\n[.google]\n", 3),
                      ("[\n", 1), ("[ +a]\n", 1), ("[[[a]]]\n", 1), ("[[ [a]]\n", 1), ("# [é]\nx = \"\"\"\n[é\n\"\"\"\n[!]\n", 5)])
    func tableNamesNoKeyCanStartWithAreRefusedWithTheirLine(text: String, line: Int) {
        #expect {
            try PlacesConfiguration.parse(text)
        } throws: { error in
            (error as? InputError)?.message.hasPrefix("config.toml:\(line): invalid TOML: a table name must start with") == true
        }
    }

    /// Also found by the config fuzzer: toml++ took these for date-times and asserted on the non-digit.
    @Test(arguments: ["when = 2026-05-01Tx09:15:00Z\n", "when = [2026-05-01T-09:15]\n", "a = { b = 2026-05-01T\u{FFFD}09:15 }\n"])
    func malformedDateTimesAreRefusedWithTheirLine(text: String) {
        #expect {
            try PlacesConfiguration.parse(text)
        } throws: { error in
            (error as? InputError)?.message.hasPrefix("config.toml:1: invalid TOML: '") == true
        }
    }

    /// Found by the config fuzzer in a CI-style run: toml++ asserted on a closer or a comma where a value belongs.
    @Test(arguments: ["pipeline.chain = [}local\"]\n", "a = [1, }\n", "a = {b = 1]\n", "a = ]\n", "a = [,]\n", "a = ,\n"])
    func closersAndCommasWhereAValueBelongsAreRefusedWithTheirLine(text: String) {
        #expect {
            try PlacesConfiguration.parse(text)
        } throws: { error in
            (error as? InputError)?.message.hasPrefix("config.toml:1: invalid TOML: ") == true
        }
    }

    @Test func bracketsDatesAndKeysTheScanMustNotMistakeAreLeftToTOML() {
        let text = #"""
            a = [
              [ {b = 1} ],
              [+1, 07:32:00, 1979-05-27, 1979-05-27T07:32:00.5+02:00, 1979-05-27 07:32:00Z],
            ]
            s = """
            [é
            """
            t = '[é'
            # [é]
            ["é"]
            2026-05-01 = "a key that looks like a date"
            [ 'x' ]
            [[y]]
            u = "12:ab"
            """#
        #expect(TOMLPreflight.firstProblem(in: text) == nil)
    }

    @Test func wrongTypesAndUnknownKeysSayWhatIsExpected() {
        #expect(throws: InputError("config.toml: [providers.google] timeout_s must be a positive number of seconds, at most 300")) {
            try PlacesConfiguration.parse("[providers.google]\ntimeout_s = \"fast\"")
        }
        #expect(throws: InputError.self) { try PlacesConfiguration.parse("[providers.google]\ntimeout = 5") }
        #expect(throws: InputError.self) { try PlacesConfiguration.parse("[providers.yelp]\nbase_url = \"ftp://x\"") }
    }

    @Test func showNeverPrintsAKey() throws {
        let secret = "AIzaSyTOPSECRET-0123456789"
        let configuration = try PlacesConfiguration.parse("""
            [providers.google]
            api_key = "\(secret)"

            [budget]
            daily_limit_dollars = 1.5
            webhook_token = "\(secret)"
            """)
        let shown = configuration.redactedDescription
        #expect(!shown.contains(secret))
        #expect(shown.contains("api_key = \"[REDACTED]\""))
        #expect(shown.contains("webhook_token = \"[REDACTED]\""))
        #expect(shown.contains("[budget]\ndaily_limit_dollars = 1.5"))
        #expect(shown.contains("api_key_env = \"GOOGLE_PLACES_API_KEY\""))
    }

    @Test func otherModulesDecodeTheirOwnSections() throws {
        struct PipelineSettings: ConfigSection, Equatable {
            static let sectionName = "pipeline"
            var gridM: Double
            var order: [String]
        }
        struct Absent: ConfigSection { static let sectionName = "nothing.here" }
        let configuration = try PlacesConfiguration.parse("[pipeline]\ngrid_m = 50\norder = [\"local\", \"yelp\"]\n")
        #expect(try configuration.section(PipelineSettings.self) == PipelineSettings(gridM: 50, order: ["local", "yelp"]))
        #expect(try configuration.section(Absent.self) == nil)
        #expect(configuration.value(at: "pipeline.grid_m")?.number == 50)
        let wrong = try PlacesConfiguration.parse("[pipeline]\ngrid_m = \"big\"\norder = []\n")
        #expect(throws: InputError.self) { try wrong.section(PipelineSettings.self) }
    }

    @Test func environmentKeyWinsOverTheFileKey() throws {
        let configuration = try PlacesConfiguration.parse("[providers.yelp]\napi_key = \"from-file\"\n")
        let yelp = configuration.settings(for: "yelp")
        #expect(yelp.resolvedAPIKey(environment: ["YELP_API_KEY": "from-env"]) == "from-env")
        #expect(yelp.resolvedAPIKey(environment: [:]) == "from-file")
    }

    @Test func theProvidersTemplateParsesToTheDefaults() throws {
        let configuration = try PlacesConfiguration.parse(ProvidersConfigTemplate.text)
        let defaults = try PlacesConfiguration()
        for name in PlacesConfiguration.networkProviders {
            #expect(configuration.settings(for: name) == defaults.settings(for: name), "\(name)")
        }
    }
}
