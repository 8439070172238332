import Testing
import WeftText

/// The deterministic measurer keeps `SimpleTextMeasurer`'s rules and numbers (WeftNodes' text tests): a, b,
/// c, d, e, f are 0.5 em, the space 0.25 em, line height 1.25 x the size.
@Suite("Fixed metrics")
struct FixedMetricsMeasurerTests {
    let measurer = FixedMetricsMeasurer()

    func lines(_ layout: TextLayout, _ text: String) -> [String] {
        let attributed = AttributedText(text)
        return layout.lines.map { line in
            var string = String(attributed.substring(line.range).split(separator: " ").joined(separator: " "))
            if line.runs.last?.isTruncationToken == true { string += layout.truncationToken ?? "" }
            return string
        }
    }

    @Test("Words wrap, long words break, the line limit truncates: SimpleTextMeasurer's numbers")
    func simpleMeasurerNumbers() throws {
        let style = TextStyle(size: 10)
        // "ab cd" at 10pt: 5 + 5 + 2.5 + 5 + 5.
        let oneLine = try measurer.measure("ab cd", style: style, width: 100)
        #expect(lines(oneLine, "ab cd") == ["ab cd"])
        #expect(oneLine.width == 22.5 && oneLine.height == 12.5)
        // 15 points wide: "ab" (10) fits, "ab cd" (22.5) does not.
        let wrapped = try measurer.measure("ab cd", style: style, width: 15)
        #expect(lines(wrapped, "ab cd") == ["ab", "cd"])
        #expect(wrapped.width == 10 && wrapped.height == 25)
        // Three lines cut to two: the second keeps what fits beside the 5-point token in 15 points.
        let cut = try measurer.measure("ab cd ef", style: style, paragraph: ParagraphStyle(maximumNumberOfLines: 2), width: 15)
        #expect(lines(cut, "ab cd ef") == ["ab", "cd\u{2026}"])
        #expect(cut.isTruncated && cut.width == 15)
        // A word wider than the line is broken between characters.
        #expect(lines(try measurer.measure("abcdef", style: style, width: 12), "abcdef") == ["ab", "cd", "ef"])
        // Line height 20 with a 10-point font: half-leading 5, ascender 8 + 5, descender -(2 + 5).
        let metrics = try measurer.lineMetrics(for: TextStyle(size: 10, lineHeight: 20))
        #expect(metrics.ascender == 13 && metrics.descender == -7)
        let tall = try measurer.measure("ab cd", style: TextStyle(size: 10, lineHeight: 20), width: 15)
        #expect(tall.height == 40 && tall.ascender == 13 && tall.descender == -7)
    }

    @Test("Advances per character class, runs of spaces count once, newlines and empty text")
    func classes() throws {
        // i 0.3, m 0.85, W 0.85, A 0.65, 7 0.55, é 0.5: 3.7 em at the default 14 pt.
        #expect(close(try measurer.measure("imWA7é").width, 3.7 * 14))
        #expect(try measurer.measure("a   b", style: TextStyle(size: 10)).width == 12.5)
        let paragraphs = try measurer.measure("ab\n\ncd", style: TextStyle(size: 10))
        #expect(paragraphs.lines.map(\.range) == [0..<2, 3..<3, 4..<6] && paragraphs.height == 37.5)
        let empty = try measurer.measure("", style: TextStyle(size: 10))
        #expect(empty.lines.isEmpty && empty.height == 0 && empty.ascender == 9.25)  // 8 + half of 2.5
    }

    @Test("Runs of other sizes and letter spacing add up")
    func runs() throws {
        let text = AttributedText([("ab", TextStyle(size: 10)), ("cd", TextStyle(size: 20, letterSpacing: 1))])
        let layout = try measurer.measure(text, constraints: TextConstraints())
        try #require(layout.lines.count == 1)
        #expect(layout.width == 10 + 22)
        #expect(layout.lines[0].runs.map(\.x) == [0, 10] && layout.lines[0].runs.map(\.size) == [10, 20])
        // The line is as tall as its tallest run: 25.
        #expect(layout.height == 25)
    }
}
