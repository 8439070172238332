import Foundation
import Testing
import WeftFormat
import WeftLayout
@testable import WeftNodes
import WeftSync

@Suite("Node layout and caches")
struct NodeLayoutTests {
    @Test("A leaf is measured against its range's max and clamped into the range")
    func leafMeasurement() throws {
        let leaf = CountingLeaf("leaf", size: Size(500, 20))
        let layout = try leaf.layoutThatFits(SizeRange(min: Size(10, 30), max: Size(300, 100)))
        // 500 is clamped down to the max width 300; 20 up to the min height 30.
        #expect(layout.size == Size(300, 30))
        #expect(leaf.measurements == 1)
        // A plain node measures as its range's max when finite (Texture's default), else zero.
        #expect(try Node().layoutThatFits(SizeRange(min: .zero, max: Size(40, 50))).size == Size(40, 50))
        #expect(try Node().layoutThatFits(SizeRange(min: Size(5, 5), max: Size(40, .infinity))).size == Size(5, 5))
    }

    @Test("A node's layout is its spec's, with the node at the root")
    func specLayout() throws {
        let a = CountingLeaf("a", size: Size(40, 10))
        let b = CountingLeaf("b", size: Size(60, 30))
        let node = ComposedNode("row") { _ in StackSpec.horizontal(spacing: 5, alignItems: .end, children: [a, b]) }
        let layout = try node.layoutThatFits(SizeRange(min: .zero, max: Size(200, 200)))
        #expect(layout.object === node)
        #expect(layout.size == Size(105, 30))
        let flat = layout.flattened()
        #expect(flat.map { $0.object === a || $0.object === b } == [true, true])
        // alignItems end: a sits at 30 - 10 = 20; b after 40 + 5.
        #expect(flat[0].frame == Rect(x: 0, y: 20, width: 40, height: 10))
        #expect(flat[1].frame == Rect(x: 45, y: 0, width: 60, height: 30))
    }

    @Test("Layouts are cached per size range and version")
    func caching() throws {
        let leaf = CountingLeaf("leaf", size: Size(10, 10))
        let node = ComposedNode("box") { _ in InsetSpec(insets: EdgeInsets(all: 2), child: leaf) }
        let narrow = SizeRange(min: .zero, max: Size(100, 100))
        let wide = SizeRange(min: .zero, max: Size(200, 100))
        _ = try node.layoutThatFits(narrow)
        _ = try node.layoutThatFits(narrow)
        #expect(node.specCalls == 1)
        #expect(leaf.measurements == 1)
        _ = try node.layoutThatFits(wide)
        #expect(node.specCalls == 2)
        #expect(leaf.measurements == 2)
        _ = try node.layoutThatFits(narrow)
        #expect(node.specCalls == 2, "the first range is still cached")
        node.invalidateLayout()
        _ = try node.layoutThatFits(narrow)
        #expect(node.specCalls == 3, "a new version recomputes")
        #expect(leaf.measurements == 2, "the unchanged leaf answers from its cache")
    }

    @Test("setNeedsLayout invalidates the node and its ancestors, not its siblings")
    func invalidation() throws {
        let changing = CountingLeaf("changing", size: Size(10, 10))
        let steady = CountingLeaf("steady", size: Size(10, 10))
        let root = ComposedNode("root") { _ in StackSpec.vertical(children: [changing, steady]) }
        try onApplyQueue {
            root.setConstrainedRangeQuietly(SizeRange(min: .zero, max: Size(100, 100)))
            root.withState { $0.relayoutScheduled = true }  // keep this test's passes explicit
            try root.layoutIfNeeded()
        }
        #expect(names(root.subnodes) == ["changing", "steady"])
        let rootVersion = root.layoutVersion
        let steadyVersion = steady.layoutVersion
        changing.size = Size(10, 30)
        changing.setNeedsLayout()
        #expect(root.layoutVersion == rootVersion + 1)
        #expect(steady.layoutVersion == steadyVersion)
        try onApplyQueue { try root.layoutIfNeeded() }
        #expect(changing.measurements == 2)
        #expect(steady.measurements == 1, "an unchanged subtree is not measured again")
        // The line is as wide as its widest child (10): the stretch has nothing to add.
        #expect(steady.frame == Rect(x: 0, y: 30, width: 10, height: 10))
        root.withState { $0.relayoutScheduled = false }
    }

    /// A node laying out two leaves in a row, 4 apart and aligned to the top, with the spec builder it is given:
    /// as it is, after finishing a spec with it (the builder then goes on in an arena of its own), or after
    /// replacing it with a new builder.
    final class RowNode: Node, @unchecked Sendable {
        enum Way: Sendable { case given, finishing, replacing }
        let way: Way
        let first = CountingLeaf("first", size: Size(10, 20))
        let second = CountingLeaf("second", size: Size(30, 5))

        init(_ identifier: String, _ way: Way) {
            self.way = way
            super.init()
            self.identifier = identifier
            automaticallyManagesSubnodes = true
        }

        override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
            switch way {
            case .given: break
            case .finishing: _ = specs.finish(specs.box(size: Size(1, 1)))
            case .replacing: specs = SpecBuilder()
            }
            return specs.stack(StackOptions(direction: .horizontal, spacing: 4, alignItems: .start), children: first, second)
        }
    }

    /// A node that makes a 10 x 10 box with the builder it is given, then finishes a spec with it or replaces it
    /// (and makes a 20 x 20 box with the builder it has then, or not), and returns the first box.
    final class EarlySpecNode: Node, @unchecked Sendable {
        enum Way: Sendable, CaseIterable { case finishing, finishingThenMore, replacing, replacingThenMore }
        let way: Way

        init(_ way: Way) {
            self.way = way
            super.init()
        }

        override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
            let early = specs.box(size: Size(10, 10))
            switch way {
            case .finishing, .finishingThenMore: _ = specs.finish(specs.box(size: Size(1, 1)))
            case .replacing, .replacingThenMore: specs = SpecBuilder()
            }
            if way == .finishingThenMore || way == .replacingThenMore { _ = specs.box(size: Size(20, 20)) }
            return early
        }
    }

    @Test("A spec made with the lent builder before the node finished a spec or replaced the builder is the one laid out")
    func specMadeBeforeTheBuilderMovedOn() throws {
        for way in EarlySpecNode.Way.allCases {
            let range = SizeRange(min: .zero, max: Size(100, 100))
            #expect(try EarlySpecNode(way).layoutThatFits(range).size == Size(10, 10), "\(way)")
            let column = ComposedNode("column") { _ in StackSpec.vertical(alignItems: .start, children: [EarlySpecNode(way), EarlySpecNode(way)]) }
            let pass = try LayoutPass.compute(root: column, range: range)
            #expect(pass.rootSize == Size(10, 20), "\(way)")
            // The spec laid out again for an error message (in a builder of its own) is the same one.
            #expect(EarlySpecNode(way).specLayout(range, scale: 2)?.size == Size(10, 10), "\(way)")
        }
    }

    /// A node that keeps the spec it finishes with the builder it is given, and returns it.
    /// A node that keeps the spec it finishes with the builder it is given (or with a copy of it, going on with
    /// the builder itself afterwards), and returns it.
    final class KeepingNode: Node, @unchecked Sendable {
        let kept = Locked<Spec?>(nil)
        let copying: Bool

        init(copying: Bool) {
            self.copying = copying
            super.init()
        }

        override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
            var finishing = specs
            let spec = finishing.finish(finishing.inset(EdgeInsets(all: 2), finishing.box(size: Size(10, 10))))
            if copying {
                // More specs with the builder itself, after the copy finished one.
                for _ in 0..<20 { _ = specs.box(size: Size(1, 1)) }
            } else {
                specs = finishing
            }
            kept.withLock { $0 = spec }
            return spec
        }
    }

    @Test("A spec a node finished with the builder it is lent stays whole after later layouts on the thread reuse the builder, and keeps nothing else")
    func keptSpecStaysWhole() throws {
        for copying in [false, true] {
            weak var weakColumn: ComposedNode?
            weak var weakLeaf: CountingLeaf?
            weak var weakKeeping: KeepingNode?
            let kept: Spec = try {
                let keeping = KeepingNode(copying: copying)
                let leaf = CountingLeaf("leaf", size: Size(30, 30))
                let column = ComposedNode("column") { _ in StackSpec.vertical(alignItems: .start, children: [leaf, keeping]) }
                (weakColumn, weakLeaf, weakKeeping) = (column, leaf, keeping)
                let range = SizeRange(min: .zero, max: Size(100, 100))
                // 30 tall, then the kept spec: 2 + 10 + 2.
                #expect(try LayoutPass.compute(root: column, range: range).rootSize == Size(30, 44))
                // Other layouts on this thread, with specs of their own (rows of two leaves, 44 x 20).
                for _ in 0..<3 {
                    let rows = (0..<3).map { RowNode("row \($0)", .given) }
                    #expect(try ComposedNode("rows") { _ in StackSpec.vertical(children: rows) }.layoutThatFits(range).size == Size(44, 60))
                }
                return try #require(keeping.kept.withLock { $0 })
            }()
            let layout = try Layout.compute(kept, in: SizeRange(min: .zero, max: Size(100, 100)))
            #expect(layout.size == Size(14, 14), "copying: \(copying)")
            #expect(layout.sublayouts.first?.frame == Rect(x: 2, y: 2, width: 10, height: 10), "copying: \(copying)")
            // The spec keeps its own specs only: the nodes of the layout it was made in are gone.
            #expect(weakColumn == nil && weakLeaf == nil && weakKeeping == nil, "copying: \(copying)")
        }
    }

    @Test("Nodes build their specs one after another in the builder they are lent, also after one finished or replaced it")
    func lentSpecBuilder() throws {
        for ways in [[RowNode.Way.given, .given, .given], [.finishing, .given, .replacing], [.replacing, .finishing, .given]] {
            let rows = ways.enumerated().map { RowNode("row \($0.offset)", $0.element) }
            let column = ComposedNode("column") { _ in StackSpec.vertical(alignItems: .start, children: rows) }
            // Twice: computed, then again after every node changed (no layout cached).
            for round in 0..<2 {
                if round == 1 { for row in rows { row.invalidateLayout() } }
                let pass = try LayoutPass.compute(root: column, range: SizeRange(min: .zero, max: Size(100, .infinity)))
                // Each row: 10 + 4 + 30 wide, as tall as its taller leaf (20); the column stacks them at 0, 20, 40.
                #expect(pass.rootSize == Size(44, 60), "\(ways), round \(round)")
                let frames = pass.rootLayout.flattened().map(\.frame)
                #expect(frames == (0..<3).map { Rect(x: 0, y: Double($0) * 20, width: 44, height: 20) }, "\(ways), round \(round)")
                for row in rows {
                    let own = try row.layoutThatFits(SizeRange(exactly: Size(44, 20))).flattened()
                    #expect(own.map(\.frame) == [Rect(x: 0, y: 0, width: 10, height: 20), Rect(x: 14, y: 0, width: 30, height: 5)],
                            "\(row.way), round \(round)")
                    #expect(own.map { $0.object === row.first || $0.object === row.second } == [true, true])
                }
            }
        }
    }

    /// A node that returns a spec of a builder of its own making, not of the one it is given.
    final class ForeignSpecNode: Node, @unchecked Sendable {
        override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
            let other = SpecBuilder()
            for _ in 0..<50 { _ = other.box(size: Size(1, 1)) }
            return other.box(size: Size(3, 3))
        }
    }

    @Test("A node returning a SpecRef of another builder gets an error that says so, not a crash")
    func foreignSpecReference() throws {
        let node = ForeignSpecNode()
        do {
            _ = try node.layoutThatFits(SizeRange(min: .zero, max: Size(100, 100)))
            Issue.record("a foreign SpecRef was laid out")
        } catch {
            #expect(error.path == "root.layoutSpec")
            #expect(error.reason == "a SpecRef of another SpecBuilder (its spec 50): a SpecRef is valid only with the builder it came from")
        }
        // In a pass too.
        #expect(throws: HierarchyError.self) { try LayoutPass.compute(root: node, range: SizeRange(min: .zero, max: Size(100, 100))) }
    }

    @Test("A node whose spec contains itself is a cycle error")
    func cycle() throws {
        let node = ComposedNode("loop") { _ in Spacer() }
        node.setBuild { [unowned node] _ in InsetSpec(insets: .zero, child: node) }
        #expect(throws: LayoutError.self) { try node.layoutThatFits(.unconstrained) }
        do {
            _ = try node.layoutThatFits(.unconstrained)
        } catch {
            #expect(error.reason == "cycle: ComposedNode \"loop\" contains itself (ComposedNode \"loop\" > ComposedNode \"loop\")")
            #expect(error.path == "root.layoutSpec.child")
        }
        // Indirect: a contains b, b contains a.
        let a = ComposedNode("a") { _ in Spacer() }
        let b = ComposedNode("b") { _ in Spacer() }
        a.setBuild { [unowned b] _ in WrapperSpec(b) }
        b.setBuild { [unowned a] _ in WrapperSpec(a) }
        do {
            _ = try a.layoutThatFits(.unconstrained)
            Issue.record("a cycle through two nodes was laid out")
        } catch {
            #expect(error.reason.hasPrefix("cycle: ComposedNode \"a\" contains itself"))
        }
    }

    @Test("Bad values in a node's spec are refused with their path")
    func badSpec() {
        let node = ComposedNode("bad") { _ in RatioSpec(ratio: 0, child: Box()) }
        #expect(throws: LayoutError("expected a ratio > 0, got 0", path: "root.layoutSpec.ratio")) {
            try node.layoutThatFits(.unconstrained)
        }
        #expect(throws: LayoutError("min.width is NaN", path: "sizeRange")) {
            try node.layoutThatFits(SizeRange(min: Size(.nan, 0), max: Size(1, 1)))
        }
    }
    /// A node's style is checked once per change, not once per layout: a bad style is refused on every layout
    /// (not only the first), a fixed one lays out, and breaking it again is refused again.
    @Test("A bad style is refused with its path on every layout, and checked again after each change")
    func badStyleRechecked() throws {
        let leaf = CountingLeaf("leaf", size: Size(5, 5))
        leaf.style.minWidth = .points(50)
        leaf.style.flexGrow = -1
        let range = SizeRange(min: .zero, max: Size(100, 100))
        for _ in 0..<2 {
            do {
                _ = try leaf.layoutThatFits(range)
                Issue.record("a style with a negative flexGrow was laid out")
            } catch {
                #expect(error.path.hasSuffix("style.flexGrow"))
            }
        }
        leaf.style.flexGrow = 0
        // Measured 5 wide, held to the minimum width of 50.
        #expect(try leaf.layoutThatFits(range).size == Size(50, 5))
        leaf.style.width = .points(-1)
        #expect(throws: LayoutError.self) { try leaf.layoutThatFits(range) }
        // A minimum above its maximum is no error: the minimum wins (ASLayoutElementSizeConstrain), 90 wide.
        leaf.style.width = .auto
        leaf.style.maxWidth = .points(20)
        leaf.style.minWidth = .points(90)
        #expect(try leaf.layoutThatFits(range).size == Size(90, 5))
    }

    /// A stack reads each child node's style from the node's snapshot (in place): its flex factor places it, and
    /// a style that cannot be laid out is refused at the child's place in the parent's spec.
    @Test("A child node's style reaches its parent's stack; a bad one is refused at the child's path")
    func childStyleInParentStack() throws {
        let fixed = CountingLeaf("fixed", size: Size(10, 10))
        let growing = CountingLeaf("growing", size: Size(10, 10))
        growing.style.flexGrow = 1
        let row = ComposedNode("row") { _ in StackSpec.horizontal(children: [fixed, growing]) }
        let range = SizeRange(min: Size(100, 0), max: Size(100, 50))
        // Exactly 100 wide: the 80 left after both 10-wide children all go to the growing one (Texture's flex
        // grow), which starts after the fixed one.
        let layout = try row.layoutThatFits(range)
        #expect(layout.sublayouts.map(\.frame) == [Rect(x: 0, y: 0, width: 10, height: 10), Rect(x: 10, y: 0, width: 90, height: 10)])
        // (The children are not the row's subnodes here, so the row is invalidated by hand after each change.)
        growing.style.flexGrow = -1
        row.setNeedsLayout()
        do {
            _ = try row.layoutThatFits(range)
            Issue.record("a child with a negative flexGrow was laid out")
        } catch {
            #expect(error.path.hasSuffix("children[1].style.flexGrow"))
        }
        // Fixed again, it grows again; with no flex it keeps its own width.
        growing.style.flexGrow = 2
        row.setNeedsLayout()
        #expect(try row.layoutThatFits(range).sublayouts[1].frame.size.width == 90)
        growing.style.flexGrow = 0
        row.setNeedsLayout()
        #expect(try row.layoutThatFits(range).sublayouts[1].frame.size.width == 10)
    }
}

extension NodeLayoutTests {
    /// Rounding 0 up to the pixel grid subtracts FLT_EPSILON first, which gives -0 unless the grid normalizes
    /// it; a node's layout rounds each placed node's position in it, so every node at the origin depends on it.
    @Test("A node at the origin of its parent's layout is at +0, not -0, in layoutThatFits and after a pass")
    func noNegativeZero() throws {
        let leaf = CountingLeaf("leaf", size: Size(10, 10))
        let root = ComposedNode("root") { _ in InsetSpec(insets: .zero, child: leaf) }
        let layout = try root.layoutThatFits(SizeRange(min: .zero, max: Size(100, 100)))
        let position = layout.sublayouts[0].position
        #expect(position == .zero)
        #expect(position.x.sign == .plus && position.y.sign == .plus)
        let frame = layout.flattened()[0].frame
        #expect(frame.origin.x.sign == .plus && frame.origin.y.sign == .plus)
        _ = try onApplyQueue { try LayoutPass.compute(root: root, range: SizeRange(min: .zero, max: Size(100, 100))).apply() }
        #expect(leaf.frame.origin == .zero)
        #expect(leaf.frame.origin.x.sign == .plus && leaf.frame.origin.y.sign == .plus)
        // Rounding itself: 0 and values within a pixel below it round up to +0.
        let grid = PixelGrid(scale: 2)
        #expect(grid.ceil(0).sign == .plus && grid.ceil(-0.2).sign == .plus && grid.round(-0.2).sign == .plus)
        #expect(grid.floor(-0.0).sign == .plus)
    }
}

/// A node tree built in code has no depth limit, and each nested node's layout takes a few KB of stack (about
/// 5 KB in a release build, more in a debug one): some 1,700 nested nodes ran off an 8 MB thread (signal 11).
@Suite("Nodes deeper than the stack")
struct NodesDeeperThanTheStackTests {
    /// Runs `body` on a thread with a `stackSize`-byte stack and returns what it returns, once the thread has
    /// ended (joined), so that it has let go of `body` and what `body` captured: a `Foundation.Thread` kept its
    /// closure until the thread went, sometimes after the caller had gone on (a node it captured then outlived a
    /// test's release of it).
    static func onThread<T: Sendable>(stackSize: Int, _ body: @escaping @Sendable () -> T) -> T {
        let result = Locked<T?>(nil)
        let work = Unmanaged.passRetained(JoinedThreadWork {
            let value = body()
            result.withLock { $0 = value }
        })
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        var thread = pthread_t()
        let created = pthread_create(&thread, &attributes, { pointer in
            Unmanaged<JoinedThreadWork>.fromOpaque(pointer!).takeRetainedValue().body()
            return nil
        }, work.toOpaque())
        guard created == 0 else {
            work.release()
            Issue.record("pthread_create failed: \(created)")
            return body()
        }
        pthread_join(thread, nil)
        return result.withLock { $0! }
    }

    /// Each node insets the next by 1 on every side (a spec between the nodes), or returns the next node itself
    /// as its spec (nodes alone: each level is checked where a node's layout begins).
    @Test("A chain of nodes too deep for the thread's stack is refused as a limit; the nodes lay out where it fits",
          arguments: [true, false])
    func deepChain(insets: Bool) {
        let depth = 3_000
        var nodes: [ComposedNode] = [ComposedNode("leaf") { _ in Box(size: Size(10, 10)) }]
        for i in 1..<depth {
            let child = nodes[nodes.count - 1]
            nodes.append(ComposedNode("n\(i)") { _ in insets ? InsetSpec(insets: EdgeInsets(all: 1), child: child) : child as any LayoutElement })
        }
        nodes.reverse()
        let chain = nodes
        let range = SizeRange(min: .zero, max: Size(1e5, 1e5))
        func side(_ index: Int) -> Double { insets ? 10 + 2 * Double(depth - 1 - index) : 10 }
        let refused = Self.onThread(stackSize: 1 << 20) { () -> String in
            do throws(LayoutError) {
                return "laid out: \(try chain[0].layoutThatFits(range).size)"
            } catch {
                let expected = error.kind == .limit
                    && error.reason.hasPrefix("nested too deep for this thread's stack: ")
                    && error.path.hasPrefix(insets ? "root.layoutSpec.child.layoutSpec.child" : "root.layoutSpec.layoutSpec")
                return expected ? "limit" : "\(error)"
            }
        }
        #expect(refused == "limit")
        // On the same size of stack, a node 20 levels above the leaf lays out; on a large enough stack, all do.
        let near = Self.onThread(stackSize: 1 << 20) { (try? chain[depth - 21].layoutThatFits(range))?.size }
        #expect(near == Size(side(depth - 21), side(depth - 21)))
        let all = Self.onThread(stackSize: 512 << 20) { (try? chain[0].layoutThatFits(range))?.size }
        #expect(all == Size(side(0), side(0)))
    }
}

/// The closure a joined test thread runs (``NodesDeeperThanTheStackTests/onThread(stackSize:_:)``).
final class JoinedThreadWork {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
