// swift-tools-version: 6.1
import PackageDescription

// The benchmarks live in their own package so that the library gains no dependencies.
// Run: swift run -c release --package-path Benchmarks eventtree-bench [--quick] [--filter TEXT]
let package = Package(
    name: "EventTreeBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
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
                .product(name: "EventTree", package: "main"),
                .product(name: "EventTreeJournal", package: "main"),
                .product(name: "EventTreeReplay", package: "main"),
                .product(name: "EventTreeTesting", package: "main"),
                .product(name: "EventTreeCommands", package: "main"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
