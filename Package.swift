// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Weft",
    products: [
        .library(name: "WeftLayout", targets: ["WeftLayout"]),
        .library(name: "WeftFormat", targets: ["WeftFormat"]),
        .library(name: "WeftNodes", targets: ["WeftNodes"]),
        .library(name: "WeftFeed", targets: ["WeftFeed"]),
        .executable(name: "weft", targets: ["weft"]),
    ],
    traits: [
        .trait(name: "Jemalloc", description: "Link the weft executable and the benchmarks against jemalloc (libjemalloc-dev)."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "WeftLayout"),
        .target(name: "WeftFormat", dependencies: ["WeftLayout"]),
        .target(name: "WeftNodes", dependencies: ["WeftLayout", "WeftFormat"]),
        .target(name: "WeftFeed", dependencies: ["WeftNodes"]),
        .target(name: "WeftSamples", dependencies: ["WeftNodes", "WeftFeed"]),
        .target(name: "WeftScenarios", dependencies: ["WeftLayout", "WeftFormat", "WeftNodes", "WeftFeed"]),
        .systemLibrary(name: "CJemalloc", pkgConfig: "jemalloc", providers: [.apt(["libjemalloc-dev"])]),
        .target(
            name: "WeftAllocator",
            dependencies: [.target(name: "CJemalloc", condition: .when(traits: ["Jemalloc"]))]
        ),
        .executableTarget(
            name: "weft",
            dependencies: [
                "WeftLayout",
                "WeftFormat",
                "WeftNodes",
                "WeftFeed",
                "WeftSamples",
                "WeftScenarios",
                "WeftAllocator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "WeftLayoutTests",
            dependencies: ["WeftLayout", "WeftFormat"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "WeftNodesTests",
            dependencies: ["WeftNodes", "WeftSamples"]
        ),
        .testTarget(
            name: "WeftFeedTests",
            dependencies: ["WeftFeed", "WeftSamples"]
        ),
        .testTarget(
            name: "WeftCLITests",
            dependencies: ["weft"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
