import Foundation
import WeftText

/// The fixtures of `Fixtures/` and a shared measurer over the standard fonts.
enum Support {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// One measurer for the tests that do not count cache hits (they make their own).
    static let measurer: FontMeasurer = {
        do {
            return try FontMeasurer.standard()
        } catch {
            fatalError("the standard fonts are needed: \(error)")  // tests only: setup.sh installs them
        }
    }()

    /// A case of `hb-shape.json`: text set by HarfBuzz's own `hb-shape`, part by part (one font each).
    struct ShapeCase: Decodable {
        struct Part: Decodable {
            var font: String
            var faceIndex: Int
            var text: String
            var features: String
            var command: String
            var advances: [Int]
            var total: Int
            var unitsPerEm: Int
        }

        var name: String
        var family: String?
        var features: [[FeatureValue]]
        var weight: Int
        var italic: Bool
        var parts: [Part]

        var text: String { parts.map(\.text).joined() }

        var style: TextStyle {
            let settings = features.compactMap { pair -> FontFeature? in
                guard case .tag(let tag) = pair[0], case .value(let value) = pair[1] else { return nil }
                return FontFeature(tag, value)
            }
            return TextStyle(family: family, weight: weight, isItalic: italic, features: settings)
        }
    }

    enum FeatureValue: Decodable {
        case tag(String)
        case value(UInt32)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(UInt32.self) { self = .value(number) } else { self = .tag(try container.decode(String.self)) }
        }
    }

    /// A font of `font-metrics.json`, as fontTools read it.
    struct FontMetrics: Decodable {
        struct Vertical: Decodable {
            var ascender: Int
            var descender: Int
            var lineGap: Int
        }

        var path: String
        var family: String
        var unitsPerEm: Int
        var weightClass: Int
        var useTypoMetrics: Bool
        var hhea: Vertical
        var typo: Vertical
        var advances: [String: Int]
        var notdefAdvance: Int

        /// The vertical metrics HarfBuzz's extents use: typographic ones when USE_TYPO_METRICS is set.
        var vertical: Vertical { useTypoMetrics ? typo : hhea }

        /// `character`'s advance at `size` points.
        func advance(_ character: Character, size: Double) -> Double {
            Double(advances[String(character)] ?? 0) * size / Double(unitsPerEm)
        }

        func points(_ units: Int, size: Double) -> Double { Double(units) * size / Double(unitsPerEm) }
    }

    static func load<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static let shapeCases: [ShapeCase] = (try? load("hb-shape.json", as: [ShapeCase].self)) ?? []
    static let fonts: [FontMetrics] = (try? load("font-metrics.json", as: [FontMetrics].self)) ?? []

    static func font(_ path: String) -> FontMetrics? { fonts.first { $0.path.hasSuffix(path) } }

    static let notoSans = font("NotoSans-Regular.ttf")!

    /// Whether hb-shape (Debian's libharfbuzz-bin) is installed.
    static let hasHBShape = FileManager.default.isExecutableFile(atPath: "/usr/bin/hb-shape")

    /// The advances hb-shape prints for `command` now.
    static func runHBShape(_ command: String) throws -> [Int] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let glyphs = try JSONSerialization.jsonObject(with: output) as? [[String: Any]] ?? []
        return glyphs.map { ($0["ax"] as? Int) ?? 0 }
    }
}

/// Two numbers equal to within rounding of a sum of products.
func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
    abs(a - b) <= tolerance * max(1, abs(a), abs(b))
}
