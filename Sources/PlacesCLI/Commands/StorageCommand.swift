import ArgumentParser
import Foundation
import PlacesApp
import PlacesConfig
import PlacesCore
import PostgresStorage

struct StorageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage",
        abstract: "Move the lookup cache, the budget ledger and saved spots to shared PostgreSQL storage.",
        discussion: """
            SQLite files under the home serve one user on one machine. Several `places serve` instances share one \
            budget, one cache and one spot store through PostgreSQL: set PLACES_DATABASE_URL (or [storage] url in \
            config.toml). `storage migrate` copies what this home already holds, so nothing is lost on the move.

            Examples:
              places storage migrate --to postgres://places@db.internal:5432/places
              PLACES_DATABASE_URL=postgres://places@localhost/places places storage migrate
            """,
        subcommands: [StorageMigrateCommand.self])
}

struct StorageMigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy this home's SQLite cache, budget ledger, spots and visits into PostgreSQL.",
        discussion: """
            Each table is copied in one transaction. Running it again copies nothing twice: spots and visits are \
            matched by id, cache entries by key, limits by provider and period, and the ledger's charges are copied \
            once per ledger file. Rows PostgreSQL already has are kept as they are. The SQLite files are only read.

            Examples:
              places storage migrate --to postgres://places@db.internal:5432/places
              places storage migrate --to 'postgres://places:secret@db.internal/places?sslmode=verify-full'
              places storage migrate        # to the configured URL (PLACES_DATABASE_URL or [storage] url)
            """)

    @Option(name: .long, help: ArgumentHelp("The PostgreSQL database to copy into (default: the configured one).", valueName: "URL"))
    var to: String?

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let environment = state.environment
            let settings = try SharedStorage.settings(try PlacesConfiguration.load(from: environment.configFile), environment)
            guard let url = to ?? settings.url else {
                throw InputError("storage migrate needs a PostgreSQL URL: give --to postgres://user@host:5432/database, or set PLACES_DATABASE_URL")
            }
            let configuration = try SharedStorage.configuration(url: url, settings: settings)
            let database = try SharedDatabase(configuration)
            defer { database.close() }
            let report = try await SQLiteImport.copy(
                SQLiteImport.Files(cache: environment.cacheDatabase, ledger: environment.budgetDatabase, spots: environment.spotsDatabase),
                into: database)
            print("copied into PostgreSQL at \(configuration.url.endpoint)")
            print(report.description)
        }
    }
}
