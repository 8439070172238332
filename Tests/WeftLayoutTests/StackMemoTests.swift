import Testing
import WeftLayout

/// The builder's memo of stack layouts (`LayoutBuilder.memoAfterRelayouts`) beside what a computation may do:
/// lay out specs of arenas that it makes and frees as it goes.
@Suite("Stack memo")
struct StackMemoTests {
    /// Stacks nested in flexible stacks (the same basis at every level): well over 64 children laid out again,
    /// so the memo is on for whatever the computation lays out after it.
    static func memoOn(_ depth: Int = 8) -> Spec {
        var specs = SpecBuilder()
        var nest = specs.box(style: LayoutStyle(flexGrow: 1, flexBasis: .fraction(0.5)))
        for _ in 0..<depth {
            nest = specs.stack(StackOptions(direction: .horizontal), children: nest,
                               style: LayoutStyle(flexGrow: 1, flexBasis: .fraction(0.5)))
        }
        return specs.finish(specs.stack(StackOptions(direction: .horizontal), children: nest,
                                        style: LayoutStyle(flexBasis: .points(100))))
    }

    /// An element that measures a spec made for this call only (a row around one box `width` wide) and records
    /// itself at that size: the spec's arena is freed as the call returns, so the next call's arena may be made
    /// at the same address, with a spec at the same index.
    struct MeasuresOwnSpec: LayoutElement {
        let width: Double
        var style: LayoutStyle { LayoutStyle() }
        var kindName: String { "measuresOwnSpec" }

        func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
            let measured: Size
            do {
                var specs = SpecBuilder()
                let row = specs.finish(specs.stack(StackOptions(direction: .horizontal), children: specs.box(size: Size(width, 10))))
                measured = builder.size(of: try row.layout(range, parentSize: parentSize, in: &builder))
            }
            return builder.leaf(self, size: measured)
        }
    }

    @Test("A stack of an arena freed during the computation is never the answer for another arena's at its address")
    func freedArena() throws {
        let widths: [Double] = [100, 50, 70, 30, 90]
        let root = StackSpec(StackOptions(direction: .horizontal, alignItems: .start),
                             children: [Self.memoOn()] + widths.map { MeasuresOwnSpec(width: $0) })
        let range = SizeRange(min: .zero, max: Size(1000, 1000))
        var remembering = LayoutBuilder(scale: 2)
        var plain = LayoutBuilder(scale: 2)
        plain.memoAfter = .max
        // Each element is as wide as its own box (a row sizes to its content within the max).
        let a = try Layout.compute(root, in: range, using: &remembering).sublayouts.dropFirst().map(\.size.width)
        let b = try Layout.compute(root, in: range, using: &plain).sublayouts.dropFirst().map(\.size.width)
        #expect(b == widths)
        #expect(a == widths)
    }
}
