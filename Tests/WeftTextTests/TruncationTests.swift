import Testing
import WeftText

/// maximumNumberOfLines and tail truncation, with widths from Noto Sans's advances (fontTools): at 10 pt
/// a 5.61, b 6.15, c 4.8, space 2.6, the token "…" 7.91; bold b 6.33, c 5.14, "…" 8.55. None of these pairs
/// kern (checked with hb-shape).
@Suite("Line limits and truncation")
struct TruncationTests {
    let noto = Support.notoSans
    let bold = Support.font("NotoSans-Bold.ttf")!
    let measurer = Support.measurer

    func text(_ string: String, lines: Int, truncation: ParagraphStyle.Truncation = .tail) -> AttributedText {
        AttributedText(string, style: TextStyle(size: 10), paragraph: ParagraphStyle(maximumNumberOfLines: lines, truncation: truncation))
    }

    @Test("One line: as many clusters as fit beside the token")
    func oneLine() throws {
        // 30 points: 30 - 7.91 = 22.09 for text; "aaaa" is 22.44, "aaa" 16.83.
        let layout = try measurer.measure(text("aaaa bbbb cccc", lines: 1), constraints: TextConstraints(width: 30))
        try #require(layout.lines.count == 1)
        #expect(layout.isTruncated && layout.truncationToken == "\u{2026}")
        #expect(layout.lines.count == 1 && layout.lines[0].range == 0..<3)
        #expect(close(layout.lines[0].width, 3 * noto.advance("a", size: 10) + noto.advance("\u{2026}", size: 10)))
        let token = try #require(layout.lines[0].runs.last)
        #expect(token.isTruncationToken && token.range == 3..<3)
        #expect(close(token.x, 3 * noto.advance("a", size: 10)))
    }

    @Test("Two lines: the first as wrapped, the second cut")
    func twoLines() throws {
        // Line 1 "aaaa " (the next word does not fit); line 2 from "bbbb cccc": "bbb" (18.45) + token fits 22.09.
        let layout = try measurer.measure(text("aaaa bbbb cccc", lines: 2), constraints: TextConstraints(width: 30))
        try #require(layout.lines.count == 2)
        #expect(layout.lines.map(\.range) == [0..<5, 5..<8])  // a line keeps its hanging space
        #expect(close(layout.lines[1].width, 3 * noto.advance("b", size: 10) + noto.advance("\u{2026}", size: 10)))
        let line = noto.points(noto.vertical.ascender - noto.vertical.descender, size: 10)
        #expect(close(layout.height, 2 * line))
    }

    @Test("Spaces before the token are dropped")
    func trailingSpaces() throws {
        // 28 points leave 20.09: "aaa " fits with its space (hanging), "aaa b" (25.04) does not; the cut
        // keeps "aaa" and the token follows it directly.
        let layout = try measurer.measure(text("aaa bbbbbbbb", lines: 1), constraints: TextConstraints(width: 28))
        try #require(layout.lines.count == 1)
        #expect(layout.lines[0].range == 0..<3)
        #expect(close(layout.lines[0].width, 3 * noto.advance("a", size: 10) + noto.advance("\u{2026}", size: 10)))
    }

    @Test("Clipping drops the lines beyond the limit without a token")
    func clip() throws {
        let layout = try measurer.measure(text("aaaa bbbb cccc", lines: 2, truncation: .clip), constraints: TextConstraints(width: 30))
        #expect(layout.isTruncated && layout.truncationToken == nil)
        #expect(layout.lines.map(\.range) == [0..<5, 5..<10])
    }

    @Test("Text that fits is not truncated")
    func fits() throws {
        let layout = try measurer.measure(text("aaaa bbbb", lines: 2), constraints: TextConstraints(width: 30))
        #expect(!layout.isTruncated && layout.truncationToken == nil && layout.lines.count == 2)
    }

    @Test("Lines cut by line breaks get the token after their whole text")
    func newlineLimit() throws {
        let layout = try measurer.measure(text("ab\ncd", lines: 1), constraints: TextConstraints())
        try #require(layout.lines.count == 1)
        #expect(layout.isTruncated && layout.lines[0].range == 0..<2)
        #expect(close(layout.width, noto.advance("a", size: 10) + noto.advance("b", size: 10) + noto.advance("\u{2026}", size: 10)))
    }

    @Test("The token takes the font of the text it follows")
    func tokenStyle() throws {
        // Regular "aaaa " then bold "bbbb cccc" in 60 points: with a bold token (8.55), 51.45 for text;
        // "aaaa bbbb" is 22.44 + 2.6 + 25.32 = 50.36; adding " c" would be 58.1.
        let text = AttributedText([("aaaa ", TextStyle(size: 10)), ("bbbb cccc dddd", TextStyle(size: 10, weight: 700))],
                                  paragraph: ParagraphStyle(maximumNumberOfLines: 1))
        let layout = try measurer.measure(text, constraints: TextConstraints(width: 60))
        try #require(layout.lines.count == 1)
        #expect(layout.lines[0].range == 0..<9)
        let token = try #require(layout.lines[0].runs.last)
        #expect(token.isTruncationToken && token.font?.weight == 700)
        let kept = 4 * noto.advance("a", size: 10) + noto.advance(" ", size: 10) + 4 * bold.advance("b", size: 10)
        #expect(close(layout.lines[0].width, kept + bold.advance("\u{2026}", size: 10)))
    }

    @Test("When not even one cluster fits, the line is the token alone")
    func tokenOnly() throws {
        let layout = try measurer.measure(text("aaaa bbbb", lines: 1), constraints: TextConstraints(width: 9))
        try #require(layout.lines.count == 1)
        #expect(layout.lines[0].range == 0..<0)
        #expect(close(layout.lines[0].width, noto.advance("\u{2026}", size: 10)))
    }

    @Test("A long text cut to one line costs what the line needs")
    func longTextCut() throws {
        let long = String(repeating: "abc ", count: 50_000)
        let layout = try measurer.measure(text(long, lines: 1), constraints: TextConstraints(width: 100))
        try #require(layout.lines.count == 1)
        #expect(layout.lines.count == 1 && layout.isTruncated)
        #expect(layout.lines[0].width <= 100)
    }
}
