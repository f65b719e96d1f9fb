import FakeUpstream
import Foundation
import GoogleProvider
import PlacesCore
import ProviderHTTP
import Testing
import YelpProvider

/// Each failure becomes one typed, one-line error naming the provider and the cause, and the key
/// never appears in it, even when the upstream echoes it back.
@Suite("Provider errors")
struct ProviderErrorTests {
    let query = SearchQuery(text: "Blue Bottle Coffee", near: blueBottle)

    func google(_ fake: FakeUpstream, key: String = FakeRoutes.testKey, timeout: Double = FakeUpstream.answerWithinSeconds) -> GoogleProvider {
        GoogleProvider(client: makeClient("google", fake: fake, key: key, timeout: timeout, errorReader: GoogleProvider.errorReader))
    }

    @Test func rejectedKeyNamesStatusAndWhatToDoWithoutTheKey() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        defer { Task { await fake.shutdown() } }
        let wrongKey = "AIzaSyWRONG-secret-key-123"
        let error = try #require(await providerError { _ = try await google(fake, key: wrongKey).search(query) })
        #expect(error.kind == .authentication)
        #expect(error.description == "google: API key rejected (403 PERMISSION_DENIED); set a valid key in GOOGLE_API_KEY")
        #expect(!"\(error)".contains(wrongKey))
        #expect(!String(reflecting: error).contains(wrongKey))
        // The fake did echo it back, so the scrubbing was needed.
        #expect(fake.requests.first?.header("X-Goog-Api-Key") == wrongKey)
    }

    @Test func echoedKeyInABadRequestMessageIsScrubbed() async throws {
        let key = "AIzaSyECHOED-0123456789"
        let fake = try await FakeUpstream.start { _ in
            .json(FakeRoutes.googleError(400, "INVALID_ARGUMENT", "Invalid value at 'text_query' for key=\(key) and key%3D\(key)"), status: 400)
        }
        defer { Task { await fake.shutdown() } }
        let error = try #require(await providerError { _ = try await google(fake, key: key).search(query) })
        #expect(error.kind == .badRequest)
        #expect(error.message.contains("[REDACTED]"))
        #expect(!error.description.contains(key))
    }

    @Test func googleInvalidKeyAs400IsAnAuthenticationError() async throws {
        let fake = try await FakeUpstream.start { _ in
            .json(#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}"#, status: 400)
        }
        defer { Task { await fake.shutdown() } }
        let error = await providerError { _ = try await google(fake).search(query) }
        #expect(error?.kind == .authentication)
        #expect(error?.description.hasPrefix("google: API key rejected (400 INVALID_ARGUMENT)") == true)
    }

    @Test func slowReplyIsATimeout() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        defer { Task { await fake.shutdown() } }
        fake.enqueue(.slow(3, then: .json(FakeFixtures.googleSearchText)))
        let error = await providerError { _ = try await google(fake, timeout: 0.4).search(query) }
        #expect(error?.kind == .timeout)
        #expect(error?.message.hasPrefix("no answer within 0.4 s") == true)
        #expect(error?.message.contains("timeout_s") == true)
    }

    @Test func resetConnectionIsATransportError() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        defer { Task { await fake.shutdown() } }
        fake.enqueue(.reset)
        let error = await providerError { _ = try await google(fake).search(query) }
        #expect(error?.kind == .transport)
        #expect(error?.message.contains("could not reach 127.0.0.1") == true)
    }

    @Test func nonJSONBodyIsMalformed() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        defer { Task { await fake.shutdown() } }
        fake.enqueue(.malformedJSON())
        let error = await providerError { _ = try await google(fake).search(query) }
        #expect(error?.kind == .malformedResponse)
        #expect(error?.message.hasPrefix("reply is not JSON (200") == true)
        #expect(error?.wasBilled == true)
    }

    @Test func wrongShapeJSONSaysWhatIsMissing() async throws {
        let fake = try await FakeUpstream.start { _ in .json(#"{"places":[{"id":"ChIJ1","displayName":{"text":"X"}}]}"#) }
        defer { Task { await fake.shutdown() } }
        let error = await providerError { _ = try await google(fake).search(query) }
        #expect(error?.kind == .malformedResponse)
        #expect(error?.message.contains("places[0].location missing") == true)
    }

    @Test func serverErrorAfterRetries() async throws {
        let fake = try await FakeUpstream.start { _ in .serverError(503) }
        defer { Task { await fake.shutdown() } }
        let error = await providerError { _ = try await google(fake).search(query) }
        #expect(error?.kind == .server)
        #expect(fake.requests.count == 3)
    }

    @Test func quotaFromFoursquareStyle402() async throws {
        let fake = try await FakeUpstream.start { _ in .json(#"{"message":"No API credits remaining"}"#, status: 402) }
        defer { Task { await fake.shutdown() } }
        let yelp = YelpProvider(client: makeClient("yelp", fake: fake, errorReader: YelpProvider.errorReader))
        let error = await providerError { _ = try await yelp.search(query) }
        #expect(error?.kind == .quotaExhausted)
    }

    @Test func connectionRefusedIsATransportError() async throws {
        let fake = try await FakeUpstream.start()
        await fake.shutdown()
        let error = await providerError { _ = try await google(fake).search(query) }
        #expect(error?.kind == .transport)
    }
}
