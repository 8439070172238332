import Testing
import WeftLayout
import WeftNodes
import WeftText

/// The old node-layer measurer's tests, on WeftText's `FixedMetricsMeasurer` (the same rules and numbers):
/// at 10 pt, "a" to "f" and the ellipsis advance 5, a space 2.5, and a line is 12.5 tall.
@Suite("Fixed text metrics (the node layer's deterministic measurer)")
struct TextMeasurerTests {
    let measurer = FixedMetricsMeasurer()

    /// "ab cd" at 10 pt: a, b, c, d are 0.5 em = 5 each, the space 0.25 em = 2.5.
    @Test("Text wraps at word boundaries, honours the line limit, and reports its baselines")
    func text() throws {
        let style = TextStyle(size: 10)
        let oneLine = try measurer.measure("ab cd", style: style, width: 100)
        #expect(oneLine.lines.map(\.range) == [0..<5])
        #expect(oneLine.width == 22.5 && oneLine.height == 12.5)
        // 15 points wide: "ab" (10) fits, "ab cd" (22.5) does not.
        let wrapped = try measurer.measure("ab cd", style: style, width: 15)
        #expect(wrapped.lines.map(\.range) == [0..<2, 3..<5])
        #expect(wrapped.width == 10 && wrapped.height == 25)
        // Three lines cut to two: the second line keeps what fits beside the 5-point token in 15 points.
        let cut = try measurer.measure("ab cd ef", style: style, paragraph: ParagraphStyle(maximumNumberOfLines: 2), width: 15)
        #expect(cut.lines.map(\.range) == [0..<2, 3..<5])
        #expect(cut.isTruncated && cut.lines[1].width == 15)
        // A word wider than the line is broken between characters.
        #expect(try measurer.measure("abcdef", style: style, width: 12).lines.map(\.range) == [0..<2, 2..<4, 4..<6])
        // Line height 20 with a 10-point font: half-leading 5, ascender 8 + 5, descender -(2 + 5).
        let metrics = try measurer.lineMetrics(for: TextStyle(size: 10, lineHeight: 20))
        #expect(metrics.ascender == 13 && metrics.descender == -7)
        let node = TextNode(text: "ab cd", textStyle: TextStyle(size: 10, lineHeight: 20), measurer: measurer)
        #expect(node.style.ascender == 13 && node.style.descender == -7)
        #expect(try node.layoutThatFits(SizeRange(min: .zero, max: Size(15, 100))).size == Size(10, 40))
    }

    /// "aaaa bbbb" in 22 points wraps after "aaaa" (20 + 2.5 + 20 > 22); with one line allowed, that line is
    /// cut: "aaa" + "…" is 20 wide and fits, "aaaa" + "…" (25) does not.
    @Test("A line cut at the line limit keeps the longest prefix that fits beside the token")
    func truncation() throws {
        let layout = try measurer.measure("aaaa bbbb", style: TextStyle(size: 10), paragraph: ParagraphStyle(maximumNumberOfLines: 1),
                                          width: 22)
        let line = try #require(layout.lines.first)
        #expect(layout.lines.count == 1)
        #expect(line.range == 0..<3)
        #expect(line.runs.last?.isTruncationToken == true)
        #expect(layout.isTruncated && layout.truncationToken == "\u{2026}")
        #expect(layout.width == 20 && layout.height == 12.5)
    }

    /// The token alone is wider than the line: nothing of the line is kept. A cut just after a space drops the
    /// space: "ab cd" fits 22.5; with a 10-point token ("……"), "ab " (12.5) fits beside it and "ab c" (17.5)
    /// does not, so the line keeps "ab", 10 + 10 = 20 wide.
    @Test("A token wider than the line keeps only the token; spaces before the token go")
    func wideToken() throws {
        let alone = try measurer.measure("ab cd\nef", style: TextStyle(size: 10),
                                         paragraph: ParagraphStyle(maximumNumberOfLines: 1, truncationToken: "[more]"), width: 5)
        // "[more]": [ 0.5, m 0.85, o 0.5, r 0.3, e 0.5, ] 0.5 = 3.15 em, 31.5 points.
        #expect(alone.lines.map(\.range) == [0..<0])
        #expect(alone.width == 31.5)
        let spaced = try measurer.measure("ab cd\nef", style: TextStyle(size: 10),
                                          paragraph: ParagraphStyle(maximumNumberOfLines: 1, truncationToken: "\u{2026}\u{2026}"),
                                          width: 22.5)
        #expect(spaced.lines.map(\.range) == [0..<2])
        #expect(spaced.width == 20)
    }

    /// Cutting a long line is linear in its length: the old measurer re-measured the whole line for every
    /// character it removed (2.6 s for 14 KB), which at 200,000 characters would take hours; the time limit
    /// turns such a regression into a failure instead of a hang (it is a guard, not a speed target).
    ///
    /// At 1 pt "a" is 0.5 and a space 0.25 (exact in binary). The line of `length` a's fills the width
    /// length / 2 exactly; a token of length / 2 spaces takes 0.125 x length of it, leaving room for
    /// 0.375 x length / 0.5 = 0.75 x length characters.
    @Test("Truncation is linear in the line's length", .timeLimit(.minutes(1)))
    func linearTruncation() throws {
        for length in [2_000, 200_000] {
            let text = String(repeating: "a", count: length) + "\nb"
            let token = String(repeating: " ", count: length / 2)
            let layout = try measurer.measure(text, style: TextStyle(size: 1),
                                              paragraph: ParagraphStyle(maximumNumberOfLines: 1, truncationToken: token),
                                              width: Double(length) / 2)
            #expect(layout.lines.map(\.range) == [0..<(length * 3 / 4)])
            #expect(layout.width == Double(length) / 2)
        }
    }
}
