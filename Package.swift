// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Weft",
    products: [
        .library(name: "WeftLayout", targets: ["WeftLayout"]),
        .library(name: "WeftNodes", targets: ["WeftNodes"]),
        .executable(name: "weft", targets: ["weft"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "WeftLayout"),
        .target(name: "WeftNodes", dependencies: ["WeftLayout"]),
        .executableTarget(
            name: "weft",
            dependencies: [
                "WeftLayout",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "WeftLayoutTests",
            dependencies: ["WeftLayout"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "WeftNodesTests",
            dependencies: ["WeftNodes"]
        ),
        .testTarget(
            name: "WeftCLITests",
            dependencies: ["weft"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
