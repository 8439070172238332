import Foundation
import Testing
import WeftText

/// Registering fonts by file and directory, families, aliases, fallbacks, and the errors for fonts that are
/// missing or broken.
@Suite("Font registry")
struct FontRegistryTests {
    static let noto = "/usr/share/fonts/truetype/noto/"
    static let dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// A fresh directory under the temporary directory, removed by the caller.
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("weft-fonts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("A file registers its faces once; a collection registers each face")
    func files() throws {
        var registry = FontRegistry()
        let faces = try registry.register(file: Self.noto + "NotoSans-Bold.ttf")
        #expect(faces.map(\.family) == ["Noto Sans"] && faces[0].weight == 700 && !faces[0].isItalic)
        #expect(try registry.register(file: Self.noto + "NotoSans-Bold.ttf").isEmpty)
        let cjk = try registry.register(file: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
        #expect(cjk.count == 10 && cjk.map(\.index) == Array(0..<10))
        #expect(cjk.prefix(5).map(\.family) == ["Noto Sans CJK JP", "Noto Sans CJK KR", "Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK HK"])
        #expect(registry.faces.count == 11)
    }

    @Test("Units per em and vertical metrics are the font's (fontTools)")
    func faceMetrics() throws {
        for font in Support.fonts {
            var registry = FontRegistry()
            let face = try #require(try registry.register(file: font.path).first)
            #expect(face.family == font.family && face.unitsPerEm == font.unitsPerEm && face.weight == font.weightClass)
            #expect(close(face.ascender, Double(font.vertical.ascender) / Double(font.unitsPerEm)))
            #expect(close(face.descender, Double(font.vertical.descender) / Double(font.unitsPerEm)))
            #expect(close(face.lineGap, Double(font.vertical.lineGap) / Double(font.unitsPerEm)))
        }
    }

    @Test("A directory registers every font file below it; the first family is the default")
    func directory() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let nested = directory.appendingPathComponent("nested")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.dejaVu, toPath: directory.appendingPathComponent("A.TTF").path)
        try FileManager.default.copyItem(atPath: Self.noto + "NotoSans-Regular.ttf", toPath: nested.appendingPathComponent("b.ttf").path)
        try Data("not a font".utf8).write(to: directory.appendingPathComponent("readme.txt"))
        var registry = FontRegistry()
        #expect(try registry.register(directory: directory.path) { Issue.record("skipped \($0)") }.count == 2)
        #expect(registry.families == ["DejaVu Sans", "Noto Sans"])
        // No default family set: the first registered (A.TTF sorts first). Widths come from DejaVu's hmtx.
        let dejaVu = try #require(Support.font("DejaVuSans.ttf"))
        let layout = try FontMeasurer(registry: registry).measure("abc", style: TextStyle(size: 16))
        #expect(close(layout.width, dejaVu.advance("a", size: 16) + dejaVu.advance("b", size: 16) + dejaVu.advance("c", size: 16)))
    }

    @Test("Missing, broken and empty font sources are errors that name them")
    func badSources() throws {
        var registry = FontRegistry()
        #expect(throws: TextError("cannot load the font: cannot open the file", path: "/nonexistent/x.ttf", kind: .font)) {
            try registry.register(file: "/nonexistent/x.ttf")
        }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: TextError("no font files (.ttf, .otf, .ttc, .otc) in the directory", path: directory.path, kind: .font)) {
            try registry.register(directory: directory.path) { _ in }
        }
        let broken = directory.appendingPathComponent("broken.ttf")
        try Data("definitely not a font file".utf8).write(to: broken)
        #expect(throws: TextError("cannot load the font: unknown file format", path: broken.path, kind: .font)) {
            try registry.register(file: broken.path)
        }
        // A directory with a broken file registers nothing.
        try FileManager.default.copyItem(atPath: Self.dejaVu, toPath: directory.appendingPathComponent("a.ttf").path)
        #expect(throws: TextError.self) { try registry.register(directory: directory.path) { _ in } }
        #expect(registry.faces.isEmpty)
        #expect(throws: TextError("not a directory", path: "/nonexistent", kind: .font)) {
            try registry.register(directory: "/nonexistent") { _ in }
        }
    }

    @Test("Unknown families are errors that list what is registered; aliases name registered families")
    func familiesAndAliases() throws {
        var registry = FontRegistry()
        try registry.register(file: Self.noto + "NotoSans-Regular.ttf")
        let measurer = FontMeasurer(registry: registry)
        #expect(throws: TextError("no font family \"Helvetica\" is registered (registered: Noto Sans)", path: "runs[0].style.family", kind: .font)) {
            try measurer.measure("abc", style: TextStyle(family: "Helvetica"))
        }
        #expect(throws: TextError("no font family \"Nope\" is registered (registered: Noto Sans)", path: "family", kind: .font)) {
            try registry.setAlias("Helvetica", for: "Nope")
        }
        // A name over 64 Unicode scalars is clipped (a megabyte-long one was quoted whole).
        let long = String(repeating: "x", count: 1000)
        #expect(throws: TextError("no font family \"\(String(repeating: "x", count: 64))... (936 more characters)\" is registered (registered: Noto Sans)",
                                  path: "runs[0].style.family", kind: .font)) {
            try measurer.measure("abc", style: TextStyle(family: long))
        }
        try registry.setAlias("Helvetica", for: "Noto Sans")
        let aliased = try FontMeasurer(registry: registry).measure("abc", style: TextStyle(family: "helvetica"))
        #expect(aliased.width == (try FontMeasurer(registry: registry).measure("abc")).width)
        #expect(throws: TextError("no fonts are registered", path: "family", kind: .font)) {
            try FontRegistry().face(family: nil)
        }
    }

    @Test("Fallback families are tried per script; without one a missing glyph keeps its .notdef advance")
    func fallbacks() throws {
        var registry = FontRegistry()
        try registry.register(file: Self.noto + "NotoSans-Regular.ttf")
        try registry.register(file: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
        registry.defaultFamily = "Noto Sans"
        let noto = Support.notoSans
        let without = try FontMeasurer(registry: registry).measure("a日", style: TextStyle(size: 10))
        #expect(close(without.width, noto.advance("a", size: 10) + noto.points(noto.notdefAdvance, size: 10)))
        try #require(without.lines.count == 1)
        #expect(without.lines[0].runs.map { $0.font?.family } == ["Noto Sans"])
        registry.setFallback(["Noto Sans CJK SC"], for: .han)
        let with = try FontMeasurer(registry: registry).measure("a日", style: TextStyle(size: 10))
        try #require(with.lines.count == 1)
        #expect(with.lines[0].runs.map { $0.font?.family } == ["Noto Sans", "Noto Sans CJK SC"])
        let cjk = try #require(Support.font("NotoSansCJK-Regular.ttc"))
        #expect(close(with.width, noto.advance("a", size: 10) + cjk.advance("日", size: 10)))
    }

    @Test("The standard registry has the Debian fonts, with Noto Sans by default")
    func standard() throws {
        let registry = try FontRegistry.standard()
        #expect(registry.defaultFamily == "Noto Sans")
        for family in ["Noto Sans", "Noto Serif", "Noto Sans Arabic", "Noto Sans Hebrew", "Noto Sans CJK JP", "Noto Color Emoji", "DejaVu Sans"] {
            #expect(registry.families.contains(family), "\(family)")
        }
        #expect(registry.fallback(for: .arabic) == ["Noto Sans Arabic"])
        #expect(registry.fallback(for: .emoji) == ["Noto Color Emoji"])
    }
}
