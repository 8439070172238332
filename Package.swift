// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Weft",
    products: [
        .library(name: "WeftLayout", targets: ["WeftLayout"]),
        .library(name: "WeftFormat", targets: ["WeftFormat"]),
        .library(name: "WeftNodes", targets: ["WeftNodes"]),
        .library(name: "WeftFeed", targets: ["WeftFeed"]),
        .library(name: "WeftText", targets: ["WeftText"]),
        .executable(name: "weft", targets: ["weft"]),
    ],
    traits: [
        .trait(name: "Jemalloc", description: "Link the weft executable and the benchmarks against jemalloc (libjemalloc-dev)."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // libm: rounding to the pixel grid calls ceil, floor and round (nothing else would link it for a
        // program that uses WeftLayout alone). CWeftThread: the thread's stack guard, checked per level of nesting.
        .target(name: "WeftLayout", dependencies: ["CWeftThread"], linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        .target(name: "WeftFormat", dependencies: ["WeftLayout"]),
        // The one lock type (and a value guarded by it), shared by the text engine and the node runtime, and
        // references read with no lock. Debug builds count lock acquisitions per thread (`LockCount`), for the
        // tests that pin them. (CWeftThread: the runtime's try-retain, for `BackReference`.)
        .target(name: "WeftSync", dependencies: ["CWeftThread"], swiftSettings: [.define("WEFT_COUNT_LOCKS", .when(configuration: .debug))]),
        // Thread-local slots for the node statistics and the stack guard (Swift has no thread-local storage of
        // its own), and the runtime's try-retain.
        .target(name: "CWeftThread", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .target(name: "WeftNodes", dependencies: ["WeftLayout", "WeftFormat", "WeftText", "WeftSync", "CWeftThread"]),
        .target(name: "WeftFeed", dependencies: ["WeftNodes", "WeftSync"]),
        .target(name: "WeftSamples", dependencies: ["WeftNodes", "WeftFeed", "WeftText", "WeftSync"]),
        .target(name: "WeftScenarios", dependencies: ["WeftLayout", "WeftFormat", "WeftNodes", "WeftFeed", "WeftText"]),
        // Text: HarfBuzz shaping, FreeType font files, ICU line breaking and bidi (Debian's -dev packages).
        .systemLibrary(name: "CHarfBuzz", pkgConfig: "harfbuzz", providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        // ICU behind a C file of its own: no ICU type reaches Swift (Foundation has its own ICU headers).
        // DWARF 4: valgrind 3.19 (callgrind, Scripts/callgrind.sh) cannot read clang's default DWARF 5.
        .target(
            name: "CICU", cSettings: [.unsafeFlags(["-gdwarf-4"])],
            linkerSettings: [.linkedLibrary("icuuc"), .linkedLibrary("icudata")]),
        .target(name: "WeftText", dependencies: ["WeftSync", "CHarfBuzz", "CFreeType", "CICU"]),
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
                "WeftText",
                "WeftAllocator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "WeftLayoutTests",
            dependencies: ["WeftLayout", "WeftFormat", "WeftSync"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "WeftNodesTests",
            dependencies: ["WeftNodes", "WeftSamples", "WeftText", "WeftSync"]
        ),
        .testTarget(
            name: "WeftFeedTests",
            dependencies: ["WeftFeed", "WeftSamples", "WeftSync"]
        ),
        .testTarget(
            name: "WeftScenariosTests",
            dependencies: ["WeftScenarios", "WeftNodes", "WeftText", "WeftSync"]
        ),
        .testTarget(
            name: "WeftTextTests",
            dependencies: ["WeftText"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "WeftCLITests",
            dependencies: ["weft"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
