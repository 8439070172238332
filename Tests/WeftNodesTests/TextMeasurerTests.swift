import Testing
import WeftLayout
@testable import WeftNodes

@Suite("Simple text measurer")
struct TextMeasurerTests {
    /// At 10 pt, "a" advances 5 and the ellipsis 5, a space 2.5. "aaaa bbbb" in 22 points wraps after "aaaa"
    /// (20 + 2.5 + 20 > 22); with one line allowed, that line is cut: "aaa" + "…" is 20 wide and fits, "aaaa" +
    /// "…" (25) does not.
    @Test("A line cut at the line limit keeps the longest prefix that fits beside the token")
    func truncation() {
        var attributes = TextAttributes(fontSize: 10)
        attributes.maximumNumberOfLines = 1
        let measurement = SimpleTextMeasurer().measure("aaaa bbbb", attributes: attributes, width: 22)
        #expect(measurement.lines == ["aaa\u{2026}"])
        #expect(measurement.isTruncated)
        #expect(measurement.size == Size(20, 12.5))
    }

    /// The token alone is wider than the line: nothing of the line is kept, and trailing spaces go.
    @Test("A token wider than the line keeps only the token")
    func wideToken() {
        let measurer = SimpleTextMeasurer()
        #expect(measurer.truncate("ab cd", token: "[more]", width: 5, fontSize: 10) == "[more]")
        // "ab " is 12.5 wide at 10 pt; with "…" (5) it fits in 18, and the trailing space is dropped.
        #expect(measurer.truncate("ab cd", token: "\u{2026}", width: 18, fontSize: 10) == "ab\u{2026}")
    }

    /// Cutting a long line looks each character's advance up at most once: the work is linear in the line
    /// (it re-measured the whole line for every character removed: 2.6 s for 14 KB).
    @Test("Truncation is linear in the line's length")
    func linearTruncation() {
        let measurer = SimpleTextMeasurer()
        for length in [2_000, 20_000] {
            let line = String(repeating: "a", count: length)
            let token = String(repeating: " ", count: length / 2)
            var lookups = 0
            // At 1 pt "a" is 0.5 and a space 0.25 (exact in binary): the token takes 0.125 x length of a line
            // length / 2 wide, leaving room for 0.375 x length / 0.5 = 0.75 x length characters of the line.
            let cut = measurer.truncate(line, token: token, width: Double(length) / 2, fontSize: 1) { character in
                lookups += 1
                return SimpleTextMeasurer.advance(of: character)
            }
            #expect(cut.count == length * 3 / 4 + length / 2)
            #expect(lookups <= length + token.count + 1, "\(lookups) advance lookups for \(length) characters")
        }
    }
}
