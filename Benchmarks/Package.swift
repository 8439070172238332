// swift-tools-version: 6.1
// The benchmarks live in their own package so that the core's dependency graph (and `swift test`) stays light.
import PackageDescription

let package = Package(
    name: "WeftBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Weft", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The scenarios of `weft bench`, compiled here from the same files (a link to ../Sources/WeftScenarios):
        // they are not a library product of Weft.
        .target(
            name: "Scenarios",
            dependencies: [
                .product(name: "WeftLayout", package: "Weft"),
                .product(name: "WeftFormat", package: "Weft"),
                .product(name: "WeftNodes", package: "Weft"),
                .product(name: "WeftFeed", package: "Weft"),
                .product(name: "WeftText", package: "Weft"),
            ],
            path: "Sources/Scenarios"
        ),
        .executableTarget(
            name: "WeftBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "WeftLayout", package: "Weft"),
                .product(name: "WeftFormat", package: "Weft"),
                .product(name: "WeftNodes", package: "Weft"),
                .product(name: "WeftFeed", package: "Weft"),
                .product(name: "WeftText", package: "Weft"),
                "Scenarios",
            ],
            path: "Benchmarks/WeftBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
