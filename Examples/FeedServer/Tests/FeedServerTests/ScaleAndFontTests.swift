import FeedServerCore
import Foundation
import HummingbirdTesting
import Testing

/// The per-request layout context: `?scale=` (1, 2, 3) and `?fonts=` (a configured font set), both part of the
/// cache key.
@Suite struct ScaleAndFontTests {
    /// A vertical stack, aligned to the start, of a 10.2 x 10.2 box `a` and a 5 x 5 box `b`, laid out at width
    /// 100. Sizes are rounded up to the pixel grid (`ceil(value * scale) / scale`, less FLT_EPSILON first):
    ///
    /// - scale 2: `a` is ceil(20.4) / 2 = 10.5 square, `b` starts at y 10.5, `s` is 100 x (10.5 + 5) = 15.5.
    /// - scale 3: `a` is ceil(30.6) / 3 = 31/3 square, `b` starts at y 31/3, `s` is 100 x (31/3 + 5) = 46/3.
    static let document = """
        {"type": "stack", "id": "s", "direction": "vertical", "alignItems": "start", "children": [
          {"type": "box", "id": "a", "size": [10.2, 10.2]}, {"type": "box", "id": "b", "size": [5, 5]}]}
        """

    static func expected(scale: Int) -> [String: [Double]] {
        let a = scale == 2 ? 10.5 : 31.0 / 3
        return ["s": [0, 0, 100, a + 5], "a": [0, 0, a, a], "b": [0, a, 5, 5]]
    }

    static func matches(_ frames: [String: [Double]]?, _ expected: [String: [Double]]) -> Bool {
        guard let frames, Set(frames.keys) == Set(expected.keys) else { return false }
        return expected.allSatisfy { id, frame in
            frames[id].map { zip($0, frame).allSatisfy { abs($0 - $1) < 1e-9 } && $0.count == 4 } ?? false
        }
    }

    @Test func twoScalesAtOnceEachRoundedToItsOwnGrid() async throws {
        try await withServer { client, server in
            try await withThrowingTaskGroup(of: (Int, [String: [Double]]?, Int).self) { group in
                for i in 0..<24 {
                    let scale = i % 2 == 0 ? 2 : 3
                    group.addTask {
                        let response = try await client.layout(Self.document, query: "?width=100&scale=\(scale)")
                        return (scale, response.flatFrames, Int(response.status.code))
                    }
                }
                var answered = 0
                for try await (scale, frames, status) in group {
                    #expect(status == 200)
                    #expect(Self.matches(frames, Self.expected(scale: scale)), "scale \(scale): \(String(describing: frames))")
                    answered += 1
                }
                #expect(answered == 24)
            }
            // One entry per scale: the scale is part of the key.
            #expect(server.service.cache.statistics.entries == 2)
        }
    }

    @Test func scaleOneRoundsToWholePoints() async throws {
        try await withServer { client, _ in
            // ceil(10.2) = 11.
            let response = try await client.layout(Self.document, query: "?width=100&scale=1")
            #expect(Self.matches(response.flatFrames, ["s": [0, 0, 100, 16], "a": [0, 0, 11, 11], "b": [0, 11, 5, 5]]))
        }
    }

    @Test(arguments: ["0", "4", "2.5", "abc", ""])
    func otherScalesAreRefusedNamingTheParameter(_ scale: String) async throws {
        try await withServer { client, _ in
            let response = try await client.layout(Self.document, query: "?scale=\(scale)")
            #expect(response.status == .badRequest)
            #expect(response.errorMessage == "query scale: expected 1, 2 or 3 (pixels per point), got \"\(scale)\"")
        }
    }

    @Test func theDefaultFontSetIsAcceptedAndOthersAreRefused() async throws {
        try await withServer { client, _ in
            let ok = try await client.layout(Self.document, query: "?width=100&fonts=default")
            #expect(Self.matches(ok.flatFrames, Self.expected(scale: 2)))
            let unknown = try await client.layout(Self.document, query: "?fonts=serif")
            #expect(unknown.status == .badRequest)
            #expect(unknown.errorMessage == "query fonts: expected one of the configured font sets (\"default\"), got \"serif\"")
            let badName = try await client.layout(Self.document, query: "?fonts=a%20b")
            #expect(badName.status == .badRequest)
            #expect(badName.errorMessage?.hasPrefix("query fonts: expected a font set's name") == true)
        }
    }

    /// A font set whose directory holds Noto Sans Display (in fonts-noto-core, not among the standard fonts):
    /// text naming that family is measured in that set, and refused in the default one.
    @Test func aRequestMeasuresWithTheFontSetItNames() async throws {
        let font = "/usr/share/fonts/truetype/noto/NotoSansDisplay-Regular.ttf"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("weft-font-set-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(atPath: font, toPath: directory.appendingPathComponent("display.ttf").path)
        let text = "{\"type\": \"text\", \"id\": \"t\", \"text\": \"Hello\", \"fontFamily\": \"Noto Sans Display\", \"fontSize\": 14}"
        try await withServer(testConfiguration { $0.fontSetDirectories = ["display": directory.path] }) { client, server in
            #expect(server.service.fontSets.names == ["default", "display"])
            let measured = try await client.layout(text, query: "?width=200&fonts=display")
            #expect(measured.status == .ok)
            #expect(measured.flatFrames?["t"].map { $0[3] > 0 } == true)
            let refused = try await client.layout(text, query: "?width=200")
            #expect(refused.status == .badRequest)
            #expect(refused.errorMessage?.hasPrefix("root.fontFamily:") == true, "\(refused.text)")
        }
    }

    @Test func fontSetFlagsAreReadAndCheckedAtStart() throws {
        var configuration = FeedServerConfiguration()
        try configuration.set("font-set", to: "brand=/tmp/fonts-a,other=/tmp/fonts-b", source: "WEFT_FONT_SET")
        #expect(configuration.fontSetDirectories == ["brand": "/tmp/fonts-a", "other": "/tmp/fonts-b"])
        #expect(throws: ConfigurationError.self) { try configuration.set("font-set", to: "default=/x", source: "--font-set") }
        #expect(throws: ConfigurationError.self) { try configuration.set("font-set", to: "nodir", source: "--font-set") }
        // A directory that is not there is refused when the server is made, naming the set.
        let missing = testConfiguration { $0.fontSetDirectories = ["brand": "/nonexistent/weft-fonts"] }
        #expect { _ = try FeedServer(configuration: missing) } throws: { error in
            "\(error)".contains("font-set brand=/nonexistent/weft-fonts")
        }
    }

    @Test func theCacheKeyHoldsScaleAndFontSet() {
        let base = CellKey(content: "{}", width: 375, format: .flat)
        var other = base
        other.scale = 3
        #expect(base != other)
        #expect(base.storageText != other.storageText)
        other = base
        other.fontSet = "brand"
        #expect(base != other)
        #expect(base.storageText != other.storageText)
        #expect(base.storageText == "flat 375.0 2.0 default\n{}")
    }
}
