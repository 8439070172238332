import Dispatch
import Testing
import WeftLayout
@testable import WeftNodes
import WeftSync

/// A layout pass takes what it needs of each node below its root from the readings noted while its root's
/// layout was computed (`PassNotes`). These pin the cases an independent review found: the note a parent's
/// placed layout came from, parts that changed after their notes, and nested or failed passes.
@Suite("Layout pass notes", .serialized)
struct PassNotesTests {
    /// c, whose spec depends on its range: at an exact range its leaves g then h, otherwise h then g (each
    /// 150 x 10, so both orders have one size).
    static func rangeDependentChild() -> (g: CountingLeaf, h: CountingLeaf, c: ComposedNode) {
        let g = CountingLeaf("g", size: Size(150, 10))
        let h = CountingLeaf("h", size: Size(150, 10))
        let c = ComposedNode("c") { range in
            range.min.width == range.max.width
                ? StackSpec.horizontal(children: [g, h]) : StackSpec.horizontal(children: [h, g])
        }
        return (g, h, c)
    }

    /// Gives `root` its range with no pass scheduled, and marks a pass as scheduled so that the test runs every
    /// pass itself (undo with `relayoutScheduled = false`).
    static func runOwnPasses(of root: Node, in range: SizeRange) {
        onApplyQueue {
            root.setConstrainedRangeQuietly(range)
            root.withState { $0.relayoutScheduled = true }
        }
    }

    /// c is laid out twice by its parent's stack (unconstrained at 300 pt, then shrunk by 0.2 pt, which rounds
    /// back to 300 pt at scale 2), and its spec depends on its range (exact: g then h; otherwise h then g). The
    /// parent places the second layout, so c's subnodes are g then h, also when c's layouts are cache hits.
    @Test("The walk takes the latest note of a node laid out twice at one size")
    func latestNote() throws {
        let (g, h, c) = Self.rangeDependentChild()
        c.style.flexShrink = 1
        let root = ComposedNode("root") { _ in StackSpec.horizontal(alignItems: .start, children: [c]) }
        let range = SizeRange(min: .zero, max: Size(299.8, 100))
        // Then only the root changes: its layout is computed again, and c's two layouts are cache hits.
        try Self.twoPassesPlaceGThenH(root: root, in: range, c: c, g: g, h: h)
    }

    /// Runs a pass of `root` in `range`, then another after only the root changed; after each, c's subnodes are g
    /// then h, side by side.
    static func twoPassesPlaceGThenH(root: Node, in range: SizeRange, c: Node, g: Node, h: Node) throws {
        Self.runOwnPasses(of: root, in: range)
        defer { root.withState { $0.relayoutScheduled = false } }
        try onApplyQueue { try root.layoutIfNeeded() }
        #expect(names(c.subnodes) == ["g", "h"])
        root.setNeedsLayout()
        try onApplyQueue { try root.layoutIfNeeded() }
        #expect(names(c.subnodes) == ["g", "h"])
        #expect(g.frame.origin.x == 0 && h.frame.origin.x == 150)
    }

    /// Lays its child (a node, or a spec) out at `first`, then at `second`, then at `first` again, and places the
    /// last layout (as a spec that measures a child at a trial range before the final one).
    struct MeasuresTwice: LayoutElement {
        let child: any LayoutElement
        let first: SizeRange
        let second: SizeRange
        var style: LayoutStyle { LayoutStyle() }
        var kindName: String { "measuresTwice" }

        func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
            _ = try child.layout(first, parentSize: range.max, in: &builder)
            _ = try child.layout(second, parentSize: range.max, in: &builder)
            let placed = try child.layout(first, parentSize: range.max, in: &builder)
            return builder.layout(self, size: builder.size(of: placed), sublayout: placed)
        }
    }

    /// c is laid out at an exact range (its spec: g then h), at a range that only caps it (h then g; the same
    /// size), then at the exact range again, which the pass finds among its own notes. The parent places the
    /// last layout, so c's subnodes are g then h: the note found is made c's latest again.
    @Test("An entry found among the pass's notes becomes the node's latest note")
    func noteFoundAgain() throws {
        let (g, h, c) = Self.rangeDependentChild()
        let exact = SizeRange(exactly: Size(300, 10))
        let capped = SizeRange(min: .zero, max: Size(300, 10))
        let root = ComposedNode("root") { _ in MeasuresTwice(child: c, first: exact, second: capped) }
        Self.runOwnPasses(of: root, in: SizeRange(min: .zero, max: Size(400, 100)))
        defer { root.withState { $0.relayoutScheduled = false } }

        let before = root.context.statistics.snapshot
        try onApplyQueue { try root.layoutIfNeeded() }
        #expect(names(c.subnodes) == ["g", "h"])
        #expect(g.frame.origin.x == 0 && h.frame.origin.x == 150)
        // c's third layout is a hit (on the note of its first): two computed, one hit.
        let work = root.context.statistics.snapshot.subtracting(before)
        #expect(work.cacheHits >= 1)
        // Only the root changes: c's layouts are cache hits now, the third again from the notes.
        root.setNeedsLayout()
        try onApplyQueue { try root.layoutIfNeeded() }
        #expect(names(c.subnodes) == ["g", "h"])
    }

    /// The same as ``noteFoundAgain()``, with c in a column that the root lays out at the exact range, capped,
    /// then exact again, after nested flexible stacks that turn the builder's memo of stack layouts on. Answered
    /// from the memo, the column's third layout would note nothing: c's latest note would be the capped one (h then
    /// g, the same size), which the walk would apply. A stack that places nodes is laid out again in a pass.
    @Test("A stack the builder remembers is laid out again in a pass when it places nodes, so their notes stay the placed ones")
    func rememberedStackWithNodes() throws {
        let (g, h, c) = Self.rangeDependentChild()
        var specs = SpecBuilder()
        let column = specs.finish(specs.stack(StackOptions(direction: .vertical), children: c))
        let measures = MeasuresTwice(child: column, first: SizeRange(exactly: Size(300, 10)),
                                     second: SizeRange(min: .zero, max: Size(300, 10)))
        let memoOn = Self.nestedFlexibleStacks()
        let root = ComposedNode("root") { _ in StackSpec.horizontal(alignItems: .start, children: [memoOn, measures]) }
        // In the second pass c's layouts are cache hits, so nothing rewinds the builder (which would empty the
        // memo) before the column's third layout.
        try Self.twoPassesPlaceGThenH(root: root, in: SizeRange(min: .zero, max: Size(1000, 100)), c: c, g: g, h: h)
    }

    /// Stacks nested in flexible stacks, 8 deep (the same basis at every level): well over 64 children laid out
    /// again, which turns the builder's memo of stack layouts on for the rest of the computation.
    static func nestedFlexibleStacks() -> Spec {
        var specs = SpecBuilder()
        var nest = specs.box(style: LayoutStyle(flexGrow: 1, flexBasis: .fraction(0.5)))
        for _ in 0..<8 {
            nest = specs.stack(StackOptions(direction: .horizontal), children: nest,
                               style: LayoutStyle(flexGrow: 1, flexBasis: .fraction(0.5)))
        }
        return specs.finish(specs.stack(StackOptions(direction: .horizontal), children: nest,
                                        style: LayoutStyle(flexBasis: .points(100))))
    }

    /// c changes (a second child, 10 pt taller) while the pass that first places it is computed, after its
    /// parent laid it out: d's spec, which the stack lays out after c, changes it (as another thread could).
    func changingTree(under intermediate: Bool) -> (root: ComposedNode, c: ComposedNode, d: ComposedNode) {
        let g = CountingLeaf("g", size: Size(50, 10))
        let h = CountingLeaf("h", size: Size(50, 10))
        let both = Locked(false)
        let c = ComposedNode("c") { _ in StackSpec.vertical(children: both.withLock { $0 } ? [g, h] : [g]) }
        let p = ComposedNode("p") { _ in StackSpec.vertical(alignItems: .start, children: [c]) }
        let changed = Locked(false)
        let d = ComposedNode("d") { _ in
            if !changed.withLock({ let was = $0; $0 = true; return was }) {
                both.withLock { $0 = true }
                c.setNeedsLayout()
            }
            return StackSpec.vertical(children: [CountingLeaf("e", size: Size(50, 10))])
        }
        let first: Node = intermediate ? p : c
        let root = ComposedNode("root") { _ in StackSpec.vertical(alignItems: .start, children: [first, d]) }
        return (root, c, d)
    }

    @Test("A part changed after its note, under a cached intermediate node, settles at its new size")
    func changeBelowIntermediate() throws {
        let (root, c, d) = changingTree(under: true)
        try onApplyQueue {
            root.setConstrainedRangeQuietly(SizeRange(min: .zero, max: Size(100, 100)))
            try root.layoutIfNeeded()
        }
        #expect(waitUntil { c.frame.size == Size(50, 20) && d.frame.origin.y == 20 })
        try settle()
        #expect(names(c.subnodes) == ["g", "h"])
        #expect(c.frame.size == Size(50, 20))
        #expect(d.frame.origin.y == 20)
    }

    @Test("A transition whose pass found a part outdated lays it out again when it completes")
    func transitionSettles() throws {
        let (root, c, d) = changingTree(under: false)
        let outcomes = Outcomes()
        root.transitionLayout(to: SizeRange(min: .zero, max: Size(100, 100)), animated: false, measureAsync: false) {
            outcomes.record($0)
        }
        #expect(outcomes.done.wait(timeout: .now() + 10) == .success)
        #expect(waitUntil { names(c.subnodes) == ["g", "h"] && d.frame.origin.y == 20 })
        try settle()
        #expect(names(c.subnodes) == ["g", "h"])
        #expect(c.frame.size == Size(50, 20))
    }

    @Test("A pass that fails midway keeps no node alive; a pass nested in a spec leaves the outer one intact")
    func failureAndNesting() throws {
        weak var weakLeaf: CountingLeaf?
        do {
            let leaf = CountingLeaf("noted", size: Size(10, 10))
            weakLeaf = leaf
            let bad = CountingLeaf("bad", size: Size(10, 10))
            bad.style.flexGrow = -1
            // The leaf is laid out (and noted) first; the bad style is found later, in a sibling's own layout.
            let failing = ComposedNode("failing") { _ in StackSpec.vertical(children: [bad]) }
            let root = ComposedNode("root") { _ in StackSpec.vertical(children: [leaf, failing]) }
            #expect(throws: HierarchyError.self) { try LayoutPass.compute(root: root, range: SizeRange(min: .zero, max: Size(100, 100))) }
        }
        #expect(weakLeaf == nil, "the failed pass's notes released the nodes")

        // A spec that runs a whole pass of another tree (over 16 notes: indexed) while the outer pass lays out.
        let inner = ComposedNode("inner") { _ in StackSpec.vertical(children: (0..<20).map { CountingLeaf("i\($0)", size: Size(5, 5)) }) }
        let leaves = (0..<20).map { CountingLeaf("o\($0)", size: Size(10, 10)) }
        let nesting = ComposedNode("nesting") { _ in
            let size = (try? LayoutPass.compute(root: inner, range: SizeRange(min: .zero, max: Size(50, 500))))?.rootSize ?? .zero
            return StackSpec.vertical(children: [CountingLeaf("x", size: size)] + leaves)
        }
        nesting.automaticallyManagesSubnodes = true
        let root = ComposedNode("root") { _ in StackSpec.vertical(children: [nesting]) }
        let range = SizeRange(min: .zero, max: Size(100, 1000))
        let pass = try LayoutPass.compute(root: root, range: range)
        try onApplyQueue { _ = try pass.apply() }
        #expect(names(nesting.subnodes) == ["x"] + leaves.map { $0.identifier ?? "" })
        // The inner pass's root is 20 leaves of 5 pt: 100 pt, then o0, o1, o2 of 10 pt each.
        #expect(leaves[3].frame == Rect(x: 0, y: 100 + 30, width: 10, height: 10))
        // Again on the same thread, with the spares as the nesting left them.
        nesting.invalidateLayout()
        root.invalidateLayout()
        let again = try LayoutPass.compute(root: root, range: range)
        try onApplyQueue { _ = try again.apply() }
        #expect(names(nesting.subnodes).count == 21)
    }
}
