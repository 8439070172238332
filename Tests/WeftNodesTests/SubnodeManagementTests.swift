import Foundation
import Synchronization
import Testing
import WeftLayout
@testable import WeftNodes
import WeftSync

/// A root whose spec lists leaves by name from a settable list; layout passes are run explicitly.
final class Scene: @unchecked Sendable {
    let leaves: [String: CountingLeaf]
    let root: ComposedNode
    private let order = Locked<[String]>([])

    init(_ names: [String], initial: [String]) {
        var leaves: [String: CountingLeaf] = [:]
        for name in names { leaves[name] = CountingLeaf(name, size: Size(10, 10)) }
        self.leaves = leaves
        order.withLock { $0 = initial }
        let order = self.order
        let byName = leaves
        root = ComposedNode("root") { _ in
            StackSpec.horizontal(children: order.withLock { $0 }.compactMap { byName[$0] })
        }
        root.setConstrainedRangeQuietly(SizeRange(min: .zero, max: Size(300, 100)))
    }

    func show(_ names: [String]) throws -> HierarchyDiff? {
        order.withLock { $0 = names }
        root.invalidateLayout()
        return try onApplyQueue {
            try root.layoutIfNeeded()
            return root.lastAppliedDiff
        }
    }
}

@Suite("Automatic subnode management")
struct SubnodeManagementTests {
    @Test("Subnodes are exactly the nodes of the flattened layout, in layout order")
    func subnodesFollowLayout() throws {
        let scene = Scene(["a", "b", "c", "d"], initial: [])
        var diff = try scene.show(["a", "b", "c"])
        #expect(names(scene.root.subnodes) == ["a", "b", "c"])
        #expect(diff?.insertions.count == 3)
        #expect(scene.leaves["b"]?.supernode === scene.root)
        #expect(scene.leaves["c"]?.frame == Rect(x: 20, y: 0, width: 10, height: 10))

        diff = try scene.show(["a", "c", "d"])
        #expect(names(scene.root.subnodes) == ["a", "c", "d"])
        #expect(diff?.removals.map { $0.node.identifier } == ["b"])
        #expect(diff?.insertions.map { $0.node.identifier } == ["d"])
        #expect(diff?.moves.isEmpty == true)
        #expect(scene.leaves["b"]?.supernode == nil)

        diff = try scene.show(["d", "a", "c"])
        #expect(names(scene.root.subnodes) == ["d", "a", "c"])
        #expect(diff?.moves.map { $0.node.identifier } == ["d"], "a and c keep their order; d moved")
        #expect(diff?.insertions.isEmpty == true && diff?.removals.isEmpty == true)
    }

    @Test("Overlays are above what they overlay, backgrounds below")
    func overlayOrder() throws {
        let content = CountingLeaf("content", size: Size(20, 20))
        let over = CountingLeaf("over", size: Size(5, 5))
        let back = CountingLeaf("back", size: Size(5, 5))
        let root = ComposedNode("root") { _ in
            OverlaySpec(child: BackgroundSpec(child: content, background: back), overlay: over)
        }
        root.setConstrainedRangeQuietly(SizeRange(min: .zero, max: Size(100, 100)))
        try onApplyQueue { try root.layoutIfNeeded() }
        #expect(names(root.subnodes) == ["back", "content", "over"])
        #expect(over.frame == Rect(x: 0, y: 0, width: 20, height: 20), "an overlay is exactly the child's size")
    }

    @Test("The diff is a longest common subsequence plus moves")
    func diffs() {
        let nodes = (0..<6).map { i -> Node in
            let node = Node()
            node.identifier = "n\(i)"
            return node
        }
        let (a, b, c, d, e, f) = (nodes[0], nodes[1], nodes[2], nodes[3], nodes[4], nodes[5])
        let rotate = HierarchyDiff(from: [a, b, c, d], to: [b, c, d, a])
        #expect(rotate.moves.map { $0.node.identifier } == ["n0"])
        #expect(rotate.moves.first.map { ($0.from, $0.to) } ?? (0, 0) == (0, 3))
        let reverse = HierarchyDiff(from: [a, b, c], to: [c, b, a])
        #expect(reverse.moves.count == 2, "one of three stays, two move")
        let mixed = HierarchyDiff(from: [a, b, c, d], to: [e, d, b, f])
        #expect(mixed.removals.map(\.index) == [0, 2])
        #expect(mixed.insertions.map(\.index) == [0, 3])
        #expect(mixed.moves.count == 1)
        #expect(HierarchyDiff(from: [a, b], to: [a, b]).isEmpty)
        // From and to no subnodes (kept as the list itself): every node enters or leaves, at its own index.
        let fromNothing = HierarchyDiff(from: [], to: [c, a])
        #expect(fromNothing.insertions.map { $0.node.identifier } == ["n2", "n0"])
        #expect(fromNothing.insertions.map(\.index) == [0, 1])
        #expect(fromNothing.insertionCount == 2 && fromNothing.removalCount == 0 && fromNothing.removals.isEmpty)
        let toNothing = HierarchyDiff(from: [d, e, f], to: [])
        #expect(toNothing.removals.map(\.index) == [0, 1, 2] && toNothing.removalCount == 3)
        #expect(toNothing.removals.map { $0.node.identifier } == ["n3", "n4", "n5"] && toNothing.insertions.isEmpty)
        #expect(fromNothing != toNothing && !fromNothing.isEmpty && HierarchyDiff(from: [], to: []).isEmpty)
        #expect(fromNothing == HierarchyDiff(from: [], to: [c, a]))
    }

    @Test("addSubnode and removeFromSupernode are refused for automatically managed nodes")
    func manualCallsRefused() throws {
        let scene = Scene(["a"], initial: ["a"])
        _ = try scene.show(["a"])
        let stranger = Node()
        stranger.identifier = "stranger"
        onApplyQueue { () -> Void in
            #expect(throws: HierarchyError.automaticallyManaged(operation: "addSubnode", node: "ComposedNode \"root\"")) {
                try scene.root.addSubnode(stranger)
            }
            #expect(throws: HierarchyError.automaticallyManaged(
                operation: "removeFromSupernode", node: "CountingLeaf \"a\" (a subnode of ComposedNode \"root\")")) {
                try scene.leaves["a"]?.removeFromSupernode()
            }
        }
        #expect(names(scene.root.subnodes) == ["a"])
        #expect(stranger.supernode == nil)
    }

    @Test("Manual subnodes: add, insert, move, remove; cycles and bad indices refused")
    func manualHierarchy() throws {
        let parent = Node(identifier: "parent")
        let other = Node(identifier: "other")
        let a = Node(identifier: "a")
        let b = Node(identifier: "b")
        try onApplyQueue {
            try parent.addSubnode(a)
            try parent.insertSubnode(b, at: 0)
            #expect(names(parent.subnodes) == ["b", "a"])
            try other.addSubnode(a)
            #expect(names(parent.subnodes) == ["b"], "adding to another parent moves the node")
            #expect(a.supernode === other)
            #expect(throws: HierarchyError.indexOutOfRange(index: 5, count: 1, node: "Node \"parent\"")) {
                try parent.insertSubnode(Node(), at: 5)
            }
            try a.addSubnode(parent)
            #expect(throws: HierarchyError.cycle(node: "Node \"other\"", into: "Node \"parent\"")) {
                try parent.addSubnode(other)
            }
            try b.removeFromSupernode()
            #expect(parent.subnodes.isEmpty)
            #expect(b.supernode == nil)
        }
    }

    @Test("Hierarchy changes off the apply queue are refused and change nothing")
    func offQueue() {
        let parent = Node(identifier: "parent")
        let child = Node(identifier: "child")
        #expect(throws: HierarchyError.offApplyQueue(operation: "addSubnode", node: "Node \"parent\"")) {
            try parent.addSubnode(child)
        }
        #expect(parent.subnodes.isEmpty)
        #expect(child.supernode == nil)
        #expect(throws: HierarchyError.offApplyQueue(operation: "layoutIfNeeded", node: "Node \"parent\"")) {
            try parent.layoutIfNeeded()
        }
        let pass = try? LayoutPass.compute(root: parent, range: .unconstrained)
        #expect(throws: HierarchyError.offApplyQueue(operation: "applying a layout", node: "Node \"parent\"")) {
            try pass?.apply()
        }
    }

    @Test("A node that does not manage its subnodes refuses a layout placing a node that is not one, as layoutThatFits and a pass")
    func placesANodeNotItsSubnode() throws {
        let (a, b) = (CountingLeaf("a", size: Size(10, 10)), CountingLeaf("b", size: Size(10, 10)))
        let manual = ComposedNode("manual", managed: false) { _ in StackSpec.horizontal(children: [a, InsetSpec(insets: .zero, child: b)]) }
        let range = SizeRange(min: .zero, max: Size(100, 100))
        let refusal = { (node: Node, place: String) in
            HierarchyError.notASubnode(node: "ComposedNode \"manual\"", placed: node.displayName,
                                       place: "the layout of ComposedNode \"manual\" at layoutSpec.\(place)")
        }
        #expect(refusal(a, "children[0]").description == "CountingLeaf \"a\" is placed in the layout of ComposedNode \"manual\" at "
            + "layoutSpec.children[0], but it is not a subnode of ComposedNode \"manual\", which does not manage its subnodes "
            + "automatically: add it with addSubnode, or set automaticallyManagesSubnodes")
        #expect(throws: LayoutError(refusal(a, "children[0]").description)) { try manual.layoutThatFits(range) }
        #expect(throws: refusal(a, "children[0]")) { try LayoutPass.compute(root: manual, range: range) }
        // Below a managed node too, where the pass reaches it.
        let top = ComposedNode("top") { _ in WrapperSpec(manual) }
        #expect(throws: refusal(a, "children[0]")) { try LayoutPass.compute(root: top, range: range) }
        // Added by hand, `a` is accepted; `b` is not a subnode yet (its entry is cached now: checked on a hit too).
        try onApplyQueue { try manual.addSubnode(a) }
        #expect(throws: LayoutError(refusal(b, "children[1].child").description)) { try manual.layoutThatFits(range) }
        #expect(throws: refusal(b, "children[1].child")) { try LayoutPass.compute(root: manual, range: range) }
        #expect(a.supernode === manual && b.supernode == nil)
    }

    @Test("A node that does not manage its subnodes lays out the subnodes it was given by hand, however many")
    func placesItsOwnSubnodes() throws {
        // 40 subnodes (more than are compared one by one), 10 x 10 each in a row; and one more not added.
        let leaves = (0..<41).map { CountingLeaf("l\($0)", size: Size(10, 10)) }
        let manual = ComposedNode("manual", managed: false) { _ in StackSpec.horizontal(children: leaves) }
        let added = Array(leaves.prefix(40))
        try onApplyQueue { for leaf in added { try manual.addSubnode(leaf) } }
        let range = SizeRange(min: .zero, max: Size(1000, 100))
        #expect(throws: HierarchyError.notASubnode(
            node: "ComposedNode \"manual\"", placed: "CountingLeaf \"l40\"",
            place: "the layout of ComposedNode \"manual\" at layoutSpec.children[40]")) {
            try LayoutPass.compute(root: manual, range: range)
        }
        try onApplyQueue { try manual.addSubnode(leaves[40]) }
        // Each leaf 10 wide, after the ones before it; the row 410 x 10.
        let layout = try manual.layoutThatFits(range)
        #expect(layout.size == Size(410, 10))
        #expect(layout.flattened().map(\.frame) == (0..<41).map { Rect(x: 10 * Double($0), y: 0, width: 10, height: 10) })
        let pass = try LayoutPass.compute(root: manual, range: range)
        _ = try onApplyQueue { try pass.apply() }
        // The pass leaves the subnodes as they were added, and frames them where the layout puts them.
        #expect(names(manual.subnodes) == leaves.map { $0.identifier ?? "" })
        #expect(leaves[3].frame == Rect(x: 30, y: 0, width: 10, height: 10))
    }

    @Test("A node twice in one layout is an error naming both places; nothing changes")
    func twiceInOneLayout() throws {
        let a = CountingLeaf("a", size: Size(10, 10))
        let root = ComposedNode("root") { _ in StackSpec.horizontal(children: [a, InsetSpec(insets: .zero, child: a)]) }
        root.setConstrainedRangeQuietly(SizeRange(min: .zero, max: Size(100, 100)))
        onApplyQueue { () -> Void in
            #expect(throws: HierarchyError.nodeInTwoPlaces(
                node: "CountingLeaf \"a\"",
                first: "the layout of ComposedNode \"root\" at layoutSpec.children[0]",
                second: "the layout of ComposedNode \"root\" at layoutSpec.children[1].child")) {
                try root.layoutIfNeeded()
            }
        }
        #expect(root.subnodes.isEmpty)
    }

    @Test("layoutThatFits refuses a node twice in the layout with a pass's words, on a cache hit too")
    func twiceInLayoutThatFits() throws {
        let a = CountingLeaf("a", size: Size(10, 10))
        let build: @Sendable (SizeRange) -> any LayoutElement = { _ in
            StackSpec.horizontal(children: [a, InsetSpec(insets: .zero, child: a)])
        }
        let expected = "CountingLeaf \"a\" is in two places: the layout of ComposedNode \"root\" at layoutSpec.children[0]"
            + " and the layout of ComposedNode \"root\" at layoutSpec.children[1].child"
        let range = SizeRange(min: .zero, max: Size(100, 100))
        // Computed by layoutThatFits, and asked again (nothing was published for the repeat).
        let fresh = ComposedNode("root", build: build)
        #expect(throws: LayoutError(expected)) { try fresh.layoutThatFits(range) }
        #expect(throws: LayoutError(expected)) { try fresh.layoutThatFits(range) }
        // A layout pass stores the node's entry, then refuses the node in the same words.
        let root = ComposedNode("root", build: build)
        #expect(throws: HierarchyError.self) { try LayoutPass.compute(root: root, range: range) }
        do {
            _ = try LayoutPass.compute(root: root, range: range)
        } catch {
            #expect(error.description == expected)
        }
        // layoutThatFits then finds the entry (its spec is called only to word the two places) and refuses it.
        let calls = root.specCalls
        #expect(throws: LayoutError(expected)) { try root.layoutThatFits(range) }
        #expect(root.specCalls == calls + 2)
    }

    @Test("A node in two parents' layouts is an error naming both; the earlier hierarchy stays")
    func twoParents() throws {
        let shared = CountingLeaf("shared", size: Size(10, 10))
        let left = ComposedNode("left") { _ in WrapperSpec(shared) }
        let right = ComposedNode("right") { _ in WrapperSpec(shared) }
        left.setConstrainedRangeQuietly(SizeRange(min: .zero, max: Size(50, 50)))
        right.setConstrainedRangeQuietly(SizeRange(min: .zero, max: Size(50, 50)))
        try onApplyQueue { try left.layoutIfNeeded() }
        #expect(shared.supernode === left)
        onApplyQueue { () -> Void in
            #expect(throws: HierarchyError.nodeInTwoPlaces(
                node: "CountingLeaf \"shared\"", first: "a subnode of ComposedNode \"left\"",
                second: "the layout of ComposedNode \"right\" at layoutSpec.children[0]")) {
                try right.layoutIfNeeded()
            }
        }
        #expect(shared.supernode === left)
        #expect(right.subnodes.isEmpty)
        // Within one tree: both children of one root want the same node.
        let twin = CountingLeaf("twin", size: Size(5, 5))
        let p = ComposedNode("p") { _ in WrapperSpec(twin) }
        let q = ComposedNode("q") { _ in WrapperSpec(twin) }
        let top = ComposedNode("top") { _ in StackSpec.horizontal(children: [p, q]) }
        #expect(throws: HierarchyError.nodeInTwoPlaces(
            node: "CountingLeaf \"twin\"", first: "the layout of ComposedNode \"p\" at layoutSpec.children[0]",
            second: "the layout of ComposedNode \"q\" at layoutSpec.children[0]")) {
            try LayoutPass.compute(root: top, range: SizeRange(min: .zero, max: Size(50, 50)))
        }
    }

    @Test("In a large layout with several nodes placed twice, the error names the one placed twice first")
    func earliestDuplicateNamed() throws {
        // Over 32 placements the pass finds duplicates by sorting node identities; which one it names must not
        // depend on the nodes' addresses: it is the node whose second placement comes first, as in a small layout.
        let fillers = (0..<40).map { CountingLeaf("f\($0)", size: Size(1, 1)) }
        let a = CountingLeaf("a", size: Size(2, 2))
        let b = CountingLeaf("b", size: Size(2, 2))
        // Each order once, so that in one of them the node to name lies higher in memory than the other.
        for (x, y) in [(a, b), (b, a)] {
            // x at 0 and 2, y at 1 and 3: x's second placement comes first.
            let children: [any LayoutElement] = [x, y, x, y] + fillers
            let root = ComposedNode("root") { _ in StackSpec.horizontal(children: children) }
            #expect(throws: HierarchyError.nodeInTwoPlaces(
                node: x.displayName,
                first: "the layout of ComposedNode \"root\" at layoutSpec.children[0]",
                second: "the layout of ComposedNode \"root\" at layoutSpec.children[2]")) {
                try LayoutPass.compute(root: root, range: SizeRange(min: .zero, max: Size(1000, 100)))
            }
        }
    }

    @Test("Two nodes whose cached layouts place each other make a pass fail with a cycle error, not recurse forever")
    func cycleThroughCachedLayouts() throws {
        // a places b; a's layout is cached. Then b's spec places a, and b (never applied under a, so a is not
        // invalidated) caches a layout holding a's cached one. A pass of a now finds a below b below a.
        let a = ComposedNode("a") { _ in Spacer() }
        let b = ComposedNode("b") { _ in Box(size: Size(20, 20)) }
        a.setBuild { [unowned b] _ in WrapperSpec(b) }
        a.invalidateLayout()
        let range = SizeRange(exactly: Size(100, 100))
        #expect(try a.layoutThatFits(range).sublayouts.count == 1)
        b.setBuild { [unowned a] _ in WrapperSpec(a) }
        b.invalidateLayout()
        // (At exactly 100x100, the size a placed it at, so the pass finds this layout of b.)
        #expect(try b.layoutThatFits(range).sublayouts.first?.object === a)
        #expect(throws: HierarchyError.cycle(node: a.displayName, into: b.displayName)) {
            try LayoutPass.compute(root: a, range: range)
        }
        // Deeper than the walk's shallow path (32 nodes, checked by walking up it): a chain of 40 nodes, each
        // placing the next, whose last places the first.
        let chain = (0..<40).map { ComposedNode("n\($0)") { _ in Spacer() } }
        for (node, next) in zip(chain, chain.dropFirst()) { node.setBuild { [unowned next] _ in WrapperSpec(next) } }
        for node in chain { node.invalidateLayout() }
        _ = try chain[0].layoutThatFits(range)
        chain[39].setBuild { [unowned first = chain[0]] _ in WrapperSpec(first) }
        chain[39].invalidateLayout()
        _ = try chain[39].layoutThatFits(range)
        #expect(throws: HierarchyError.cycle(node: chain[0].displayName, into: chain[39].displayName)) {
            try LayoutPass.compute(root: chain[0], range: range)
        }
    }

    @Test("A layout computed for an old version is never applied over a newer one")
    func staleLayoutDropped() throws {
        let scene = Scene(["a", "b"], initial: ["a"])
        _ = try scene.show(["a"])
        // Compute a pass that would show a and b, then invalidate before it is applied.
        let old = try scene.showPass(["a", "b"])
        scene.root.invalidateLayout()
        let result = try onApplyQueue { try old.apply() }
        #expect(result.staleNodes >= 1)
        #expect(names(scene.root.subnodes) == ["a"], "the stale pass changed nothing")
        _ = try scene.show(["a", "b"])
        #expect(names(scene.root.subnodes) == ["a", "b"])
    }
}

extension Scene {
    func showPass(_ names: [String]) throws -> LayoutPass {
        order.withLock { $0 = names }
        root.invalidateLayout()
        return try LayoutPass.compute(root: root, range: SizeRange(min: .zero, max: Size(300, 100)))
    }
}

/// A deep hierarchy built by hand (no layout bounds its depth): released, each node freed its subnodes from
/// within its own deinit, recursively, and `allSubnodes` recursed and copied each subtree's list into its
/// parent's.
@Suite("Deep hierarchies")
struct DeepHierarchyTests {
    @Test("A chain of 30,000 nodes is listed by allSubnodes, in order, and freed when released")
    func deepChain() throws {
        let queue = ApplyQueue(label: "deep.chain")
        let context = LayoutContext(scale: 2, applyQueue: queue)
        let count = 30_000
        weak var leaf: Node?
        weak var top: Node?
        do {
            // Built bottom up: each new parent has no ancestors for insertSubnode to walk.
            var chain = Node(identifier: "n\(count)")
            chain.context = context
            leaf = chain
            try queue.sync {
                for i in stride(from: count - 1, through: 0, by: -1) {
                    let parent = Node(identifier: "n\(i)")
                    parent.context = context
                    try parent.addSubnode(chain)
                    chain = parent
                }
            }
            top = chain
            let all = chain.allSubnodes
            #expect(all.count == count)
            #expect(all.first?.identifier == "n1")
            #expect(all.last?.identifier == "n\(count)")
            #expect(all.last === leaf)
        }
        #expect(top == nil)
        #expect(leaf == nil)
    }

    /// Laid out, a chain's cached and applied layouts hold each node's subnodes too, so a node's subnodes were
    /// not its alone when it went, and were freed recursively with its layouts.
    @Test("A chain of 10,000 nodes laid out is freed on a 1 MiB thread")
    func laidOutChain() throws {
        let queue = ApplyQueue(label: "deep.laidOut")
        let context = LayoutContext(scale: 2, applyQueue: queue)
        let count = 10_000
        let holder = Locked<Node?>(nil)
        weak var leaf: Node?
        do {
            var chain = Node(identifier: "leaf", layoutSpec: { _, _, _ in Box(size: Size(10, 10)) })
            chain.context = context
            leaf = chain
            try queue.sync {
                for i in 0..<count {
                    // (No capture: each node's spec is its first subnode.)
                    let parent = Node(identifier: "n\(i)", layoutSpec: { node, _, _ in node.subnodes.first })
                    parent.context = context
                    try parent.addSubnode(chain)
                    chain = parent
                }
            }
            let top = chain
            let range = SizeRange(min: .zero, max: Size(100, 100))
            let size = NodesDeeperThanTheStackTests.onThread(stackSize: 1 << 30) { (try? top.layoutThatFits(range))?.size }
            #expect(size == Size(10, 10))
            holder.withLock { $0 = top }
        }
        #expect(leaf != nil)
        NodesDeeperThanTheStackTests.onThread(stackSize: 1 << 20) {
            let top = holder.withLock { $0.take() }
            _ = top
        }
        #expect(leaf == nil)
    }

    /// Readers reach a node about to go through its subnodes' back references (`supernode`), and read its
    /// subnodes while it goes: each node is changed only by its own deinit, when nothing can reach it any more.
    /// A chain whose nodes are no one's subnodes: each node's spec makes the next node on each call, so the chain
    /// is held only by each node's cached layout and its published root answer. Those went with the node's state,
    /// freed by the runtime within the node's deinit, recursively (signal 11 on a 1 MiB thread from 1,000 nodes
    /// in a debug build, before a going node handed its layouts to the release queue).
    /// How many `CountedNode`s are alive.
    final class LiveCount: Sendable {
        let value = Atomic<Int>(0)
    }

    final class CountedNode: Node, @unchecked Sendable {
        let live: LiveCount
        init(_ live: LiveCount) {
            self.live = live
            live.value.add(1, ordering: .relaxed)
            super.init()
        }
        deinit { live.value.subtract(1, ordering: .relaxed) }
    }

    /// A counted node whose spec makes the next level's node on each call, down to a 10x10 box below level 0:
    /// a chain of `level` + 1 nodes once laid out. Each manages its subnodes (a node that does not may place only
    /// subnodes it was given), in `context` if one is given.
    private static func specMadeChain(_ level: Int, _ live: LiveCount, managedIn context: LayoutContext? = nil) -> Node {
        let node = CountedNode(live)
        if let context { node.context = context }
        node.automaticallyManagesSubnodes = true
        node.layoutSpecBlock = { _, _, _ in
            level == 0 ? Box(size: Size(10, 10)) as any SpecPart : specMadeChain(level - 1, live, managedIn: context) as any SpecPart
        }
        return node
    }

    /// Lets go of the node `holder` holds on a thread with a 1 MiB stack.
    private static func releaseOnSmallThread(_ holder: Locked<Node?>) {
        NodesDeeperThanTheStackTests.onThread(stackSize: 1 << 20) {
            let top = holder.withLock { $0.take() }
            _ = top
        }
    }

    @Test("A chain held only by cached layouts, 10,000 nodes, is freed on a 1 MiB thread")
    func chainHeldByLayouts() throws {
        let live = LiveCount()
        let count = 10_000
        let holder = Locked<Node?>(Self.specMadeChain(count, live))
        let range = SizeRange(min: .zero, max: Size(100, 100))
        let size = NodesDeeperThanTheStackTests.onThread(stackSize: 1 << 30) { () -> Size? in
            let top = holder.withLock { $0 }
            return (try? top?.layoutThatFits(range))?.size
        }
        // 10x10: the box, through 10,001 nodes; each node's spec made the next once.
        #expect(size == Size(10, 10))
        #expect(live.value.load(ordering: .relaxed) == count + 1)
        Self.releaseOnSmallThread(holder)
        #expect(live.value.load(ordering: .relaxed) == 0)
    }

    /// A managed chain whose spec makes new children on each call: laid out and applied in one range (its
    /// subnodes are one chain), then laid out in another range (its cache holds a second chain, no one's
    /// subnodes). The second chain went from within the first's deinits, recursively.
    @Test("A managed chain caching a second chain of other children, 10,000 nodes each, is freed on a 1 MiB thread")
    func managedChainCachingAnother() throws {
        let live = LiveCount()
        let count = 10_000
        let queue = ApplyQueue(label: "deep.cachingAnother")
        let context = LayoutContext(applyQueue: queue)
        let holder = Locked<Node?>(Self.specMadeChain(count, live, managedIn: context))
        let applied = NodesDeeperThanTheStackTests.onThread(stackSize: 1 << 30) { () -> Bool in
            guard let top = holder.withLock({ $0 }),
                  let pass = try? LayoutPass.compute(root: top, range: SizeRange(min: .zero, max: Size(100, 100))) else { return false }
            return queue.sync { (try? pass.apply()) != nil }
        }
        #expect(applied)
        let size = NodesDeeperThanTheStackTests.onThread(stackSize: 1 << 30) { () -> Size? in
            let top = holder.withLock { $0 }
            return (try? top?.layoutThatFits(SizeRange(min: .zero, max: Size(50, 50))))?.size
        }
        #expect(size == Size(10, 10))
        // The first chain (the top and 10,000 subnodes below it) and the second (10,000 more, cached).
        #expect(live.value.load(ordering: .relaxed) == 2 * count + 1)
        Self.releaseOnSmallThread(holder)
        #expect(live.value.load(ordering: .relaxed) == 0)
    }

    @Test("Readers walking a deep chain up and down while it is released see whole nodes, and it is freed")
    func releasedWhileRead() throws {
        let queue = ApplyQueue(label: "deep.read")
        let context = LayoutContext(scale: 2, applyQueue: queue)
        for round in 0..<20 {
            let count = 500
            var nodes: [Node] = []
            var chain = Node(identifier: "leaf")
            chain.context = context
            nodes.append(chain)
            try queue.sync {
                for i in 0..<count {
                    let parent = Node(identifier: "n\(i)")
                    parent.context = context
                    try parent.addSubnode(chain)
                    chain = parent
                    if i % 100 == 50 { nodes.append(parent) }
                }
            }
            // The readers hold a few nodes along the chain; the root's only reference is `holder`.
            let held = nodes
            nodes = []
            let holder = Locked<Node?>(chain)
            weak let root = chain
            chain = Node()
            let stop = Atomic<Bool>(false)
            let group = DispatchGroup()
            for start in held {
                DispatchQueue.global().async(group: group) {
                    while !stop.load(ordering: .relaxed) {
                        // Up: each supernode whole (its subnodes list this node, or it has let go of them all).
                        var node = start
                        while let parent = node.supernode {
                            let subnodes = parent.subnodes
                            #expect(subnodes.isEmpty || subnodes.contains { $0 === node }, "round \(round)")
                            node = parent
                        }
                        // Down from where the walk stopped, a few levels.
                        var below = node.subnodes.first
                        for _ in 0..<10 { below = below?.subnodes.first }
                    }
                }
            }
            // (On this thread: the readers may take every worker Dispatch has.)
            usleep(2_000)
            holder.withLock { $0 = nil }
            usleep(2_000)
            stop.store(true, ordering: .relaxed)
            group.wait()
            // The nodes the readers held keep what is below them; all above the highest one went.
            #expect(root == nil, "round \(round)")
            // (Held: the leaf and n50, n150, ..., n450: the chain from the leaf up to n450 stays, n450 the top.)
            #expect(held.last?.supernode == nil)
            var top = held[0]
            while let parent = top.supernode { top = parent }
            #expect(top === held.last)
        }
    }

    @Test("allSubnodes lists each node before its subnodes, subnodes back to front")
    func allSubnodesOrder() throws {
        let queue = ApplyQueue(label: "deep.order")
        let root = Node(identifier: "root")
        root.context = LayoutContext(scale: 2, applyQueue: queue)
        let a = Node(identifier: "a")
        try queue.sync {
            try root.addSubnode(a)  // (a takes root's context, and a's subnodes a's)
            try a.addSubnode(Node(identifier: "a1"))
            try a.addSubnode(Node(identifier: "a2"))
            try root.addSubnode(Node(identifier: "b"))
        }
        #expect(root.allSubnodes.map(\.identifier) == ["a", "a1", "a2", "b"])
        #expect(a.allSubnodes.map(\.identifier) == ["a1", "a2"])
    }
}
