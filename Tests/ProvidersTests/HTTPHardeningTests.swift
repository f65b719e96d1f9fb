import FakeUpstream
import Foundation
@testable import GoogleProvider
import PlacesCore
import ProviderHTTP
import Testing

/// Issue 16 item 2 and the size and reset parts of item 8, against fake upstreams on 127.0.0.1.
@Suite("HTTP: redirects, reply size, cut connections")
struct HTTPHardeningTests {
    /// A provider that answers every request with a redirect to `other`, where a thief would wait.
    func redirecting(status: Int) async throws -> (fake: FakeUpstream, other: FakeUpstream) {
        let other = try await FakeUpstream.start(handler: FakeRoutes.google())
        let fake = try await FakeUpstream.start { _ in .redirect(to: "http://127.0.0.1:\(other.port)/v1/places:searchText?via=redirect", status: status) }
        return (fake, other)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func aRedirectToAnotherHostIsRefusedAndTheKeyNeverGoesThere(status: Int) async throws {
        let (fake, other) = try await redirecting(status: status)
        defer { Task { await fake.shutdown(); await other.shutdown() } }
        let google = GoogleProvider(client: makeClient("google", fake: fake, errorReader: GoogleProvider.errorReader))
        let error = await providerError { _ = try await google.search(SearchQuery(text: "Blue Bottle Coffee", near: blueBottle)) }
        #expect(error?.kind == .redirected)
        #expect(error?.description.contains("answered \(status), a redirect to http://127.0.0.1:\(other.port)") == true, "\(String(describing: error))")
        #expect(error?.description.contains(FakeRoutes.testKey) == false)
        #expect(fake.requests.count == 1, "a redirect is not retried")
        #expect(fake.requests.first?.header("X-Goog-Api-Key") == FakeRoutes.testKey)
        #expect(other.requests.isEmpty, "the other host got \(other.requests.map(\.uri))")
    }

    @Test func aRedirectIsNotBilled() async throws {
        let (fake, other) = try await redirecting(status: 302)
        defer { Task { await fake.shutdown(); await other.shutdown() } }
        let error = await providerError { _ = try await makeClient("google", fake: fake).send(HTTPRequest(method: .get, url: fake.baseURL)) }
        #expect(error?.wasBilled == false)
    }

    @Test func aReplyOverTheCapIsRefused() async throws {
        let big = Data(repeating: UInt8(ascii: " "), count: 9 << 20)
        let fake = try await FakeUpstream.start { _ in FakeReply(status: 200, headers: ["Content-Type": "application/json"], body: big) }
        defer { Task { await fake.shutdown() } }
        let error = await providerError { _ = try await makeClient("google", fake: fake).send(HTTPRequest(method: .get, url: fake.baseURL)) }
        #expect(error?.kind == .malformedResponse)
        #expect(error?.description.contains("larger than 8 MiB") == true, "\(String(describing: error))")
        #expect(error?.description.contains("max_body_mb") == true)
    }

    @Test func theCapIsConfigurable() async throws {
        let fake = try await FakeUpstream.start { _ in .json(String(repeating: " ", count: 4_096) + "{}") }
        defer { Task { await fake.shutdown() } }
        let small = makeClient("yelp", fake: fake, maxBodyBytes: 1_024)
        let error = await providerError { _ = try await small.send(HTTPRequest(method: .get, url: fake.baseURL)) }
        #expect(error?.description.contains("larger than 1 KiB") == true, "\(String(describing: error))")
        let roomy = makeClient("yelp", fake: fake, maxBodyBytes: 8_192)
        #expect(try await roomy.send(HTTPRequest(method: .get, url: fake.baseURL)).body.count == 4_098)
    }

    @Test func aConnectionCutMidBodyIsNotCalledUnreachable() async throws {
        let body = Data(("{\"places\": [" + String(repeating: " ", count: 50_000) + "]}").utf8)
        let fake = try await FakeUpstream.start { _ in
            .cutMidBody(FakeReply(status: 200, headers: ["Content-Type": "application/json"], body: body), after: 20_000)
        }
        defer { Task { await fake.shutdown() } }
        let client = makeClient("google", fake: fake, retry: RetryPolicy(maxAttempts: 1))
        let error = await providerError { _ = try await client.send(HTTPRequest(method: .get, url: fake.baseURL)) }
        #expect(error?.kind == .transport)
        #expect(error?.description.contains("cut while reading the reply") == true, "\(String(describing: error))")
        #expect(error?.description.contains("could not reach") == false)
    }

    /// Numbers in headers are provider input too: `Retry-After: 1e19` used to trap while wording the error.
    @Test(arguments: ["1e19", "inf", "-5", "99999999999999999999"])
    func anAbsurdRetryAfterIsAnErrorNotACrash(value: String) async throws {
        let fake = try await FakeUpstream.start { _ in .json(#"{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}"#, status: 429, headers: ["Retry-After": value]) }
        defer { Task { await fake.shutdown() } }
        let error = await providerError { _ = try await makeClient("google", fake: fake).send(HTTPRequest(method: .get, url: fake.baseURL)) }
        #expect(error?.kind == .rateLimited, "\(String(describing: error))")
    }

    @Test func aClosedPortIsUnreachable() async throws {
        let fake = try await FakeUpstream.start()
        let url = fake.baseURL
        await fake.shutdown()
        let client = HTTPClient(configuration: .init(provider: "yelp", baseURL: url, userAgent: "places/test", retry: RetryPolicy(maxAttempts: 1)))
        let error = await providerError { _ = try await client.send(HTTPRequest(method: .get, url: url)) }
        #expect(error?.description.contains("could not reach 127.0.0.1") == true, "\(String(describing: error))")
    }
}
