// swift-tools-version: 6.1
import PackageDescription

// The benchmarks live in their own package so that the library gains no dependencies.
// Run: swift run -c release --package-path Benchmarks eventtree-bench [--quick] [--filter TEXT]
let package = Package(
    name: "EventTreeBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so that the dependency does not take the name of whatever folder holds the clone.
        .package(name: "EventTree", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        .target(
            name: "CBenchSupport",
            linkerSettings: [.linkedLibrary("sqlite3")]),
        .executableTarget(
            name: "eventtree-bench",
            dependencies: [
                "CBenchSupport",
                .product(name: "EventTree", package: "EventTree"),
                .product(name: "EventTreeJournal", package: "EventTree"),
                .product(name: "EventTreeReplay", package: "EventTree"),
                .product(name: "EventTreeTesting", package: "EventTree"),
                .product(name: "EventTreeCommands", package: "EventTree"),
                .product(name: "EventTreeTracing", package: "EventTree"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
