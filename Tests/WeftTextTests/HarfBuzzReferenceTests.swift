import Testing
import WeftText

/// Widths against HarfBuzz's own `hb-shape` (libharfbuzz-bin) on the same font files: Latin with kerning
/// and ligatures (Noto Sans and Noto Serif), features, combining marks, a URL, CJK, emoji sequences, Arabic, Hebrew, Devanagari, and
/// fallback from the default family. `Fixtures/hb-shape.json` holds each command and what it printed
/// (recorded by `Fixtures/record-hb-shape.py`); when hb-shape is installed the test runs the command again.
@Suite("Widths match hb-shape")
struct HarfBuzzReferenceTests {
    @Test("The fixtures hold the reference cases")
    func fixturesLoad() {
        #expect(Support.shapeCases.count == 15)
    }

    @Test("Each string measures the sum of hb-shape's advances, scaled to the size", arguments: Support.shapeCases)
    func matchesHBShape(_ reference: Support.ShapeCase) throws {
        for size in [16.0, 10.5] {
            var style = reference.style
            style.size = size
            let layout = try Support.measurer.measure(reference.text, style: style)
            let expected = reference.parts.reduce(0.0) { $0 + Double($1.total) * size / Double($1.unitsPerEm) }
            #expect(layout.lines.count == 1)
            #expect(close(layout.width, expected), "\(reference.name) at \(size): \(layout.width) != \(expected)")
        }
    }

    @Test("hb-shape still prints the recorded advances", arguments: Support.shapeCases)
    func fixtureIsCurrent(_ reference: Support.ShapeCase) throws {
        guard Support.hasHBShape else { return }
        for part in reference.parts {
            #expect(try Support.runHBShape(part.command) == part.advances, "\(part.command)")
        }
    }

    @Test("Runs name the fonts fallback chose, each as wide as its hb-shape part")
    func fallbackRuns() throws {
        let reference = try #require(Support.shapeCases.first { $0.name == "fallback: Latin, CJK and emoji" })
        let layout = try Support.measurer.measure(reference.text, style: TextStyle(size: 20))
        let runs = try #require(layout.lines.first?.runs)
        #expect(runs.map { $0.font?.family } == ["Noto Sans", "Noto Sans CJK JP", "Noto Sans", "Noto Color Emoji"])
        var x = 0.0
        for (run, part) in zip(runs, reference.parts) {
            let width = Double(part.total) * 20 / Double(part.unitsPerEm)
            #expect(close(run.x, x) && close(run.width, width), "\(part.text): x \(run.x) width \(run.width)")
            x += width
        }
    }
}

@Suite("Bidi")
struct BidiTests {
    @Test("Right-to-left runs are shaped right to left, each as wide as hb-shape's")
    func directions() throws {
        let reference = try #require(Support.shapeCases.first { $0.name == "fallback: Latin and Arabic" })
        let layout = try Support.measurer.measure(reference.text, style: TextStyle(size: 10))
        try #require(layout.lines.count == 1)
        #expect(layout.lines[0].runs.map(\.isRightToLeft) == [false, true])
        for (run, part) in zip(layout.lines[0].runs, reference.parts) {
            #expect(close(run.width, Double(part.total) * 10 / Double(part.unitsPerEm)))
        }
        // Digits inside Arabic text are a left-to-right run of their own (bidi level 2); the spaces around
        // them take the paragraph's right-to-left direction.
        let mixed = try Support.measurer.measure("مرحبا 123 مرحبا", style: TextStyle(size: 10))
        try #require(mixed.lines.count == 1)
        #expect(mixed.lines[0].runs.filter { !$0.isRightToLeft }.map(\.range) == [6..<9])
    }
}

extension Support.ShapeCase: CustomTestStringConvertible {
    var testDescription: String { name }
}
