import Testing
import WeftLayout
import WeftNodes
import WeftScenarios
import WeftSync

/// How many locks the node runtime takes, counted per thread by debug builds of WeftSync (`LockCount`): the
/// budgets the README's "Locks" list documents, for small trees and for the benchmark photo cell (6 nodes: the
/// cell, which manages its subnodes, and 5 leaves with preferred sizes).
///
/// The documented reads: a node's layout inputs (style, context, spec block, flags) are read from its published
/// snapshot, with no lock, and its version from an atomic; a node that has stored no layout of its current
/// version knows it misses without a lock, so a cold layout takes one lock per node, the store of its entry; a
/// hit takes one (the cache is read under the lock), except in a layout pass for an entry the pass itself
/// noted moments ago (a stack measuring a leaf twice). A pass takes every node its root's layout places from the
/// readings noted while that layout was computed (so it reads a node only when the root's layout came from the
/// cache). Applying reads each node once and writes it once.
@Suite("Locks taken per operation (debug builds count them)")
struct LockCountTests {
    /// A context of its own (so that its statistics count this test's work only), with this thread's counters
    /// in it set up: the first work a thread counts in a context registers its counters there, under a lock.
    static func context(_ label: String) throws -> LayoutContext {
        let context = LayoutContext(applyQueue: ApplyQueue(label: label))
        _ = try Self.cell(in: context).layoutThatFits(BenchmarkCell.range)
        return context
    }

    static func cell(in context: LayoutContext) -> BenchmarkCellNode {
        let cell = BenchmarkCellNode()
        for node in [cell, cell.avatar, cell.username, cell.location, cell.photo, cell.comments] as [Node] {
            node.context = context
        }
        return cell
    }

    @Test("A repeated layoutThatFits for the range last answered takes no lock")
    func repeatedLayout() throws {
        guard LockCount.isCounting else { return }
        let cell = BenchmarkCellNode()
        // The cold layout publishes its answer: every repeat is answered from it.
        _ = try cell.layoutThatFits(BenchmarkCell.range)
        for _ in 0..<3 {
            let again = try LockCount.taken { () throws(LayoutError) in try cell.layoutThatFits(BenchmarkCell.range) }
            #expect(again.locks == 0)
        }
        // A change of the inputs sends the next layout to the lock (and the cache), which publishes again.
        cell.setNeedsLayout()
        let changed = try LockCount.taken { () throws(LayoutError) in try cell.layoutThatFits(BenchmarkCell.range) }
        #expect(changed.locks > 0)
        let afterChange = try LockCount.taken { () throws(LayoutError) in try cell.layoutThatFits(BenchmarkCell.range) }
        #expect(afterChange.locks == 0)
        // A hit found under the lock (the cell laid out for another range in between) publishes too.
        let other = SizeRange(min: Size(320, 0), max: Size(320, .infinity))
        _ = try cell.layoutThatFits(other)
        let hit = try LockCount.taken { () throws(LayoutError) in try cell.layoutThatFits(BenchmarkCell.range) }
        #expect(hit.locks == 1)
        let repeated = try LockCount.taken { () throws(LayoutError) in try cell.layoutThatFits(BenchmarkCell.range) }
        #expect(repeated.locks == 0)
    }

    @Test("Small trees: a leaf, a node with a spec block over an inset and over a stack")
    func smallTrees() throws {
        guard LockCount.isCounting else { return }
        let range = SizeRange(min: .zero, max: Size(100, 100))
        _ = try FixedLeaf(Size(1, 1)).layoutThatFits(range)
        // A leaf: the store of its entry (its inputs come from its snapshot; it has no entry: a known miss).
        let leaf = FixedLeaf(Size(10, 10))
        #expect(try LockCount.taken { () throws(LayoutError) in try leaf.layoutThatFits(range) }.locks == 1)
        // A node over an inset of a leaf: the leaf's store and the node's (its block comes from its snapshot).
        let inner = FixedLeaf(Size(10, 10))
        let inset = Node(identifier: "inset", layoutSpec: { _, _, specs in specs.inset(EdgeInsets(all: 1), inner) })
        // (Managing its subnodes: a node that does not may place only subnodes it was given.)
        inset.automaticallyManagesSubnodes = true
        #expect(try LockCount.taken { () throws(LayoutError) in try inset.layoutThatFits(range) }.locks == 2)
        // The same over a stack: the stack reads the leaf's style from its snapshot too.
        let placed = FixedLeaf(Size(10, 10))
        let stack = Node(identifier: "stack", layoutSpec: { _, _, specs in specs.stack(children: placed) })
        stack.automaticallyManagesSubnodes = true
        #expect(try LockCount.taken { () throws(LayoutError) in try stack.layoutThatFits(range) }.locks == 2)
        // Laid out again for another range: the node now has entries of its version, so it reads its cache under
        // the lock (a miss), then stores; the leaf, placed at a range it has an entry for, reads one hit.
        let wider = SizeRange(min: .zero, max: Size(200, 100))
        #expect(try LockCount.taken { () throws(LayoutError) in try stack.layoutThatFits(wider) }.locks == 3)
        // Invalidated (a new version, nothing stored of it): cold again, one store per node.
        stack.setNeedsLayout()
        placed.setNeedsLayout()
        #expect(try LockCount.taken { () throws(LayoutError) in try stack.layoutThatFits(range) }.locks == 2)
    }

    @Test("The photo cell: cold layout, cold pass, all-cached pass, apply")
    func photoCell() throws {
        guard LockCount.isCounting else { return }
        // Creating it: one write per node (each leaf's style, the cell's automaticallyManagesSubnodes).
        #expect(LockCount.taken { BenchmarkCellNode() }.locks == 6)

        // A cold layoutThatFits: per node laid out, one store (a miss) or one read (a hit: the stack measures one
        // leaf twice at one range).
        let context = try Self.context("lock counts")
        let fitted = Self.cell(in: context)
        let before = context.statistics.snapshot
        let fits = try LockCount.taken { () throws(LayoutError) in try fitted.layoutThatFits(BenchmarkCell.range) }
        let work = context.statistics.snapshot.subtracting(before)
        #expect(work.cacheMisses == 6)
        #expect(work.cacheHits == 1)
        #expect(fits.locks == work.cacheMisses + work.cacheHits)

        // A cold pass: one store per node and nothing else: the pass reads its root's inputs from its snapshot,
        // the root notes its subnodes when it stores its entry, the leaf measured twice is found among the pass's
        // notes, and no node below the root is read again (21 locks when the pass read each placed node again,
        // 16 when the notes spared that, with the stacks' style reads and the node's reads under the lock).
        let passContext = try Self.context("lock counts, pass")
        let cell = Self.cell(in: passContext)
        let passBefore = passContext.statistics.snapshot
        let cold = try LockCount.taken { () throws(HierarchyError) in try LayoutPass.compute(root: cell, range: BenchmarkCell.range) }
        let passWork = passContext.statistics.snapshot.subtracting(passBefore)
        #expect(passWork.cacheMisses == 6 && passWork.cacheHits == 1)
        #expect(cold.locks == passWork.cacheMisses)
        #expect(cold.locks == 6)

        // All cached: the root's read (a hit, so nothing below it is laid out) and one read per placed leaf.
        let cached = try LockCount.taken { () throws(HierarchyError) in try LayoutPass.compute(root: cell, range: BenchmarkCell.range) }
        #expect(cached.locks == 1 + 5)

        // Applying: one write per node. The reading before it (each node's subnodes, its supernode's identity and
        // its applied size) is of the published placements, with no lock (12 locks when it read each node under
        // its lock).
        let pass = cold.result
        let apply = try passContext.applyQueue.sync {
            try LockCount.taken { () throws(HierarchyError) in try pass.apply() }
        }
        #expect(apply.locks == 6)
        // Reading the subnodes takes no lock either (a supernode, whose link is kept under the node's lock, takes one).
        let reading = LockCount.taken { cell.subnodes }
        #expect(reading.locks == 0 && reading.result.count == 5)
        let supernodes = LockCount.taken { reading.result.map { $0.supernode === cell } }
        #expect(supernodes.result == [Bool](repeating: true, count: 5) && supernodes.locks == 5)

        // A leaf's setNeedsLayout: one section per node walked up (its invalidation and its supernode read
        // together: the leaf and the cell), then the root's check for a range to schedule a pass in (none set
        // here, so no pass).
        let leaf = try #require(reading.result.first)
        #expect(LockCount.taken { leaf.setNeedsLayout() }.locks == 2 + 1)
    }

    /// Many nodes in two levels (over the notes' scanning limit, so their index is used): every node below the
    /// root is taken from the notes, and the applied hierarchy is the layout's.
    @Test("A pass over 2 levels of 20 nodes reads no node twice, and applies what it laid out")
    func twoLevels() throws {
        guard LockCount.isCounting else { return }
        let context = try Self.context("lock counts, two levels")
        func managed(_ name: String, _ children: [Node]) -> Node {
            let node = Node(identifier: name, layoutSpec: { _, _, specs in
                specs.stack(StackOptions(direction: .vertical), children: children)
            })
            node.automaticallyManagesSubnodes = true
            node.context = context
            return node
        }
        let rows = (0..<20).map { row in
            managed("row \(row)", (0..<20).map { _ in
                let leaf = FixedLeaf(Size(10, 10))
                leaf.context = context
                return leaf
            })
        }
        let root = managed("root", rows)
        let before = context.statistics.snapshot
        let pass = try LockCount.taken { () throws(HierarchyError) in
            try LayoutPass.compute(root: root, range: SizeRange(min: .zero, max: Size(100, 10_000)))
        }
        let work = context.statistics.snapshot.subtracting(before)
        // 421 nodes laid out once each (no hits): one store each.
        #expect(work.cacheMisses == 421 && work.cacheHits == 0)
        #expect(pass.locks == 421)
        _ = try context.applyQueue.sync { try pass.result.apply() }
        #expect(root.subnodes.count == 20)
        #expect(root.subnodes.map(\.identifier) == rows.map(\.identifier))
        for row in rows {
            #expect(row.subnodes.count == 20)
            #expect(row.frame.size == Size(10, 200))
        }
        #expect(root.frame.size == Size(10, 4_000))
    }
}
