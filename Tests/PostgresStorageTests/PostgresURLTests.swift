import PostgresStorage
import Testing

@Suite struct PostgresURLTests {
    @Test func readsEveryPartAndPrintsThePasswordRedacted() throws {
        let url = try PostgresURL(parsing: "postgres://places:s%40cret@db.internal:6543/shared?sslmode=verify-full&connect_timeout=3")
        #expect(url.host == "db.internal")
        #expect(url.port == 6543)
        #expect(url.user == "places")
        #expect(url.password == "s@cret")
        #expect(url.database == "shared")
        #expect(url.sslMode == .verifyFull)
        #expect(url.connectTimeout == 3)
        #expect(url.description == "postgres://places:[REDACTED]@db.internal:6543/shared?sslmode=verify-full&connect_timeout=3")
        #expect(!url.description.contains("cret"))
    }

    @Test func defaultsFollowLibpq() throws {
        let url = try PostgresURL(parsing: "postgresql://app@localhost")
        #expect(url.port == 5432)
        #expect(url.database == "app")
        #expect(url.sslMode == .prefer)
        #expect(url.password == nil)
        #expect(url.description == "postgres://app@localhost:5432/app")
    }

    @Test(arguments: [
        ("mysql://u@h/db", "the scheme must be postgres:// or postgresql://"),
        ("postgres:///db", "no host; expected postgres://user@host:5432/database"),
        ("postgres://u:pw@h/db?sslmode=sometimes", "sslmode 'sometimes' is not one of disable, allow, prefer, require, verify-ca, verify-full"),
        ("postgres://u:pw@h/db?pool=3", "unknown parameter 'pool'; places reads sslmode, sslrootcert and connect_timeout"),
    ])
    func refusesWhatItCannotHonourWithoutLeakingThePassword(text: String, reason: String) {
        #expect {
            _ = try PostgresURL(parsing: text)
        } throws: { error in
            guard let error = error as? PostgresURLError else { return false }
            return error.reason == reason && !error.description.contains("pw")
        }
    }

    @Test func redactsEvenAnUnparseableURL() {
        #expect(PostgresURL.redacting("postgres://me:hunter2@[bad/x") == "postgres://me:[REDACTED]@[bad/x")
        #expect(PostgresURL.redacting("postgres://me@host/x") == "postgres://me@host/x")
        #expect(PostgresURL.redacting("url = \"postgres://a:b@h/x\" and https://u:p@w:1") == "url = \"postgres://a:[REDACTED]@h/x\" and https://u:[REDACTED]@w:1")
    }
}
