import Synchronization
import Testing
import WeftLayout
@testable import WeftNodes
import WeftText

/// A layout whose builder has a stop hook passes it to the text measurements of its text leaves: a long text
/// stops with the builder's stop error, and neither the node nor the measurer keeps anything of it.
@Suite("Text nodes: stopping a layout")
struct TextStopTests {
    /// 100,000 units of "abcd ": measuring it counts over 16,384 steps in its first pass (see WeftText's
    /// `StopCheck`), so the measurer asks the hook, where the layout around it (three records) never would.
    static let text = String(repeating: "abcd ", count: 20_000)
    let range = SizeRange(min: .zero, max: Size(300, .infinity))

    /// A box and the text leaf in a vertical stack.
    func cell(_ leaf: TextNode) -> StackSpec {
        StackSpec(StackOptions(direction: .vertical), children: [Box(style: LayoutStyle(width: .points(10), height: .points(10))), leaf])
    }

    /// A text node that adds 10 points to the height its text measures, through `calculateSizeThatFits`.
    final class PaddedTextNode: TextNode, @unchecked Sendable {
        override func calculateSizeThatFits(_ constrainedSize: Size) -> Size {
            let size = super.calculateSizeThatFits(constrainedSize)
            return Size(width: size.width, height: size.height + 10)
        }
    }

    @Test("A hook that says stop at once stops the layout in the text's measurement; nothing of it is kept")
    func stopsInTheText() throws {
        for padded in [false, true] {
            let measurer = try smallMeasurer()
            let leaf = padded ? PaddedTextNode(text: Self.text, measurer: measurer) : TextNode(text: Self.text, measurer: measurer)
            var builder = LayoutBuilder()
            builder.shouldStop = { true }
            #expect(throws: LayoutError(LayoutBuilder.stoppedReason, path: "root.children[1]", kind: .limit)) {
                _ = try Layout.compute(cell(leaf), in: range, using: &builder)
            }
            #expect(measurer.cacheStatistics.entries == 0)
            // Without the hook, the same node (whose cache holds no entry of the stopped measurement) lays out as a
            // fresh one does.
            builder.shouldStop = nil
            let again = try Layout.compute(cell(leaf), in: range, using: &builder)
            let fresh = padded ? PaddedTextNode(text: Self.text, measurer: try smallMeasurer())
                : TextNode(text: Self.text, measurer: try smallMeasurer())
            let expected = try Layout.compute(cell(fresh), in: range)
            #expect(again.size == expected.size && again.size.height > 10_000)
        }
    }

    @Test("A hook that never says stop is asked by the text's measurement and changes nothing")
    func askedByTheText() throws {
        final class Asks: Sendable { let count = Atomic<Int>(0) }
        let asks = Asks()
        let leaf = TextNode(text: Self.text, measurer: try smallMeasurer())
        var builder = LayoutBuilder()
        builder.shouldStop = { asks.count.add(1, ordering: .relaxed); return false }
        let layout = try Layout.compute(cell(leaf), in: range, using: &builder)
        let plain = try Layout.compute(cell(TextNode(text: Self.text, measurer: try smallMeasurer())), in: range)
        #expect(layout.flattened().map(\.frame) == plain.flattened().map(\.frame))
        // The first pass over the text alone counts 100,000 steps: at least 6 asks of every 16,384.
        #expect(asks.count.load(ordering: .relaxed) >= 100_000 / 16_384)
    }
}
