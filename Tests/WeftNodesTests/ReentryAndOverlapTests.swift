import Dispatch
import Testing
import WeftLayout
@testable import WeftNodes
import WeftSync

/// Layouts within layouts, hierarchy changes of one parent from two apply queues, transitions that overlap, and
/// a context changed under a pass in flight: each broke a promise (a stack overflow, a trap, a node missing
/// from the hierarchy its applied layout shows, a pass applied for an outdated context).
@Suite("Re-entry and overlap")
struct ReentryAndOverlapTests {
    /// A node whose spec asks for the layout it is computing: the nested layout got a builder of its own, whose
    /// cycle check saw nothing, and recursed until the stack ran out (even 64 MB of it).
    @Test("A spec that asks for its own node's layout gets a cycle error; the outer layout completes")
    func selfAskingSpec() throws {
        final class SelfAsking: Node, @unchecked Sendable {
            let nested = Locked<String?>(nil)
            override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
                do {
                    _ = try layoutThatFits(range)
                    nested.withLock { $0 = "laid out" }
                } catch {
                    nested.withLock { $0 = error.description }
                }
                return WrapperSpec(Box(size: Size(10, 10)))
            }
        }
        let node = SelfAsking()
        node.identifier = "asker"
        let layout = try node.layoutThatFits(SizeRange(min: .zero, max: Size(100, 100)))
        #expect(layout.size == Size(10, 10))
        #expect(node.nested.withLock { $0 } == #"cycle: SelfAsking "asker" asks for its own layout while it is being laid out (SelfAsking "asker" > SelfAsking "asker")"#)
        // Not a lasting state: the node lays out again, and another thread's layout is not mistaken for one.
        #expect(try node.layoutThatFits(SizeRange(min: .zero, max: Size(50, 50))).size == Size(10, 10))
    }

    /// A subnode whose spec asks for its parent's layout while the parent lays it out, in a pass and alone.
    @Test("A spec that asks for an ancestor's layout gets a cycle error naming the chain")
    func ancestorAskingSpec() throws {
        final class ParentAsking: Node, @unchecked Sendable {
            weak var parentNode: Node?
            let nested = Locked<String?>(nil)
            override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
                do {
                    _ = try parentNode?.layoutThatFits(SizeRange(min: .zero, max: Size(100, 100)))
                    nested.withLock { $0 = "laid out" }
                } catch {
                    nested.withLock { $0 = error.description }
                }
                return WrapperSpec(Box(size: Size(10, 10)))
            }
        }
        let asker = ParentAsking()
        asker.identifier = "child"
        let parent = ComposedNode("parent") { _ in InsetSpec(insets: EdgeInsets(all: 5), child: asker) }
        asker.parentNode = parent
        let range = SizeRange(min: .zero, max: Size(100, 100))
        #expect(try parent.layoutThatFits(range).size == Size(20, 20))
        #expect(asker.nested.withLock { $0 } == #"cycle: ComposedNode "parent" asks for its own layout while it is being laid out (ComposedNode "parent" > ComposedNode "parent")"#)
        // In a pass: both laid out again (not yet applied, the child is no subnode whose invalidation would reach
        // the parent; with only the child invalidated, the parent's cached layout answers the child, rightly).
        asker.nested.withLock { $0 = nil }
        asker.setNeedsLayout()
        parent.setNeedsLayout()
        let pass = try LayoutPass.compute(root: parent, range: range)
        #expect(pass.rootSize == Size(20, 20))
        #expect(asker.nested.withLock { $0 }?.hasPrefix(#"cycle: ComposedNode "parent" asks for its own layout"#) == true)
        // Texture's pattern, a parent measuring a child in its spec, is not a cycle.
        let child = CountingLeaf("measured", size: Size(30, 20))
        let measuring = ComposedNode("measuring") { range in
            let height = (try? child.layoutThatFits(SizeRange(min: .zero, max: range.max)))?.size.height ?? -1
            return InsetSpec(insets: EdgeInsets(top: height, left: 0, bottom: 0, right: 0), child: child)
        }
        #expect(try measuring.layoutThatFits(range).size == Size(30, 40))
    }

    /// One apply queue inserting into a parent while another moves that parent's last subnode away: the move
    /// changed the parent unclaimed, between the insert's index check and its insert ("Array index is out of
    /// range"). Each node must end up listed by exactly one parent, which it names.
    @Test("Inserting into a parent while another apply queue moves its subnodes away keeps the hierarchy whole")
    func crossQueueMoves() throws {
        let q1 = ApplyQueue(label: "moves.q1")
        let q2 = ApplyQueue(label: "moves.q2")
        let p1 = Node(identifier: "p1")
        p1.context = LayoutContext(scale: 2, applyQueue: q1)
        let p2 = Node(identifier: "p2")
        p2.context = LayoutContext(scale: 2, applyQueue: q2)
        let count = 20_000
        let inserted = Locked(0)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            q1.sync {
                for i in 0..<count {
                    // (`subnodes.count` may be stale by the time the insert runs: then it is out of range.)
                    if (try? p1.insertSubnode(Node(identifier: "n\(i)"), at: p1.subnodes.count)) != nil {
                        inserted.withLock { $0 += 1 }
                    }
                }
            }
        }
        DispatchQueue.global().async(group: group) {
            q2.sync {
                for _ in 0..<count {
                    if let last = p1.subnodes.last { try? p2.addSubnode(last) }
                }
            }
        }
        group.wait()
        let (first, second) = (p1.subnodes, p2.subnodes)
        #expect(first.allSatisfy { $0.supernode === p1 })
        #expect(second.allSatisfy { $0.supernode === p2 })
        #expect(first.count + second.count == inserted.withLock { $0 })
        #expect(Set((first + second).map(ObjectIdentifier.init)).count == first.count + second.count)
    }

    /// Two animated transitions, the second back to the first's start (a -> b, then b -> a), completing in
    /// order: the first one's completion removed `a`, which the second had brought back.
    @Test("A transition's completion keeps the subnodes a later transition brought back")
    func overlappingTransitions() throws {
        let node = ManualTransitionNode(completesAtOnce: false)
        node.setConstrainedRangeQuietly(SizeRange(min: .zero, max: Size(100, 100)))
        try onApplyQueue { try node.layoutIfNeeded() }
        #expect(names(node.subnodes) == ["a"])
        node.show(b: true)
        node.transitionLayout(animated: true, measureAsync: false)
        try settle()
        node.show(b: false)
        node.transitionLayout(animated: true, measureAsync: false)
        try settle()
        let contexts = node.pending
        #expect(contexts.count == 2)
        onApplyQueue { for context in contexts { context.completeTransition(true) } }
        try settle()
        #expect(names(node.subnodes) == ["a"])
        #expect(node.a.supernode === node)
        #expect(node.b.supernode == nil)
    }

    /// The same through a plain pass during the first transition's animation.
    @Test("A transition's completion keeps the subnodes a pass applied meanwhile brought back")
    func passDuringTransition() throws {
        let node = ManualTransitionNode(completesAtOnce: false)
        node.setConstrainedRangeQuietly(SizeRange(min: .zero, max: Size(100, 100)))
        try onApplyQueue { try node.layoutIfNeeded() }
        node.show(b: true)
        node.transitionLayout(animated: true, measureAsync: false)
        try settle()
        node.show(b: false)
        node.setNeedsLayout()
        try settle()
        #expect(names(node.subnodes) == ["a"])
        let contexts = node.pending
        onApplyQueue { for context in contexts { context.completeTransition(true) } }
        try settle()
        #expect(names(node.subnodes) == ["a"])
        #expect(node.a.supernode === node)
    }

    /// A pass computed in one context (scale 2, its apply queue), the node moved to another (scale 3) before it
    /// was applied: the old pass applied, and the node's version said nothing was left to do.
    @Test("A pass computed before the node's context changed is not applied; layoutIfNeeded lays it out again")
    func contextChangedUnderAPass() throws {
        let q1 = ApplyQueue(label: "context.q1")
        let q2 = ApplyQueue(label: "context.q2")
        let leaf = CountingLeaf("leaf", size: Size(10.3, 10.3))
        let root = ComposedNode("root") { _ in StackSpec.vertical(children: [leaf]) }
        root.context = LayoutContext(scale: 2, applyQueue: q1)
        let range = SizeRange(min: .zero, max: Size(100, 100))
        root.setConstrainedRangeQuietly(range)
        let pass = try LayoutPass.compute(root: root, range: range)
        #expect(pass.rootSize == Size(10.5, 10.5))  // ceil(20.6) / 2
        root.context = LayoutContext(scale: 3, applyQueue: q2)
        _ = try q1.sync { try pass.apply() }
        #expect(root.appliedLayout == nil)
        #expect(root.subnodes.isEmpty)
        try q2.sync { try root.layoutIfNeeded() }
        #expect(root.appliedLayout?.size == Size(31.0 / 3, 31.0 / 3))  // ceil(30.9) / 3
        #expect(names(root.subnodes) == ["leaf"])
    }

    /// A context set on a node reached the node alone: the nodes below kept the old one (its scale, and the apply
    /// queue their hierarchy changes must run on), as did the subnodes of a subtree added under another context.
    @Test("A context set on a node, or taken by a subtree as it is added, reaches every node below")
    func contextReachesSubnodes() throws {
        let q1 = ApplyQueue(label: "subtree.q1")
        let q2 = ApplyQueue(label: "subtree.q2")
        let c1 = LayoutContext(scale: 2, applyQueue: q1)
        let c2 = LayoutContext(scale: 3, applyQueue: q2)
        let root = Node(identifier: "root")
        let child = Node(identifier: "child")
        let grandchild = CountingLeaf("grandchild", size: Size(10.3, 10.3))
        root.context = c1
        try q1.sync {
            try root.addSubnode(child)
            try child.addSubnode(grandchild)
        }
        let range = SizeRange(min: .zero, max: Size(100, 100))
        #expect(try grandchild.layoutThatFits(range).size == Size(10.5, 10.5))  // ceil(20.6) / 2
        root.context = c2
        #expect(child.context === c2)
        #expect(grandchild.context === c2)
        // At the new scale; its hierarchy changes run on the new queue, and are refused on the old one.
        #expect(try grandchild.layoutThatFits(range).size == Size(31.0 / 3, 31.0 / 3))  // ceil(30.9) / 3
        let offQueue = q1.sync { () -> String? in
            do { try grandchild.removeFromSupernode(); return nil } catch { return "\(error)" }
        }
        #expect(offQueue?.contains("apply queue") == true, "\(offQueue ?? "accepted")")
        #expect(grandchild.supernode === child)
        try q2.sync { try grandchild.removeFromSupernode() }
        #expect(child.subnodes.isEmpty)

        // A node and a subnode of its own, built under c1.
        func subtree(_ top: String, _ below: String) throws -> (Node, Node) {
            let node = Node(identifier: top)
            let subnode = Node(identifier: below)
            node.context = c1
            try q1.sync { try node.addSubnode(subnode) }
            return (node, subnode)
        }
        // A subtree built under one context takes the parent's when it is added, all of it.
        let (other, inner) = try subtree("other", "inner")
        #expect(inner.context === c1)
        try q2.sync { try root.addSubnode(other) }
        #expect(other.context === c2)
        #expect(inner.context === c2)
        try q2.sync { try inner.removeFromSupernode() }
        #expect(other.subnodes.isEmpty)

        // A node with subnodes of its own entering a managed parent's layout in a pass: all of it takes the
        // parent's context.
        let (entering, below) = try subtree("entering", "below")
        let managed = ComposedNode("managed") { _ in StackSpec.vertical(children: [entering]) }
        managed.context = c2
        managed.setConstrainedRangeQuietly(range)
        try q2.sync { try managed.layoutIfNeeded() }
        #expect(managed.subnodes.first === entering)
        #expect(entering.context === c2)
        #expect(below.context === c2)
        try q2.sync { try below.removeFromSupernode() }
        #expect(entering.subnodes.isEmpty)
    }
}
