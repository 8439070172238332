import Testing
import WeftText

@Suite("README text example")
struct ReadmeExampleTests {
    /// The `WeftText` example of the README, as printed there (but for the print).
    @Test("The README's text example breaks between ideographs and falls back per script")
    func example() throws {
        let measurer = try FontMeasurer.standard()    // or FontMeasurer(registry: myFonts)
        let layout = try measurer.measure("Weft lays out 日本語 and 👍🏽", style: TextStyle(size: 14), width: 120)
        try #require(layout.lines.count == 2)
        // UAX #14 (LB31) allows a break between ideographs: the first line ends after 本, since one more
        // ideograph (1 em = 14 points in Noto Sans CJK, fontTools) would pass 120 points.
        #expect(layout.lines.map(\.range) == [0..<16, 16..<26])
        #expect(layout.lines[0].width <= 120 && layout.lines[0].width + 14 > 120)
        #expect(layout.lines[0].runs.map { $0.font?.family } == ["Noto Sans", "Noto Sans CJK JP"])
        #expect(layout.lines[1].runs.map { $0.font?.family } == ["Noto Sans CJK JP", "Noto Sans", "Noto Color Emoji"])
        #expect(layout.ascender > 0 && layout.descender < 0)
    }
}
