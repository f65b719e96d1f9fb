// swift-tools-version:6.1
// The dependency direction reads top to bottom:
//   PlacesCore ← (PlacesMatching, PlacesHours) ← stores (Cache/LookupCache, Sources/BudgetLedger, Sources/SpotStore,
//   Sources/PlaceIndex) and Providers/* ← PlacesPipeline ← PlacesApp ← PlacesServer / places CLI
//   RESP (the wire codec, NIOCore only) ← PlacesServer
// Nothing points back up. Cache/ holds only caches (data that may be thrown away and fetched again); the budget
// ledger is money, the spot store is user data and the place index is the local provider's derived data, so each
// has a folder of its own under Sources/.
import PackageDescription

/// For the targets that import FoundationNetworking, and every target above them that links into `places` or
/// `places-bench` (an import of ProviderHTTP carries FoundationNetworking's link request along): with the Swift
/// standard library linked statically (the release build, see README), it asks the linker for `-lcurl`, which
/// would load libcurl and its ~30 libraries at every start. LibcurlOnDemand defines the libcurl functions FoundationNetworking calls and loads
/// libcurl on the first one, so the request is dropped. (With the shared Foundation libraries, as in debug
/// builds and tests, libFoundationNetworking.so needs libcurl itself and this changes nothing.)
let libcurlLoadedOnDemand: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-autolink-library", "-Xfrontend", "curl"])]

/// For the code every request of `places serve` runs through (RESP, PlacesServer): exclusive access to a class's
/// stored properties is still checked by the compiler, but not again at run time, where each access cost a call
/// and a thread-local lookup, about 10 % of a memoised reply's instructions (callgrind, bench/server.sh's DETAILS).
let exclusivityCheckedAtCompileTime: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"])]

/// For the executables (`places`, `places-bench`): jemalloc as the process's malloc (Debian's libjemalloc2, linked
/// through libjemalloc-dev). An import allocates and frees millions of small objects on several threads, many of them
/// freed on another thread than the one that made them; glibc's malloc spent ~12 % of the import's CPU in its own
/// bookkeeping (`_int_malloc`, `unlink_chunk`, `malloc_consolidate`), and the same import takes 7-13 % less CPU with
/// jemalloc, for about 1 ms more at a process's start (README, Benchmarks: "jemalloc"). Linked as a shared library,
/// listed before the C library, so that its `malloc` is the one every part of the process calls: a static copy is
/// linked with its symbols hidden (the static Swift standard library hides those of every archive), and memory from
/// one malloc freed by the other crashes.
let jemallocAsMalloc: [LinkerSetting] = [.linkedLibrary("jemalloc", .when(platforms: [.linux]))]

let package = Package(
    name: "places",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "places", targets: ["PlacesCLI"]),
        .executable(name: "places-bench", targets: ["PlacesBenchmarks"]),
        .library(name: "PlacesApp", targets: ["PlacesApp"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Only for the MD5 sums Geofabrik publishes with each extract (already needed by postgres-nio).
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // Colour on a terminal (`--color`, NO_COLOR) for the CLI's tables.
        .package(url: "https://github.com/onevcat/Rainbow", from: "4.2.2"),
        // `places serve --metrics-port`: counters through swift-metrics, exposed as Prometheus text.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // GeoNames `.zip` dumps: central directory, data descriptors and zip64, streamed entry by entry.
        .package(url: "https://github.com/weichsel/ZIPFoundation", exact: "0.9.20"),
        // CSV in `places match`, `lookup --batch` and spots import/export: a streaming reader and a writer.
        .package(url: "https://github.com/yaslab/CSV.swift", exact: "2.5.2"),
    ],
    targets: [
        // MARK: Core model: Foundation only.
        .target(name: "PlacesCore", path: "Sources/PlacesCore"),
        .target(name: "PlacesMatching", dependencies: ["PlacesCore", "CSVText"], path: "Sources/PlacesMatching"),
        // Every CSV file (match, lookup --batch, spots import/export) is read and written here, through CSV.swift.
        .target(name: "CSVText", dependencies: ["PlacesCore", .product(name: "CSV", package: "CSV.swift")], path: "Sources/CSVText"),
        .target(name: "PlacesHours", dependencies: ["PlacesCore"], path: "Sources/PlacesHours"),

        // MARK: Stores. Opening any SQLite store (lock file, migrations, one-line errors):
        .target(
            name: "StoreSupport",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")],
            path: "Sources/StoreSupport"),
        // The local provider's index (derived data: rebuilt from the bundled or imported files).
        .target(
            name: "PlaceIndex",
            dependencies: ["PlacesCore", "StoreSupport", .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "GRDBSQLite", package: "GRDB.swift")],
            path: "Sources/PlaceIndex"),
        // The only cache: provider answers kept for as long as each provider's terms allow.
        .target(
            name: "LookupCache",
            dependencies: ["PlacesCore", "StoreSupport", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Cache/LookupCache"),
        // Money: what each paid provider may still spend today and this month.
        .target(
            name: "BudgetLedger",
            dependencies: ["PlacesCore", "StoreSupport", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Sources/BudgetLedger"),
        // User data: saved spots and visits, the proximity watch, import/export formats.
        .target(
            name: "SpotStore",
            dependencies: [
                "PlacesCore", "StoreSupport", "CSVText", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/SpotStore"),

        // MARK: Shared state on PostgreSQL: the same stores' semantics across many `places serve` instances.
        .target(
            name: "PostgresStorage",
            dependencies: [
                "PlacesCore", "LookupCache", "BudgetLedger", "SpotStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                // Only to read a home's SQLite files for `places storage migrate`.
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/PostgresStorage"),

        // MARK: Region downloads (`places data`): Geofabrik extracts and GeoNames dumps, resumable and checked.
        .target(
            name: "RegionData",
            dependencies: ["PlacesCore", "LibcurlOnDemand", .product(name: "Crypto", package: "swift-crypto")],
            path: "Sources/RegionData",
            swiftSettings: libcurlLoadedOnDemand),

        // MARK: Provider plugins.
        // zlib for PBF blobs, .gz dumps and .zip entries.
        .systemLibrary(name: "CSystemZlib", path: "Sources/CSystemZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "LocalProvider",
            dependencies: ["PlacesCore", "PlaceIndex", "CSystemZlib", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            path: "Providers/Local"),
        // libcurl (under URLSession) loaded on first use, not at every process start; see LibcurlOnDemand.c.
        .target(name: "LibcurlOnDemand", path: "Sources/LibcurlOnDemand"),
        // SQLite's process-wide settings, which only C can make (variadic `sqlite3_config`); see shim.h.
        .systemLibrary(name: "CSQLiteSettings", path: "Sources/CSQLiteSettings"),
        // The C library's malloc calls Swift does not see (glibc's `malloc_trim`); see shim.h.
        .systemLibrary(name: "CMallocSettings", path: "Sources/CMallocSettings"),
        .target(
            name: "ProviderHTTP",
            dependencies: ["PlacesCore", "LibcurlOnDemand", .product(name: "Logging", package: "swift-log")],
            path: "Providers/HTTP",
            swiftSettings: libcurlLoadedOnDemand),
        .target(name: "GoogleProvider", dependencies: ["PlacesCore", "PlacesHours", "ProviderHTTP"], path: "Providers/Google", swiftSettings: libcurlLoadedOnDemand),
        .target(name: "YelpProvider", dependencies: ["PlacesCore", "PlacesHours", "ProviderHTTP"], path: "Providers/Yelp", swiftSettings: libcurlLoadedOnDemand),
        .target(name: "FoursquareProvider", dependencies: ["PlacesCore", "PlacesHours", "ProviderHTTP"], path: "Providers/Foursquare", swiftSettings: libcurlLoadedOnDemand),
        .target(name: "NominatimProvider", dependencies: ["PlacesCore", "ProviderHTTP"], path: "Providers/Nominatim", swiftSettings: libcurlLoadedOnDemand),

        // MARK: Configuration, pipeline, application.
        .target(name: "PlacesConfig", dependencies: ["PlacesCore", "TOMLKit"], path: "Sources/PlacesConfig"),
        .target(
            name: "PlacesPipeline",
            dependencies: [
                "PlacesCore", "PlacesMatching", "LookupCache", "BudgetLedger", .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            path: "Sources/PlacesPipeline"),
        .target(
            name: "PlacesApp",
            dependencies: [
                "PlacesCore", "PlacesMatching", "PlacesHours", "PlaceIndex", "LocalProvider", "LookupCache",
                "BudgetLedger", "SpotStore", "ProviderHTTP", "GoogleProvider", "YelpProvider", "FoursquareProvider",
                "NominatimProvider", "PlacesConfig", "PlacesPipeline", "StoreSupport", "PostgresStorage",
                .product(name: "Logging", package: "swift-log"), .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/PlacesApp",
            resources: [.copy("Resources/EmbeddedData")],
            swiftSettings: libcurlLoadedOnDemand),
        // MARK: The Redis protocol (RESP2) codec: framing only, no commands, no application.
        .target(name: "RESP", dependencies: [.product(name: "NIOCore", package: "swift-nio")], path: "Sources/RESP",
                swiftSettings: exclusivityCheckedAtCompileTime),
        .target(
            name: "PlacesServer",
            dependencies: [
                "PlacesApp", "RESP", "BudgetLedger", "CMallocSettings",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Sources/PlacesServer",
            swiftSettings: libcurlLoadedOnDemand + exclusivityCheckedAtCompileTime),
        .executableTarget(
            name: "PlacesCLI",
            dependencies: [
                "PlacesApp", "PlacesServer", "RESP", "PlacesCore", "PlacesConfig", "PlacesHours", "PlacesMatching",
                "PlacesPipeline", "PlaceIndex", "LookupCache", "BudgetLedger", "SpotStore", "ProviderHTTP", "PostgresStorage", "RegionData",
                "CSQLiteSettings",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Rainbow", package: "Rainbow"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Sources/PlacesCLI",
            swiftSettings: libcurlLoadedOnDemand,
            linkerSettings: jemallocAsMalloc),
        .executableTarget(
            name: "PlacesBenchmarks",
            dependencies: [
                "PlacesApp", "PlacesServer", "PlacesCore", "PlacesHours", "PlacesMatching", "PlacesPipeline", "LocalProvider",
                "PlaceIndex", "LookupCache", "BudgetLedger", "SpotStore", "ProviderHTTP", "GoogleProvider", "PostgresStorage",
                "CSVText", "CSQLiteSettings", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/PlacesBenchmarks",
            swiftSettings: libcurlLoadedOnDemand,
            linkerSettings: jemallocAsMalloc),

        // MARK: Fuzzing. `bash Tests/Fuzz/run.sh` builds PlacesFuzz with libFuzzer (`-sanitize=fuzzer,address
        // -DFUZZING`) into .build-fuzz; in a plain build it is a replay tool: `PlacesFuzz <target> <file>…`.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "PlacesCore", "PlacesHours", "PlacesMatching", "PlacesConfig", "LocalProvider", "PlaceIndex", "SpotStore",
                "PlacesApp", "PlacesServer", "RESP", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/Fuzz/FuzzTargets"),
        .executableTarget(name: "PlacesFuzz", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/PlacesFuzz"),

        // MARK: Tests (they mirror the source tree).
        .target(
            name: "FakeUpstream",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/FakeUpstream"),
        .target(name: "LoopbackSocket", path: "Tests/LoopbackSocket"),
        .target(name: "ScratchDirectory", path: "Tests/ScratchDirectory"),
        .target(name: "StoreTestSupport", dependencies: ["ScratchDirectory"], path: "Tests/StoreTestSupport"),
        .testTarget(name: "PlacesCoreTests", dependencies: ["PlacesCore"]),
        .testTarget(name: "PlacesMatchingTests", dependencies: ["PlacesMatching", "LocalProvider"], exclude: ["Fixtures"]),
        .testTarget(name: "PlacesHoursTests", dependencies: ["PlacesHours", "LocalProvider"]),
        .testTarget(
            name: "LocalProviderTests",
            dependencies: [
                "ScratchDirectory", "StoreTestSupport", "LocalProvider", "PlaceIndex", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            exclude: ["Fixtures"]),
        .testTarget(name: "StoreSupportTests", dependencies: ["ScratchDirectory", "StoreSupport", "LookupCache", "BudgetLedger", "SpotStore",
                                                       .product(name: "GRDB", package: "GRDB.swift")]),
        // The contract suites run against SQLite and PostgreSQL.
        .testTarget(name: "LookupCacheTests", dependencies: ["LookupCache", "StoreTestSupport", "PostgresStorage", "PostgresTestCluster"]),
        .testTarget(name: "BudgetLedgerTests", dependencies: ["BudgetLedger", "StoreTestSupport", "PostgresStorage", "PostgresTestCluster"]),
        .testTarget(
            name: "SpotStoreTests",
            dependencies: ["ScratchDirectory", "SpotStore", "StoreTestSupport", "PostgresStorage", "PostgresTestCluster",
                           .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(
            name: "ProvidersTests",
            dependencies: [
                "ProviderHTTP", "GoogleProvider", "YelpProvider", "FoursquareProvider", "NominatimProvider",
                "FakeUpstream",
            ]),
        .testTarget(
            name: "PlacesPipelineTests",
            dependencies: ["ScratchDirectory",
                "PlacesPipeline", "PlacesMatching", "LookupCache", "BudgetLedger", "ProviderHTTP", "GoogleProvider",
                "YelpProvider", "PlacesApp", "FakeUpstream",
            ]),
        .testTarget(
            name: "PlacesAppTests",
            dependencies: ["ScratchDirectory",
                "PlacesApp", "PlacesConfig", "PlacesPipeline", "BudgetLedger", "LookupCache", "FakeUpstream",
                "LocalProvider", "PlaceIndex", "PlacesHours",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .target(
            name: "PostgresTestCluster",
            dependencies: ["PostgresStorage", .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Tests/PostgresTestCluster", exclude: ["cluster.sh"]),
        .testTarget(
            name: "PostgresStorageTests",
            dependencies: ["ScratchDirectory", "PostgresStorage", "PostgresTestCluster", "LookupCache", "BudgetLedger", "SpotStore", "PlacesCore", "PlacesConfig"]),
        .testTarget(name: "RESPTests", dependencies: ["RESP"]),
        .testTarget(
            name: "PlacesServerTests",
            dependencies: ["ScratchDirectory", "PlacesServer", "RESP", "PlacesApp", "PlacesPipeline", "SpotStore", "LoopbackSocket"]),
        .testTarget(
            name: "PlacesCLITests",
            dependencies: ["ScratchDirectory",
                "PlacesApp", "SpotStore", "FakeUpstream", "LoopbackSocket", "PostgresTestCluster",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["redis_py_transaction.py"]),
        .testTarget(name: "FuzzCorpusTests", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/CorpusTests"),
    ],
    swiftLanguageModes: [.v6]
)
