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

extension StackMemoTests {
    /// A chain of `depth` stacks, one inside the other, around a box; with `memoOn`, beside a row that turns the
    /// memo on before the chain is laid out (80 growing children, each laid out again).
    static func chain(_ depth: Int, memoOn: Bool) -> Spec {
        var specs = SpecBuilder()
        var top = specs.box(size: Size(1, 1))
        for _ in 0..<depth { top = specs.stack(StackOptions(direction: .vertical), children: [top]) }
        var children = [top]
        if memoOn {
            let growing = (0..<80).map { _ in specs.box(size: Size(1, 1), style: LayoutStyle(flexGrow: 1)) }
            children.insert(specs.stack(StackOptions(direction: .horizontal), children: growing,
                                        style: LayoutStyle(width: .points(500))), at: 0)
        }
        return specs.finish(specs.stack(StackOptions(direction: .vertical), children: children))
    }

    /// The deepest chain this thread lays out (deeper ones are refused by the stack guard), found by bisection.
    static func deepestChain(memoOn: Bool) -> Int {
        var (low, high) = (1, 1 << 17)
        while low < high {
            let middle = (low + high + 1) / 2
            let laidOut = (try? Layout.compute(chain(middle, memoOn: memoOn), in: SizeRange(min: .zero, max: Size(1000, 1000)))) != nil
            if laidOut { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The memo is looked up and written beside a stack's layout, not around it: a nested stack takes the same
    /// room on the thread's stack with the memo on as off, so the memo never makes a tree too deep to lay out.
    @Test("The memo does not make the deepest tree a thread can lay out shallower")
    func memoKeepsDepth() {
        let off = Self.deepestChain(memoOn: false)
        let on = Self.deepestChain(memoOn: true)
        #expect(on >= off - 1, "deepest chain: \(off) with the memo off, \(on) with it on")
        #expect(off > 100)
    }
}
