// swift-tools-version: 6.1
// The reference HTTP embedding of Weft: a layout service on Hummingbird 2. Its own package, so that the core's
// dependency graph (and its `swift test`) stays light.
import PackageDescription

let package = Package(
    name: "FeedServer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "feed-server", targets: ["feed-server"]),
        .library(name: "FeedServerCore", targets: ["FeedServerCore"]),
    ],
    dependencies: [
        .package(name: "Weft", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    ],
    targets: [
        .target(
            name: "FeedServerCore",
            dependencies: [
                .product(name: "WeftLayout", package: "Weft"),
                .product(name: "WeftFormat", package: "Weft"),
                .product(name: "WeftNodes", package: "Weft"),
                .product(name: "WeftText", package: "Weft"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "feed-server",
            dependencies: [
                "FeedServerCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "FeedServerTests",
            dependencies: [
                "FeedServerCore",
                .product(name: "WeftLayout", package: "Weft"),
                .product(name: "WeftFormat", package: "Weft"),
                .product(name: "WeftNodes", package: "Weft"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
