// # FakeUpstream
//
// A small HTTP/1.1 server on `127.0.0.1` (ephemeral port) that plays a provider's API in tests. No network.
//
// ```swift
// import FakeUpstream
//
// let fake = try await FakeUpstream.start(handler: FakeRoutes.google(validator: try GoogleDiscoveryValidator()))
// defer { Task { await fake.shutdown() } }
//
// // Point the provider at it: `base_url = "\(fake.baseURL)"` in a config, or HTTPClientConfiguration(baseURL: fake.baseURL, …).
// // The key every fake accepts is FakeRoutes.testKey; any other key gets the provider's own refusal
// // (Google 403 PERMISSION_DENIED, which echoes the key back; Yelp 401 TOKEN_INVALID; Foursquare 401).
//
// fake.enqueue(.tooManyRequests(retryAfter: 2), .serverError())   // the next two requests fail, then the handler answers
// fake.enqueue(.slow(3), .reset, .malformedJSON(), .forbidden())   // a slow reply, a TCP reset, a broken body, a 403
//
// fake.requests          // [RecordedRequest]: method, path, query, headers (lower-cased), body, jsonBody
// fake.violations        // Google requests that broke the discovery document (must be [] in a passing test)
// ```
//
// Handlers (`FakeRoutes`): `google(apiKey:validator:)`, `yelp(apiKey:)`, `foursquare(apiKey:)`, `nominatim()`,
// or any `@Sendable (RecordedRequest) -> FakeReply`. Replies come from `FakeFixtures` (recorded-style JSON:
// Blue Bottle Coffee in San Francisco for the paid providers, Maya Bar in Helsinki, `osm:node/1870234571`, for Nominatim).
// The Google fake trims each reply to the request's field mask, as Google does.
//
// `GoogleDiscoveryValidator` loads `shared/specs/google-places-v1.discovery.json` from beside the repository
// (found from this module's source path) and checks method and path, `X-Goog-Api-Key`, `X-Goog-FieldMask`
// (every path a real `Place` field; search masks prefixed `places.`; no wildcards), body members by schema,
// required members, and query parameters.
//
// (This file is the module's guide; it holds no code, so SwiftPM builds it without a resources warning.)
