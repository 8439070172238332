import Dispatch
import Testing
import WeftLayout
@testable import WeftNodes
import WeftText

@Suite("Text nodes: statistics and pictures")
struct TextNodeOutputTests {
    /// The shaped-run cache is keyed without widths: measuring the same text at a second width only breaks lines.
    @Test("Node statistics count the tracked measurer's shaped-run cache")
    func cacheStatistics() throws {
        let measurer = try smallMeasurer()
        let statistics = NodeStatistics()
        statistics.trackTextCache(of: measurer)
        let before = statistics.snapshot
        let node = TextNode(text: "Weft lays out text", textStyle: TextStyle(size: 20), measurer: measurer)
        _ = try node.layoutThatFits(SizeRange(min: .zero, max: Size(100, .infinity)))
        _ = try node.layoutThatFits(SizeRange(min: .zero, max: Size(300, .infinity)))
        let counts = statistics.snapshot.subtracting(before)
        #expect(counts.textCacheMisses == 1 && counts.textCacheHits == 1)
        // The same layout again is the node's own cache: no text measured.
        _ = try node.layoutThatFits(SizeRange(min: .zero, max: Size(300, .infinity)))
        #expect(statistics.snapshot.subtracting(before) == counts)
        // An instance that tracks nothing counts nothing.
        #expect(NodeStatistics().snapshot.textCacheHits == 0)
    }

    @Test("A text node draws its lines into SVG pictures: each run at its baseline, in its font")
    func picture() throws {
        let node = TextNode(attributedText: AttributedText([("Bold ", TextStyle(size: 20, weight: 700)),
                                                            ("italic", TextStyle(family: "Noto Serif", size: 20, isItalic: true))]))
        node.identifier = "title"
        let (svg, caption) = node.svgContent(in: Rect(x: 10, y: 20, width: 97, height: 27.5))
        // The baseline is 1.069 x 20 = 21.38 below the top; "italic" starts after "Bold " (2489 units: 49.78).
        #expect(svg.contains(##"<text x="10" y="41.38" font-family="Noto Sans" font-size="20" font-weight="700" "##
            + ##"fill="#1a202c" xml:space="preserve">Bold </text>"##))
        #expect(svg.contains(##"<text x="59.78" y="41.38" font-family="Noto Serif" font-size="20" font-weight="400" "##
            + ##"font-style="italic" fill="#1a202c" xml:space="preserve">italic</text>"##))
        // The line's box: (2489 + 2346) / 1000 x 20 = 96.7 wide, 27.24 tall.
        #expect(svg.contains(##"<rect x="10" y="20" width="96.7" height="27.24" fill="#fefcbf" stroke="none"/>"##))
        #expect(caption == "1 line")
        // A truncated line ends with its token, in the font of the text it follows.
        let cut = TextNode(text: "Weft lays out text", textStyle: TextStyle(size: 20), paragraphStyle: ParagraphStyle(maximumNumberOfLines: 1))
        let (cutSVG, cutCaption) = cut.svgContent(in: Rect(x: 0, y: 0, width: 100, height: 27.5))
        #expect(cutSVG.contains(##"xml:space="preserve">Weft lay</text>"##))
        #expect(cutSVG.contains(##"<text x="75.36" y="21.38" font-family="Noto Sans" font-size="20" font-weight="400" "##
            + ##"fill="#1a202c" xml:space="preserve">…</text>"##))
        #expect(cutCaption == "1 line, truncated")
        // A text that cannot be measured draws nothing and says why.
        let bad = TextNode(text: "a", textStyle: TextStyle(size: -1))
        #expect(bad.svgContent(in: Rect(x: 0, y: 0, width: 10, height: 10)) == ("", "cannot be measured: runs[0].style.size: expected a number from 0.01 to 10000, got -1"))
    }
}

/// Setters from many threads at once: each is one atomic change, so none is lost, and the style's baselines
/// always belong to the text that is set (TSan lane: `Concurrent`).
@Suite("Text nodes: concurrent setters")
struct ConcurrentTextNodeTests {
    @Test("Concurrent text and style setters all land, with matching baselines")
    func concurrentSetters() throws {
        let node = TextNode(text: "start", measurer: FixedMetricsMeasurer())
        let rounds = 300
        DispatchQueue.concurrentPerform(iterations: 4) { lane in
            for i in 0..<rounds {
                switch lane {
                case 0: node.text = "text \(i)"
                case 1: node.textStyle = TextStyle(size: Double(10 + i % 7))
                case 2: node.paragraphStyle = ParagraphStyle(maximumNumberOfLines: i % 5)
                default: _ = try? node.layoutThatFits(SizeRange(min: .zero, max: Size(80, .infinity)))
                }
            }
        }
        // The last value of each setter: no setter lost another's change.
        let size = Double(10 + (rounds - 1) % 7)
        #expect(node.attributedText == AttributedText("text \(rounds - 1)", style: TextStyle(size: size),
                                                      paragraph: ParagraphStyle(maximumNumberOfLines: (rounds - 1) % 5)))
        // Fixed metrics: ascender 0.8 x size plus half of the leading (1.25 - 1) x size, descender the rest.
        #expect(close(node.style.ascender, 0.925 * size) && close(node.style.descender, -0.325 * size))
        #expect(node.textProblem == nil)
    }
}
