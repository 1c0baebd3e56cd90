// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "EventTree",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "EventTree", targets: ["EventTree"]),
        .library(name: "EventTreeTesting", targets: ["EventTreeTesting"]),
    ],
    targets: [
        .target(name: "EventTree"),
        .target(name: "EventTreeTesting", dependencies: ["EventTree"]),
        .testTarget(name: "EventTreeTests", dependencies: ["EventTree", "EventTreeTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
