import Testing
import WeftLayout
@testable import WeftNodes

/// Stacks nested in flexible stacks around a node leaf cost a layout pass, and `layoutThatFits`, work linear in
/// their depth, as they do for specs alone (`NestedFlexTests`): each level lays its child out once for real.
@Suite("Nested flexible stacks in a pass")
struct NestedFlexPassTests {
    /// `depth` stacks in alternating directions, each flexGrow 1 and flexBasis 50%, around `leaf`.
    static func nest(_ depth: Int, around leaf: Node) -> any LayoutElement {
        var element: any LayoutElement = leaf
        for level in 0..<depth {
            element = StackSpec(StackOptions(direction: level % 2 == 0 ? .vertical : .horizontal), children: [element],
                                style: LayoutStyle(flexGrow: 1, flexBasis: .fraction(0.5)))
        }
        return element
    }

    /// How many times a pass (or `layoutThatFits`) of a root whose spec nests `depth` stacks measures the leaf.
    static func measurements(_ depth: Int, inPass: Bool) throws -> Int {
        let leaf = CountingLeaf("leaf", size: Size(10, 10))
        let root = ComposedNode("root") { _ in nest(depth, around: leaf) }
        let range = SizeRange(exactly: Size(1000, 1000))
        if inPass {
            let pass = try LayoutPass.compute(root: root, range: range)
            // Every level fills the exact size; the innermost (vertical) stretches the leaf to 1000 x 10.
            #expect(pass.rootLayout.size == Size(1000, 1000))
            #expect(pass.rootLayout.flattened().first { ($0.element as? Node) === leaf }?.frame.size == Size(1000, 10))
        } else {
            #expect(try root.layoutThatFits(range).size == Size(1000, 1000))
        }
        return leaf.measurements
    }

    @Test("A pass and layoutThatFits measure a node leaf under nested flexible stacks a number of times linear in the depth",
          arguments: [true, false])
    func leafMeasurementsGrowLinearly(inPass: Bool) throws {
        let (n, twice) = (try Self.measurements(20, inPass: inPass), try Self.measurements(40, inPass: inPass))
        // Laid out afresh at every level, 20 levels measure the leaf 2^20 times; a bounded number of layouts
        // per level keeps twice the depth within twice the count.
        #expect(n >= 1 && n <= 4 * 20, "\(n) measurements at 20 levels")
        #expect(twice <= 2 * n + 4, "\(n) measurements at 20 levels, \(twice) at 40")
    }

    /// A chain of `depth` managed nodes around a 10x10 leaf: each node's spec is a stack (directions alternating,
    /// the innermost vertical) holding the next node, flexGrow 1 and flexBasis 50%; `overlaid`: the next node
    /// under an overlay that has that style instead. Root first.
    static func chain(_ depth: Int, overlaid: Bool = false) -> (nodes: [ComposedNode], leaf: CountingLeaf) {
        let flexible = LayoutStyle(flexGrow: 1, flexBasis: .fraction(0.5))
        let leaf = CountingLeaf("leaf", size: Size(10, 10))
        var nodes: [ComposedNode] = []
        var next: Node = leaf
        for level in 0..<depth {
            let (inner, direction) = (next, level % 2 == 0 ? StackDirection.vertical : .horizontal)
            let child: any LayoutElement = overlaid ? OverlaySpec(child: inner, overlay: Box(), style: flexible) : inner
            let node = ComposedNode("n\(level)") { _ in StackSpec(StackOptions(direction: direction), children: [child]) }
            if !overlaid && level < depth - 1 { node.style = flexible }
            nodes.insert(node, at: 0)
            next = node
        }
        return (nodes, leaf)
    }

    /// Lays the chain's root out in `range`, in a pass or through `layoutThatFits`; its size.
    static func layOut(_ root: Node, _ range: SizeRange, inPass: Bool) throws -> Size {
        inPass ? try LayoutPass.compute(root: root, range: range).rootLayout.size : try root.layoutThatFits(range).size
    }

    @Test("A chain of managed nodes, each a flexible stack around the next, costs two spec calls per node, with Texture's frames",
          arguments: [true, false])
    func nodeChain(inPass: Bool) throws {
        let range = SizeRange(exactly: Size(1000, 1000))
        for overlaid in [false, true] {
            for depth in [40, 80, 160] {
                let (nodes, leaf) = Self.chain(depth, overlaid: overlaid)
                #expect(try Self.layOut(nodes[0], range, inPass: inPass) == Size(1000, 1000))
                // The root is laid out once; every other node is asked for its spec once at its basis (500 along its
                // parent's axis), which fixes its size there without a layout, then laid out once flexed to the
                // parent's 1000 x 1000 (stretched across already). Laid out at its basis too, the chain doubled.
                let calls = nodes.map(\.specCalls).reduce(0, +)
                #expect(calls == 2 * depth - 1, "\(depth) nodes, overlaid: \(overlaid)")
                // Every node fills its parent, at the origin (read from the cache: no spec call more). The innermost
                // (vertical) stack stretches the 10x10 leaf, measured once, to 1000 x 10; overlaid, the overlay around
                // the leaf grows from its basis (500 high, the leaf measured there: a node without a spec has no size
                // but its measurement's) to 1000 x 1000, and the leaf with it (measured again).
                for (k, node) in nodes.enumerated() {
                    let placed = try node.layoutThatFits(range).flattened()
                    let innermost = Rect(x: 0, y: 0, width: 1000, height: overlaid ? 1000 : 10)
                    #expect(placed.map(\.frame) == [k == depth - 1 ? innermost : Rect(x: 0, y: 0, width: 1000, height: 1000)],
                            "node \(k) of \(depth)")
                }
                #expect(nodes.map(\.specCalls).reduce(0, +) == calls && leaf.measurements == (overlaid ? 2 : 1))
            }
        }
    }

    @Test("A chain of managed nodes in an open height lays out, in work linear in its depth", arguments: [true, false])
    func nodeChainOpenHeight(inPass: Bool) throws {
        let range = SizeRange(min: Size(375, 0), max: Size(375, .infinity))
        var calls: [Int] = []
        for depth in [40, 80, 160] {
            let (nodes, _) = Self.chain(depth)
            // Each level 375 wide (the horizontal ones flex their node to it, the vertical ones stretch it) and as
            // high as the leaf, 10: a percentage of the open height is auto.
            #expect(try Self.layOut(nodes[0], range, inPass: inPass) == Size(375, 10))
            calls.append(nodes.map(\.specCalls).reduce(0, +))
        }
        // At most two spec calls per node, as in an exact size.
        #expect(calls[0] <= 2 * 40 && calls[1] <= 2 * calls[0] + 2 && calls[2] <= 2 * calls[1] + 2, "\(calls)")
    }

    /// Takes 80 x 10 whatever its range: an element whose size only its layout tells.
    struct Fixed: LayoutElement {
        var style: LayoutStyle { LayoutStyle() }
        var kindName: String { "fixed" }

        func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
            builder.leaf(self, size: Size(80, 10))
        }
    }

    @Test("A node whose spec may outgrow its range is laid out at its basis, and flexing starts from the size it takes")
    func outgrowingNodeLaidOutAtItsBasis() throws {
        // `a`'s spec is a wrapper (its size is its range's min grown to its child's) around an 80 x 10 element: at
        // its basis, exactly 50 wide, `a` is 80 wide. With `b` (basis 50) the row's 200 leave 70 to grow, 35 each:
        // `a` 115, `b` 85 (and 10 high: a box without a size fills its range's max). (Taken for 50 without its
        // layout, `a` and `b` would both grow to 100.)
        let a = ComposedNode("a") { _ in WrapperSpec(Fixed()) }
        a.style = LayoutStyle(flexGrow: 1, flexBasis: .points(50))
        let b = Box(style: LayoutStyle(flexGrow: 1, flexBasis: .points(50)))
        let row = ComposedNode("row") { _ in StackSpec(StackOptions(direction: .horizontal, alignItems: .start), children: [a, b]) }
        let layout = try row.layoutThatFits(SizeRange(exactly: Size(200, 10)))
        #expect(layout.flattened().map(\.frame) == [Rect(x: 0, y: 0, width: 115, height: 10)])
        let spec = try Layout.compute(StackSpec(StackOptions(direction: .horizontal, alignItems: .start), children: [a, b]),
                                      in: SizeRange(exactly: Size(200, 10)))
        #expect(spec.sublayouts.map(\.frame) == [Rect(x: 0, y: 0, width: 115, height: 10), Rect(x: 115, y: 0, width: 85, height: 10)])
    }
}
