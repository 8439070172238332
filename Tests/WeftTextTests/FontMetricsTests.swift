import Testing
import WeftText

/// Line heights, baselines, letter spacing and sizes, derived from the fonts' own tables as fontTools reads
/// them (`Fixtures/font-metrics.json`): Noto Sans has 1000 units per em, ascender 1069, descender -293, no
/// line gap; Noto Sans CJK JP (hhea) 1160 / -288; Noto Color Emoji 2048 units, 1900 / -500.
@Suite("Metrics from the fonts")
struct FontMetricsTests {
    let noto = Support.notoSans
    let measurer = Support.measurer

    @Test("One line: the font's ascender + descender + line gap, baseline at the ascender")
    func naturalLine() throws {
        let layout = try measurer.measure("Weft", style: TextStyle(size: 20))
        let v = noto.vertical
        let height = noto.points(v.ascender - v.descender + v.lineGap, size: 20)
        #expect(close(layout.height, height))
        #expect(close(layout.ascender, noto.points(v.ascender + v.lineGap / 2, size: 20)))
        #expect(close(layout.descender, noto.points(v.descender - v.lineGap / 2, size: 20)))
        let metrics = try measurer.lineMetrics(for: TextStyle(size: 20))
        #expect(close(metrics.ascender, layout.ascender) && close(metrics.descender, layout.descender))
    }

    @Test("A set line height splits the leading evenly above and below")
    func lineHeight() throws {
        let style = TextStyle(size: 20, lineHeight: 40)
        let layout = try measurer.measure("Weft\nlayout", style: style)
        try #require(layout.lines.count == 2)
        let v = noto.vertical
        let content = noto.points(v.ascender - v.descender, size: 20)
        let baseline = (40 - content) / 2 + noto.points(v.ascender, size: 20)
        #expect(layout.height == 80)
        #expect(layout.lines.map(\.top) == [0, 40])
        #expect(close(layout.lines[0].baseline, baseline) && close(layout.lines[1].baseline, 40 + baseline))
        #expect(close(layout.ascender, baseline))
        #expect(close(layout.descender, baseline - 40))
        let metrics = try measurer.lineMetrics(for: style)
        #expect(close(metrics.ascender, baseline) && close(metrics.descender, baseline - 40))
    }

    @Test("A line with fallback text takes the tallest ascent, descent and line height of its faces")
    func fallbackMetrics() throws {
        let cjk = try #require(Support.font("NotoSansCJK-Regular.ttc"))
        let layout = try measurer.measure("ab日本", style: TextStyle(size: 10))
        let (n, c) = (noto.vertical, cjk.vertical)
        let ascent = max(noto.points(n.ascender, size: 10), cjk.points(c.ascender, size: 10))
        let descent = max(noto.points(-n.descender, size: 10), cjk.points(-c.descender, size: 10))
        let height = max(noto.points(n.ascender - n.descender + n.lineGap, size: 10),
                         cjk.points(c.ascender - c.descender + c.lineGap, size: 10))
        #expect(close(layout.height, height))
        #expect(close(layout.ascender, (height - ascent - descent) / 2 + ascent))
        let emoji = try #require(Support.font("NotoColorEmoji.ttf"))
        let withEmoji = try measurer.measure("ab\u{1F44D}", style: TextStyle(size: 10))
        let e = emoji.vertical
        #expect(close(withEmoji.height, max(noto.points(n.ascender - n.descender, size: 10), emoji.points(e.ascender - e.descender + e.lineGap, size: 10))))
    }

    @Test("Letter spacing adds after every grapheme cluster and turns ligatures off")
    func letterSpacing() throws {
        let plain = try measurer.measure("iiii", style: TextStyle(size: 10, letterSpacing: 2))
        #expect(close(plain.width, 4 * noto.advance("i", size: 10) + 4 * 2))
        // In Noto Serif "fi" is a ligature narrower than f + i (hb-shape: 663 units); with spacing, f and i
        // are set apart, each with its own advance (fontTools) and spacing.
        let serif = try #require(Support.font("NotoSerif-Regular.ttf"))
        let ligatureUnits = try #require(Support.shapeCases.first { $0.name == "serif ligature" }?.parts.first?.total)
        let ligature = try measurer.measure("fi", style: TextStyle(family: "Noto Serif", size: 10))
        #expect(close(ligature.width, serif.points(ligatureUnits, size: 10)))
        let spaced = try measurer.measure("fi", style: TextStyle(family: "Noto Serif", size: 10, letterSpacing: 0.5))
        #expect(close(spaced.width, serif.advance("f", size: 10) + serif.advance("i", size: 10) + 1))
        #expect(serif.advance("f", size: 10) + serif.advance("i", size: 10) > serif.points(ligatureUnits, size: 10))
        // A combining mark is part of its cluster: one spacing for "e + acute".
        let marked = try measurer.measure("e\u{301}", style: TextStyle(size: 10, letterSpacing: 3))
        let bare = try measurer.measure("e\u{301}", style: TextStyle(size: 10))
        #expect(close(marked.width, bare.width + 3))
    }

    @Test("Widths scale with the size; runs of other sizes add up")
    func sizes() throws {
        let small = try measurer.measure("abcde", style: TextStyle(size: 10))
        let large = try measurer.measure("abcde", style: TextStyle(size: 25))
        #expect(close(large.width, small.width * 2.5))
        let mixed = AttributedText([("ab", TextStyle(size: 10)), ("cd", TextStyle(size: 20))])
        let layout = try measurer.measure(mixed, constraints: TextConstraints())
        try #require(layout.lines.count == 1 && layout.lines[0].runs.count == 2)
        let expected = noto.advance("a", size: 10) + noto.advance("b", size: 10) + noto.advance("c", size: 20) + noto.advance("d", size: 20)
        #expect(close(layout.width, expected))
        #expect(layout.lines[0].runs.map(\.size) == [10, 20])
        #expect(close(layout.lines[0].runs[1].x, noto.advance("a", size: 10) + noto.advance("b", size: 10)))
        // The line is as tall as its tallest run.
        #expect(close(layout.height, noto.points(noto.vertical.ascender - noto.vertical.descender, size: 20)))
    }

    @Test("Weights and slants pick the registered faces")
    func faces() throws {
        let bold = try #require(Support.font("NotoSans-Bold.ttf"))
        let layout = try measurer.measure("abc", style: TextStyle(size: 10, weight: 700))
        try #require(layout.lines.count == 1)
        #expect(close(layout.width, bold.advance("a", size: 10) + bold.advance("b", size: 10) + bold.advance("c", size: 10)))
        #expect(layout.lines[0].runs[0].font?.weight == 700)
        // 600 is nearer 700 than 400 going up (CSS: above 500, heavier first).
        #expect(try measurer.registry.face(family: "Noto Sans", weight: 600).weight == 700)
        // 450: up to 500 first (none), then lighter: 400.
        #expect(try measurer.registry.face(family: "Noto Sans", weight: 450).weight == 400)
        #expect(try measurer.registry.face(family: "noto sans", isItalic: true).styleName == "Italic")
        // DejaVu Sans has no italic, only an oblique that FreeType reports as italic.
        #expect(try measurer.registry.face(family: "DejaVu Sans", weight: 700, isItalic: true).styleName == "Bold Oblique")
    }

    @Test("Empty text has no lines and its style's metrics")
    func empty() throws {
        let layout = try measurer.measure("", style: TextStyle(size: 20))
        #expect(layout.lines.isEmpty && layout.width == 0 && layout.height == 0)
        #expect(close(layout.ascender, noto.points(noto.vertical.ascender, size: 20)))
    }

    @Test("Line breaks in the text start new lines, and a final one adds an empty line")
    func newlines() throws {
        let layout = try measurer.measure("a\n\nb\n", style: TextStyle(size: 20))
        try #require(layout.lines.count == 4)
        #expect(layout.lines.map(\.range) == [0..<1, 2..<2, 3..<4, 5..<5])
        let line = noto.points(noto.vertical.ascender - noto.vertical.descender, size: 20)
        #expect(close(layout.height, 4 * line))
        #expect(layout.lines[1].width == 0)
    }
}
