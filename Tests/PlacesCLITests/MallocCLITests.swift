import Foundation
import Testing

/// `places` runs with jemalloc as its malloc (Package.swift, `jemallocAsMalloc`): an import takes about an eighth less
/// CPU with it than with glibc's. A link that lost it (the library listed after the C library, or dropped as unused)
/// would still build and pass every other test, so the allocator is asked directly: jemalloc reads `MALLOC_CONF`
/// and, with `stats_print:true`, writes its statistics to stderr as the process exits. glibc's malloc ignores the
/// variable.
@Suite struct MallocCLITests {
    @Test func placesRunsWithJemalloc() throws {
        let cli = try CLIHarness.fresh()
        let result = try cli.run("--version", environment: ["MALLOC_CONF": "stats_print:true"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Begin jemalloc statistics"), "no jemalloc statistics on stderr: \(result.stderr.prefix(300))")
        #expect(result.stderr.contains("End jemalloc statistics"))
    }
}
