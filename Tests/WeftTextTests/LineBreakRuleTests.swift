import Testing
@testable import WeftText

/// Line break opportunities against the rules of UAX #14 (Unicode Line Breaking Algorithm), each case
/// named after the rule that decides it. Offsets are UTF-16; an opportunity at n means a line may start at
/// n. The end of the text is always one.
@Suite("UAX #14 line breaks")
struct LineBreakRuleTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var rule: String
        var text: String
        var opportunities: [Int]
        var mandatory: [Int] = []
        var testDescription: String { rule }
    }

    static let cases: [Case] = [
        Case(rule: "LB7, LB18: no break before a space, a break after spaces", text: "ab  cd", opportunities: [4, 6]),
        Case(rule: "LB4, LB6: a mandatory break after LF, none before it", text: "ab\ncd", opportunities: [3, 5], mandatory: [3]),
        Case(rule: "LB5: CR LF is one break", text: "a\r\nb", opportunities: [3, 4], mandatory: [3]),
        Case(rule: "LB5: NEL, LS and PS break", text: "a\u{85}b\u{2028}c", opportunities: [2, 4, 5], mandatory: [2, 4]),
        Case(rule: "LB9: a combining mark stays with its base", text: "e\u{301} x\u{308}", opportunities: [3, 5]),
        Case(rule: "LB12a: no break before a no-break space", text: "a\u{A0}b c", opportunities: [4, 5]),
        Case(rule: "LB13: no break before an exclamation mark", text: "Hi! Yo", opportunities: [4, 6]),
        Case(rule: "LB21: a break after a hyphen, none before it", text: "well-known", opportunities: [5, 10]),
        Case(rule: "LB25: no break inside a number with its prefix and punctuation", text: "$12.50 -5", opportunities: [7, 9]),
        Case(rule: "LB8a: no break inside an emoji ZWJ sequence", text: "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467} x", opportunities: [9, 10]),
        Case(rule: "LB30b: no break between an emoji and its modifier", text: "\u{1F44D}\u{1F3FD}\u{1F44D}", opportunities: [4, 6]),
        Case(rule: "LB30a: regional indicators pair up as flags", text: "\u{1F1EF}\u{1F1F5}\u{1F1EB}\u{1F1F7}", opportunities: [4, 8]),
        Case(rule: "LB31 (ID): a break between ideographs", text: "日本語", opportunities: [1, 2, 3]),
        Case(rule: "LB13, LB14: no break after an opening or before a closing bracket", text: "「日本」です", opportunities: [2, 4, 5, 6]),
        Case(rule: "LB13, LB29: no break before a slash or after a full stop before letters", text: "https://a.com/b", opportunities: [8, 14, 15]),
    ]

    @Test("Break opportunities follow the rule", arguments: cases)
    func opportunities(_ reference: Case) throws {
        let paragraph = try Shaper.shape(AttributedText(reference.text), registry: Support.measurer.registry)
        #expect(paragraph.breaks.map { Int($0.position) } == reference.opportunities)
        #expect(paragraph.breaks.filter(\.isMandatory).map { Int($0.position) } == reference.mandatory)
    }

    @Test("A narrow line breaks at the opportunities and hangs the spaces")
    func wrapsAtOpportunities() throws {
        // "ab  cd" in Noto Sans at 10 pt: "ab" fits 12 points, the spaces hang, "cd" goes on.
        let layout = try Support.measurer.measure("ab  cd", style: TextStyle(size: 10), width: 12)
        try #require(layout.lines.count == 2)
        let font = Support.notoSans
        #expect(layout.lines.map(\.range) == [0..<4, 4..<6])
        #expect(close(layout.lines[0].width, font.advance("a", size: 10) + font.advance("b", size: 10)))
        #expect(close(layout.lines[1].width, font.advance("c", size: 10) + font.advance("d", size: 10)))
    }

    @Test("A URL wider than the line breaks at its opportunities, then between characters")
    func longURL() throws {
        let url = "https://example.com/weft/layout?text=harfbuzz&lines=3"
        let text = AttributedText(url, style: TextStyle(size: 12))
        for width in [40.0, 25.0, 7.0] {
            let layout = try Support.measurer.measure(text, constraints: TextConstraints(width: width))
            #expect(layout.lines.map { String(text.substring($0.range)) }.joined() == url)
            // Every line fits, but a line of one character, which is always taken.
            for line in layout.lines where line.range.count > 1 { #expect(line.width <= width) }
            #expect(layout.lines.count > 1)
        }
    }

    @Test("Character wrapping breaks between any two grapheme clusters")
    func characterWrapping() throws {
        // "e + combining acute" is one cluster: at 9 points "ab" (5.61 + 6.15) does not fit, so each line
        // holds one cluster.
        let text = AttributedText("abe\u{301}", style: TextStyle(size: 10), paragraph: ParagraphStyle(wrapping: .character))
        let layout = try Support.measurer.measure(text, constraints: TextConstraints(width: 9))
        #expect(layout.lines.map(\.range) == [0..<1, 1..<2, 2..<4])
        let words = AttributedText("ab cd", style: TextStyle(size: 10), paragraph: ParagraphStyle(wrapping: .character))
        // 20 points: "ab c" is 5.61 + 6.15 + 2.6 + 4.8 = 19.16; "ab cd" 25.31 does not fit.
        #expect(try Support.measurer.measure(words, constraints: TextConstraints(width: 20)).lines.map(\.range) == [0..<4, 4..<5])
    }
}
