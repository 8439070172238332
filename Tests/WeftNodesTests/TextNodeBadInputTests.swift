import Testing
import WeftLayout
@testable import WeftNodes
import WeftText

/// A measurer over Noto Sans alone (so that "registered: ..." lists one family), with a short length limit.
func smallMeasurer(maximumLength: Int = FontMeasurer.defaultMaximumLength) throws -> FontMeasurer {
    var registry = FontRegistry()
    try registry.register(file: FontFacts.notoSans)
    return FontMeasurer(registry: registry, maximumLength: maximumLength)
}

@Suite("Text nodes: bad text")
struct TextNodeBadInputTests {
    let range = SizeRange(min: .zero, max: Size(200, .infinity))

    @Test("An unknown family is found when it is set, and the node's layout fails naming the node and the run")
    func unknownFamily() throws {
        let node = TextNode(attributedText: AttributedText([("a", TextStyle()), ("b", TextStyle(family: "Nope"))]),
                            measurer: try smallMeasurer())
        node.identifier = "title"
        let problem = TextError("no font family \"Nope\" is registered (registered: Noto Sans)", path: "runs[1].style.family",
                                kind: .font)
        #expect(node.textProblem == problem)
        #expect(throws: LayoutError("text \"title\" cannot be measured: \(problem)", path: "root")) {
            try node.layoutThatFits(range)
        }
        // Inside a cell the path leads from the root to the node.
        let cell = ComposedNode("cell") { _ in StackSpec(StackOptions(direction: .vertical), children: [Spacer(), node]) }
        #expect(throws: LayoutError("text \"title\" cannot be measured: \(problem)", path: "root.layoutSpec.children[1]")) {
            try cell.layoutThatFits(range)
        }
        // A good family mends it.
        node.attributedText = AttributedText("ab", style: TextStyle(family: "noto sans", size: 10))
        #expect(node.textProblem == nil)
        #expect(try cell.layoutThatFits(range).size.height > 0)
    }

    @Test("Bad sizes and weights set from code are reported with their run")
    func badStyles() throws {
        for measurer in [try smallMeasurer() as any TextMeasurer, FixedMetricsMeasurer()] {
            let node = TextNode(text: "a", measurer: measurer)
            node.textStyle = TextStyle(size: 0)
            #expect(node.textProblem == TextError("expected a number from 0.01 to 10000, got 0", path: "runs[0].style.size"))
            #expect(throws: LayoutError("text cannot be measured: runs[0].style.size: expected a number from 0.01 to 10000, got 0",
                                        path: "root")) {
                try node.layoutThatFits(range)
            }
            node.textStyle = TextStyle(weight: 1001)
            #expect(node.textProblem?.path == "runs[0].style.weight")
            node.paragraphStyle = ParagraphStyle(maximumNumberOfLines: -1)
            node.textStyle = TextStyle()
            #expect(node.textProblem?.path == "paragraph.maximumNumberOfLines")
        }
    }

    @Test("A text over the measurer's length limit is refused as a limit, before any shaping")
    func tooLong() throws {
        let node = TextNode(text: String(repeating: "a", count: 11), measurer: try smallMeasurer(maximumLength: 10))
        #expect(node.textProblem == TextError("the text has 11 UTF-16 code units, more than this measurer's limit of 10",
                                              path: "string", kind: .limit))
        do {
            _ = try node.layoutThatFits(range)
            Issue.record("a text over the limit was laid out")
        } catch {
            #expect(error.kind == .limit)
        }
        // 10 MB with the standard measurer (limit 2^20 code units): refused the same way, nothing measured.
        let huge = TextNode(text: String(repeating: "word ", count: 2_000_000))
        #expect(huge.textProblem?.kind == .limit)
        #expect(huge.textProblem?.reason == "the text has 10000000 UTF-16 code units, more than this measurer's limit of 1048576")
        #expect(throws: (any Error).self) { try huge.layoutThatFits(range) }
    }

    @Test("Without fonts the error says so at the family; the node is not laid out")
    func noFonts() throws {
        let node = TextNode(text: "a", measurer: FontMeasurer(registry: FontRegistry()))
        #expect(node.textProblem == TextError("no fonts are registered", path: "runs[0].style.family", kind: .font))
        #expect(throws: LayoutError("text cannot be measured: runs[0].style.family: no fonts are registered", path: "root")) {
            try node.layoutThatFits(range)
        }
        // A missing standard font set answers the same way, with what to install (see TextNode.standardMeasurer).
        let refusing = RefusingMeasurer(error: TextError("fonts are missing", path: "family", kind: .font))
        #expect(TextNode(text: "a", measurer: refusing).textProblem?.description == "runs[0].style.family: fonts are missing")
        // No text needs no fonts.
        #expect(try TextNode(text: nil, measurer: refusing).layoutThatFits(range).size == .zero)
    }
}
