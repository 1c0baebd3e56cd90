// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "EventTree",
    // The floor is Synchronization's (Atomic, Mutex): macOS 15, iOS 18, tvOS 18, watchOS 11,
    // visionOS 2. CI builds and tests on Linux only; the Apple platforms are declared, not built here.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "EventTree", targets: ["EventTree"]),
        .library(name: "EventTreeJournal", targets: ["EventTreeJournal"]),
        .library(name: "EventTreeReplay", targets: ["EventTreeReplay"]),
        .library(name: "EventTreeTesting", targets: ["EventTreeTesting"]),
        .library(name: "EventTreeReport", targets: ["EventTreeReport"]),
        .library(name: "EventTreeCommands", targets: ["EventTreeCommands"]),
        .library(name: "EventTreeTracing", targets: ["EventTreeTracing"]),
        // FleetDatabase and PostgresLocation exist with the PostgreSQL trait only.
        .library(name: "EventTreePostgres", targets: ["EventTreePostgres"]),
        .executable(name: "eventtree", targets: ["eventtree"]),
    ],
    traits: [
        .trait(
            name: "PostgreSQL",
            description: "eventtree ship and EventTreePostgres: journals into a PostgreSQL database (postgres-nio). Off by default."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // EventTreeTracing's spans; 1.3.0 is the first release with InMemoryTracing, which its tests use.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.3.0"),
        // EventTreePostgres, with the PostgreSQL trait only (a default build compiles none of it).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.3"),
        // `swift package generate-documentation` (Scripts/check-docs.sh); no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CEventTreeSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // The thread-local pointer to each thread's delivery stack (C: Swift has no thread-local storage).
        .target(name: "CEventTreeThread"),
        .target(name: "EventTree", dependencies: ["CEventTreeThread"]),
        // Build tool and plugins that embed Migrations/*.sql and a target's Templates/ into
        // the binary (a copied `eventtree` carries its schema and its report page).
        .executableTarget(name: "EventTreeEmbedder"),
        .plugin(name: "EmbedMigrations", capability: .buildTool(), dependencies: ["EventTreeEmbedder"]),
        .plugin(name: "EmbedTemplates", capability: .buildTool(), dependencies: ["EventTreeEmbedder"]),
        .target(
            name: "EventTreeJournal",
            dependencies: ["EventTree", "CEventTreeSQLite", "CEventTreeThread", .product(name: "Crypto", package: "swift-crypto")],
            plugins: ["EmbedMigrations"]),
        .target(name: "EventTreeReplay", dependencies: ["EventTree", "EventTreeJournal"]),
        .target(name: "EventTreeTesting", dependencies: ["EventTree", "EventTreeJournal", "EventTreeReplay"]),
        .target(
            name: "EventTreeReport",
            dependencies: ["EventTree", "EventTreeJournal", "EventTreeReplay"],
            exclude: ["Templates"],
            plugins: ["EmbedTemplates"]),
        .target(
            name: "EventTreeCommands",
            dependencies: [
                "EventTree", "EventTreeJournal", "EventTreeReplay", "EventTreeReport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .target(name: "EventTreePostgres", condition: .when(traits: ["PostgreSQL"])),
            ]),
        .executableTarget(name: "eventtree", dependencies: ["EventTreeCommands"]),
        // Ships journals into PostgreSQL (`eventtree ship`): its code compiles with the
        // PostgreSQL trait only; its schema is its own numbered Migrations/*.sql.
        .target(
            name: "EventTreePostgres",
            dependencies: [
                "EventTreeJournal",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["PostgreSQL"])),
            ],
            exclude: ["Migrations"],
            plugins: ["EmbedMigrations"]),
        // Raises and handler calls as spans of any tracer bootstrapped with swift-distributed-tracing
        // (no journal dependency: it is one recorder among others, see FanOutRecorder).
        .target(
            name: "EventTreeTracing",
            dependencies: ["EventTree", .product(name: "Tracing", package: "swift-distributed-tracing")]),
        // The reliability harnesses of Scripts/reliability.sh (kill -9, power loss, faults,
        // a full disk, readers beside a writer) and their test-only fault-injecting VFS.
        .target(name: "CEventTreeFaultVFS", dependencies: ["CEventTreeSQLite"], path: "Scripts/Harness/FaultVFS"),
        .executableTarget(
            name: "eventtree-harness",
            dependencies: ["EventTree", "EventTreeJournal", "EventTreeReplay", "CEventTreeFaultVFS"],
            path: "Scripts/Harness/Sources"),
        .testTarget(name: "EventTreeTests", dependencies: ["EventTree", "EventTreeTesting"]),
        .testTarget(
            name: "EventTreeJournalTests",
            dependencies: ["EventTree", "EventTreeJournal", "EventTreeTesting", "CEventTreeSQLite"]),
        .testTarget(
            name: "EventTreeReplayTests",
            dependencies: ["EventTree", "EventTreeJournal", "EventTreeReplay", "EventTreeTesting"]),
        .testTarget(
            name: "EventTreeCommandsTests",
            dependencies: [
                "EventTreeCommands", "EventTreeJournal", "EventTreeReplay", "EventTreeReport", "EventTreeTesting",
                "CEventTreeSQLite",
            ],
            exclude: ["Golden"]),
        .testTarget(
            name: "EventTreeTracingTests",
            dependencies: [
                "EventTree", "EventTreeTracing", "EventTreeJournal", "EventTreeTesting",
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
