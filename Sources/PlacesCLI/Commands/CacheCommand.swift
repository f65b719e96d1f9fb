import ArgumentParser
import Foundation
import PlacesApp
import PlacesCore

struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and clean the lookup cache (saved spots are never touched).",
        discussion: """
            Examples:
              places cache stats
              places cache purge --expired               # drop entries past their TTL
              places cache purge --provider google       # drop everything Google contributed to
              places cache purge                         # empty the cache
              places cache vacuum                        # give the space back to the disk
            """,
        subcommands: [CacheStatsCommand.self, CachePurgeCommand.self, CacheVacuumCommand.self],
        defaultSubcommand: CacheStatsCommand.self)
}


struct CacheStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Entries, size, expired entries, per provider.",
        discussion: """
            Examples:
              places cache stats
              places cache stats --json
            """)

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let app = try state.openApp()
            let stats = try await app.cacheStats()
            if json {
                printData(try PlacesJSON.encode(stats, pretty: isTerminal(.standardOutput)))
                return
            }
            print("cache \(try app.cacheLocation())")
            print("  entries   \(stats.entries) (\(stats.answers) answers, \(stats.negatives) not-found, \(stats.expired) expired)")
            print("  size      \(stats.payloadBytes / 1024) KiB of \(stats.maxBytes / 1_048_576) MiB cap; file \(stats.fileBytes / 1024) KiB")
            for provider in stats.providers {
                print("  \(provider.provider.padding(toLength: 10, withPad: " ", startingAt: 0)) \(provider.entries) entries, \(provider.expired) expired")
            }
        }
    }
}

struct CachePurgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge", abstract: "Remove cache entries: all, one provider's, or only expired ones.",
        discussion: """
            Examples:
              places cache purge --expired
              places cache purge --provider google
              places cache purge --provider yelp --expired
              places cache purge
            """)

    @Option(help: ArgumentHelp("Only entries holding data from this provider.", valueName: "P"))
    var provider: String?

    @Flag(help: "Only entries past their TTL.")
    var expired = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let removed = try await state.openApp().purgeCache(provider: provider, expiredOnly: expired)
            print("removed \(removed) cache entr\(removed == 1 ? "y" : "ies")")
        }
    }
}

struct CacheVacuumCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vacuum", abstract: "Compact the cache file.",
        discussion: """
            Examples:
              places cache vacuum
              places cache purge --expired && places cache vacuum
            """)

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let app = try state.openApp()
            try await app.vacuumCache()
            print("cache compacted: \(try await app.cacheStats().fileBytes / 1024) KiB")
        }
    }
}
