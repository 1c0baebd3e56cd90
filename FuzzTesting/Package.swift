// swift-tools-version: 6.1
import Foundation
import PackageDescription

// libFuzzer targets for EventTree, in their own package so that the library gains nothing.
// Build and run them with Scripts/fuzz.sh, or by hand:
//
//     swift build -c release --sanitize=address -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld
//     SWIFT_BACKTRACE=enable=no .build/release/fuzz-reader Corpus/fuzz-reader -max_total_time=60
//
// `-Xswiftc -sanitize=fuzzer` instruments every Swift module for coverage and links
// libFuzzer; each target has a `main` of its own that runs libFuzzer's driver on its
// `LLVMFuzzerTestOneInput`. (SwiftPM's `--sanitize=fuzzer` would instead compile every
// executable as a library so that libFuzzer's `main` can take over, the build tool of the
// parent's plugins included, whose top-level code then does not compile.)

/// The name SwiftPM compiles the parent package's modules with (`-package-name`): its
/// identity, which is its folder's name, lowercased, as a C identifier. fuzz-payload is
/// compiled with it so that it reaches `package` symbols (`PayloadEncoder`) as the
/// library's own tests do.
let parentPackageName: String = {
    let folder = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent
    var name = String(folder.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    if name.first?.isNumber ?? true { name = "_" + name }
    return name
}()

let package = Package(
    name: "EventTreeFuzzTesting",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so that the dependency does not take the name of whatever folder holds the clone.
        .package(name: "EventTree", path: ".."),
    ],
    targets: [
        .systemLibrary(name: "CFuzzSupport", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // What the targets share: the input reader, the seed journals and the mutation engine.
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CFuzzSupport",
                .product(name: "EventTree", package: "EventTree"),
                .product(name: "EventTreeJournal", package: "EventTree"),
                .product(name: "EventTreeCommands", package: "EventTree"),
            ]),
        .executableTarget(
            name: "fuzz-reader",
            dependencies: [
                "FuzzSupport",
                .product(name: "EventTreeJournal", package: "EventTree"),
                .product(name: "EventTreeReplay", package: "EventTree"),
                .product(name: "EventTreeReport", package: "EventTree"),
            ]),
        .executableTarget(
            name: "fuzz-verify",
            dependencies: ["FuzzSupport", .product(name: "EventTreeJournal", package: "EventTree")]),
        .executableTarget(
            name: "fuzz-commands",
            dependencies: ["FuzzSupport", .product(name: "EventTreeCommands", package: "EventTree")]),
        .executableTarget(
            name: "fuzz-payload",
            dependencies: ["FuzzSupport", .product(name: "EventTreeJournal", package: "EventTree")],
            // Its own package's name left out, so that the parent's is the one it gets.
            packageAccess: false,
            swiftSettings: [.unsafeFlags(["-package-name", parentPackageName])]),
    ],
    swiftLanguageModes: [.v6]
)
