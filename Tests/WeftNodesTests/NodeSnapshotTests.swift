import Dispatch
import Foundation
import Synchronization
import Testing
import WeftLayout
@testable import WeftNodes
@testable import WeftSync
import WeftSync

/// A node's layout inputs are published snapshots (two slots in its state, alternated by a `SlotPair`). These
/// pin what an independent review found when it tried to break them: replaced inputs are let go at once, a
/// lookup never pairs an old style with a new version, and applying a pass reads nodes safely when two apply
/// queues touch one node. A node's placement in the hierarchy (subnodes, supernode, applied size) is published the
/// same way, for apply and the hierarchy getters to read with no lock.
@Suite("Node input snapshots")
struct NodeSnapshotTests {
    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    final class Watched: Sendable {
        let flag: Flag
        init(_ flag: Flag) { self.flag = flag }
        deinit { flag.value.store(true, ordering: .relaxed) }
    }

    /// Clearing a spec block is how a block that captured its own node lets it go: the old block (and what it
    /// captured) goes at once, not when a later change reuses the snapshot slot that held it.
    @Test("A replaced spec block, and what it captured, is released at once")
    func replacedBlockReleased() {
        let flag = Flag()
        let node = Node()
        do {
            let watched = Watched(flag)
            node.layoutSpecBlock = { _, _, _ in _ = watched; return nil }
        }
        #expect(flag.value.load(ordering: .relaxed) == false)
        node.layoutSpecBlock = nil
        #expect(flag.value.load(ordering: .relaxed) == true)

        weak var weakNode: Node?
        do {
            let cyclic = Node()
            weakNode = cyclic
            cyclic.layoutSpecBlock = { [cyclic] _, _, _ in _ = cyclic; return nil }
            cyclic.layoutSpecBlock = nil
        }
        #expect(weakNode == nil)
    }

    @Test("A replaced context is released at once")
    func replacedContextReleased() {
        let node = Node()
        weak var weakContext: LayoutContext?
        do {
            let context = LayoutContext(scale: 3, applyQueue: ApplyQueue(label: "test.snapshot.context"))
            weakContext = context
            node.context = context
            #expect(node.context.scale == 3)
            node.context = .default
        }
        #expect(weakContext == nil)
        #expect(node.context === LayoutContext.default)
    }

    /// A layout reads the version, then the snapshot. A writer that changes the style and then invalidates
    /// between the two reads leaves the reader with the old version: its entry (from the old style) is never
    /// used, and the next layout sees the new style (here invalid, so it fails). Read in the other order, the
    /// old style's entry was stored under the new version and answered every later lookup, hiding the error.
    @Test("A layout racing a style change and an invalidation never stores the old style under the new version")
    func versionBeforeInputs() throws {
        let node = Node()
        node.context = LayoutContext(scale: 2, applyQueue: ApplyQueue(label: "test.snapshot.version"))
        let range = SizeRange(min: .zero, max: Size(100, 100))
        // The reader's steps, as layoutThatFits takes them, with the writer in between.
        let version = node.currentVersion.load(ordering: .acquiring)
        let (context, narrowed, problem) = node.readInputs { inputs in
            (inputs.pointee.context, inputs.pointee.style.narrowed(range, parentSize: range.max), inputs.pointee.styleProblem)
        }
        node.style.flexGrow = -1
        node.invalidateLayout()
        switch node.lookup(narrowed, problem: problem, scale: context.scale, version: version) {
        case .hit:
            Issue.record("nothing was stored: a hit is impossible")
        case .miss(let inputs):
            #expect(inputs.version == version && version < node.layoutVersion)
            _ = try node.computeRootEntry(range, context: context, inputs: inputs)
        }
        #expect(throws: LayoutError.self) { _ = try node.layoutThatFits(range) }
    }

    /// n manages its subnodes and is laid out as a root in context 2 (its passes applied on queue 2) and as a
    /// child of r in context 1 (r's pass, applied on queue 1, reads n's subnodes). Both queues apply at once:
    /// every read of n's hierarchy state is of its published placement or under its lock (the thread sanitizer
    /// reported a plain unlocked read that assumed one apply queue per node), and every apply either lands or is
    /// refused with an error.
    @Test("Passes applied on two apply queues that share a node read it safely")
    func twoApplyQueuesShareANode() throws {
        let first = LayoutContext(scale: 2, applyQueue: ApplyQueue(label: "test.snapshot.q1"))
        let second = LayoutContext(scale: 2, applyQueue: ApplyQueue(label: "test.snapshot.q2"))
        let a = CountingLeaf("a", size: Size(10, 10))
        let b = CountingLeaf("b", size: Size(10, 10))
        let n = ComposedNode("n", managed: true) { range in StackSpec.vertical(children: [range.max.width > 50 ? a : b]) }
        for node in [a, b, n] as [Node] { node.context = second }
        let r = ComposedNode("r", managed: false) { _ in StackSpec.vertical(children: [n]) }
        r.context = first
        try Self.addByHand(n, to: r, keeping: second)
        let wide = try LayoutPass.compute(root: n, range: SizeRange(min: .zero, max: Size(100, 100)))
        let narrow = try LayoutPass.compute(root: n, range: SizeRange(min: .zero, max: Size(40, 100)))
        let outer = try LayoutPass.compute(root: r, range: SizeRange(min: .zero, max: Size(100, 100)))
        let outcomes = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for i in 0..<2_000 {
                if thread == 0 {
                    first.applyQueue.sync { _ = try? outer.apply() }
                } else {
                    second.applyQueue.sync { _ = try? (i % 2 == 0 ? narrow : wide).apply() }
                }
                outcomes.add(1, ordering: .relaxed)
            }
        }
        #expect(outcomes.load(ordering: .relaxed) == 4_000)
        #expect(n.subnodes.count == 1)
    }

    /// The `subnodes` getter reads a node's published placement with no lock while the apply queue changes it:
    /// every reading is one whole placement (the subnodes some change left), and a child found among them names
    /// the parent as its supernode (``Node/insertSubnode(_:at:)`` sets the supernode first).
    @Test("Hierarchy readers on other threads see whole placements while the apply queue changes them")
    func placementReaders() {
        let context = LayoutContext(applyQueue: ApplyQueue(label: "test.snapshot.placements"))
        let parent = Node()
        parent.context = context
        let children = (0..<4).map { _ in Node() }
        let done = Atomic<Bool>(false)
        let badReadings = Atomic<Int>(0)
        let readings = Atomic<Int>(0)
        let rounds = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 3) { thread in
            if thread == 0 {
                for round in 0..<1_500 {
                    context.applyQueue.sync {
                        let child = children[round % children.count]
                        if child.supernode === parent { try? child.removeFromSupernode() } else { try? parent.addSubnode(child) }
                    }
                    rounds.add(1, ordering: .releasing)
                }
                done.store(true, ordering: .releasing)
            } else {
                // Until the changes are done, and at least 200 times (a busy machine may run this after them).
                var own = 0
                while !done.load(ordering: .acquiring) || own < 200 {
                    own += 1
                    let subnodes = parent.subnodes
                    // Subnodes are distinct children of this parent, and at most all four.
                    let distinct = Set(subnodes.map(ObjectIdentifier.init)).count == subnodes.count
                    let known = subnodes.allSatisfy { node in children.contains { $0 === node } }
                    if !distinct || !known || subnodes.count > children.count { badReadings.add(1, ordering: .relaxed) }
                    // A child among the subnodes before and after its supernode is read names the parent, unless it
                    // left and came back in between (two of its toggles: at least 5 rounds; each takes 1 in 4).
                    let start = rounds.load(ordering: .acquiring)
                    if let newest = parent.subnodes.last {
                        let named = newest.supernode === parent
                        let stillThere = parent.subnodes.contains { $0 === newest }
                        if !named && stillThere && rounds.load(ordering: .acquiring) - start < 4 {
                            badReadings.add(1, ordering: .relaxed)
                        }
                    }
                    readings.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(badReadings.load(ordering: .relaxed) == 0)
        #expect(readings.load(ordering: .relaxed) > 0)
        // 1,500 toggles of four children in turn: 375 each, an odd count, so each is in (odd) and last added in order.
        #expect(parent.subnodes.map(ObjectIdentifier.init) == children.map(ObjectIdentifier.init))
        #expect(children.allSatisfy { $0.supernode === parent })
    }

    /// A parent that goes away leaves its subnodes with no supernode, and they can join another parent.
    @Test("A supernode that goes away leaves its subnodes with none, and they can join another")
    func droppedSupernode() throws {
        let context = LayoutContext(applyQueue: ApplyQueue(label: "test.snapshot.dropped"))
        let children = (0..<3).map { _ in Node() }
        for child in children { child.context = context }
        weak var gone: Node?
        do {
            let parent = Node()
            parent.context = context
            gone = parent
            try context.applyQueue.sync { for child in children { try parent.addSubnode(child) } }
            #expect(children.allSatisfy { $0.supernode === parent })
            try context.applyQueue.sync { try children[1].removeFromSupernode() }
        }
        #expect(gone == nil, "nothing else holds the parent")
        #expect(children.allSatisfy { $0.supernode == nil })
        let other = Node()
        other.context = context
        try context.applyQueue.sync { try other.addSubnode(children[0]) }
        #expect(children[0].supernode === other)
    }

    /// A parent's last reference released while one of its subnodes' locks is held (a spec block of the child
    /// that captured the parent, replaced): the parent's deinit takes no lock and waits for nothing (its
    /// subnodes' back reference keeps only its memory), so this completes, and the child is left with no
    /// supernode.
    @Test("A parent released under its subnode's lock goes away without waiting for that lock")
    func parentReleasedUnderChildLock() throws {
        let context = LayoutContext(applyQueue: ApplyQueue(label: "test.snapshot.underlock"))
        let child = Node()
        child.context = context
        weak var gone: Node?
        do {
            let parent = Node()
            parent.context = context
            gone = parent
            try context.applyQueue.sync { try parent.addSubnode(child) }
            child.layoutSpecBlock = { _, _, _ in
                _ = parent
                return nil
            }
        }
        #expect(gone != nil, "the child's spec block holds the parent")
        #expect(child.supernode === gone)
        // The old block, and with it the parent's last reference, is released inside the child's section.
        child.layoutSpecBlock = nil
        #expect(gone == nil)
        #expect(child.supernode == nil)
    }

    /// Readers of a node's supernode on other threads while its parents come and go (each released on the apply
    /// queue's thread as soon as the child has moved to the next one): a read finds a live parent or nil, never
    /// one being torn down (the thread and address sanitizers watch this one).
    @Test("Reading a supernode while it is released finds it whole or nil")
    func supernodeReleasedWhileRead() throws {
        let context = LayoutContext(applyQueue: ApplyQueue(label: "test.snapshot.released"))
        let child = Node()
        child.context = context
        let rounds = 2_000
        let done = Atomic<Bool>(false)
        let found = Atomic<Int>(0)
        let added = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 3) { thread in
            if thread == 0 {
                for round in 0..<rounds {
                    context.applyQueue.sync {
                        let parent = Node()
                        parent.context = context
                        parent.identifier = "parent \(round)"
                        if (try? parent.addSubnode(child)) != nil { added.add(1, ordering: .relaxed) }
                    }
                }
                done.store(true, ordering: .releasing)
            } else {
                while !done.load(ordering: .acquiring) {
                    if let parent = child.supernode, parent.identifier?.hasPrefix("parent ") == true {
                        found.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        #expect(added.load(ordering: .relaxed) == rounds, "each parent took the child")
        #expect(child.supernode == nil, "the last parent went away with its round")
        _ = found.load(ordering: .relaxed)
    }

    /// A node that joins its parent in an apply and changes between apply's reading of it and its write: its
    /// setNeedsLayout found no supernode, so its change never reached the root; apply, which rechecks an
    /// entering node's version under its lock, asks for another pass. Made deterministic by parking a reader in
    /// the root's placement: apply's write of the root (after its reading and checks, before the leaf's write)
    /// then waits for it.
    @Test("A node changed between apply's reading and its entry into its parent gets another pass")
    func enteringNodeChanged() throws {
        let context = LayoutContext(applyQueue: ApplyQueue(label: "test.snapshot.entering"))
        let leaf = CountingLeaf("n", size: Size(10, 10))
        let root = ComposedNode("r", managed: true) { _ in StackSpec.vertical(children: [leaf]) }
        root.context = context
        leaf.context = context
        let pass = try LayoutPass.compute(root: root, range: SizeRange(min: .zero, max: Size(100, 100)))
        let (gate, parked) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        Thread.detachNewThread {
            root.readPlacement { _ in
                parked.signal()
                gate.wait()
            }
        }
        parked.wait()
        let slot = root.placementSlots.current.load(ordering: .sequentiallyConsistent)
        let result = Locked<LayoutPass.Result?>(nil)
        let done = DispatchSemaphore(value: 0)
        context.applyQueue.enqueue {
            result.withLock { $0 = try? pass.apply() }
            done.signal()
        }
        // Apply is past its reading and checks once it switched the root's slot (it waits there for the reader).
        #expect(waitUntil(timeout: 5) { root.placementSlots.current.load(ordering: .sequentiallyConsistent) != slot })
        leaf.size = Size(30, 30)
        leaf.setNeedsLayout()
        #expect(leaf.supernode == nil)
        gate.signal()
        done.wait()
        let applied = result.withLock { $0 }
        #expect(applied?.needsAnotherPass == true)
        #expect(applied?.outdated.contains { $0 === leaf } == true)
        #expect(leaf.supernode === root)
    }

    /// Two trees on two apply queues that both lay out one node: the apply that comes while the other is
    /// between its reading and its writes waits for it, and here, where the first stays stalled longer than a
    /// change waits, is refused (it used to pass its checks, and both parents listed the node). A reader parked
    /// in the first root's placement stalls the first apply at its write of that root, after it claimed the
    /// node. With `secondHasSubnodes`, the second root already holds another subnode.
    @Test("Of two apply queues placing one node at once, one is refused", arguments: [false, true])
    func twoQueuesPlaceOneNode(secondHasSubnodes: Bool) throws {
        let leaf = CountingLeaf("n", size: Size(10, 10))
        let (first, second) = (LayoutContext(applyQueue: ApplyQueue(label: "test.snapshot.one")),
                               LayoutContext(applyQueue: ApplyQueue(label: "test.snapshot.two")))
        let r1 = ComposedNode("r1", managed: true) { _ in StackSpec.vertical(children: [leaf]) }
        let r2 = ComposedNode("r2", managed: true) { _ in StackSpec.vertical(children: [leaf]) }
        let manual = Node(identifier: "p")
        r1.context = first
        r2.context = second
        manual.context = second
        let range = SizeRange(min: .zero, max: Size(100, 100))
        let other = CountingLeaf("m", size: Size(5, 5))
        if secondHasSubnodes {
            r2.setBuild { _ in StackSpec.vertical(children: [other]) }
            _ = try second.applyQueue.sync { () throws(HierarchyError) in try LayoutPass.compute(root: r2, range: range).apply() }
            #expect(r2.subnodes.count == 1)
            r2.setBuild { _ in StackSpec.vertical(children: [other, leaf]) }
            r2.setNeedsLayout()
        }
        let (pass1, pass2) = (try LayoutPass.compute(root: r1, range: range), try LayoutPass.compute(root: r2, range: range))
        let (gate, parked) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        Thread.detachNewThread {
            r1.readPlacement { _ in
                parked.signal()
                gate.wait()
            }
        }
        parked.wait()
        let slot = r1.placementSlots.current.load(ordering: .sequentiallyConsistent)
        let done = DispatchSemaphore(value: 0)
        let firstError = Locked<String?>("not run")
        first.applyQueue.enqueue {
            do {
                try pass1.apply()
                firstError.withLock { $0 = nil }
            } catch {
                firstError.withLock { $0 = "\(error)" }
            }
            done.signal()
        }
        #expect(waitUntil(timeout: 5) { r1.placementSlots.current.load(ordering: .sequentiallyConsistent) != slot })
        // The first apply holds the node: the second tree's apply, and an insertSubnode, are refused.
        let refusals = second.applyQueue.sync { () -> [HierarchyError?] in
            var errors: [HierarchyError?] = []
            do throws(HierarchyError) { try pass2.apply(); errors.append(nil) } catch { errors.append(error) }
            do throws(HierarchyError) { try manual.addSubnode(leaf); errors.append(nil) } catch { errors.append(error) }
            return errors
        }
        #expect(refusals == [
            .nodeInTwoPlaces(node: leaf.displayName, first: Node.placedElsewhere,
                             second: "the layout of \(r2.displayName) at layoutSpec.children[\(secondHasSubnodes ? 1 : 0)]"),
            .nodeInTwoPlaces(node: leaf.displayName, first: Node.placedElsewhere, second: "the subnodes of \(manual.displayName)"),
        ])
        #expect(r2.subnodes.count == (secondHasSubnodes ? 1 : 0) && manual.subnodes.isEmpty)
        gate.signal()
        done.wait()
        #expect(firstError.withLock { $0 } == nil)
        #expect(leaf.supernode === r1)
        #expect(r1.subnodes.map(ObjectIdentifier.init) == [ObjectIdentifier(leaf)])
        // Once the first apply is done, the second is refused by its check of the node's supernode.
        let later = second.applyQueue.sync { () -> HierarchyError? in
            do throws(HierarchyError) { try pass2.apply(); return nil } catch { return error }
        }
        #expect(later == .nodeInTwoPlaces(node: leaf.displayName, first: "a subnode of \(r1.displayName)",
                                          second: "the layout of \(r2.displayName) at layoutSpec.children[\(secondHasSubnodes ? 1 : 0)]"))
        #expect(r2.subnodes.count == (secondHasSubnodes ? 1 : 0) && leaf.supernode === r1)
        #expect(leaf.placing.load(ordering: .relaxed) == 0)
    }

    /// Applies `pass` on `queue` with a reader parked in `node`'s placement, and returns once apply switched that
    /// slot: it then waits there for the reader, holding its claims, before the rest of its writes. `release`
    /// lets it go and waits for it; its result is nil, or the error's description.
    /// Adds `child` to `parent`, which does not manage its subnodes (a node's layout places only its subnodes), by
    /// hand on the parent's apply queue, then gives the child `context` again (a subnode takes its supernode's):
    /// the parent's passes then write the child's frame on one queue while the child's own run on another.
    static func addByHand(_ child: Node, to parent: Node, keeping context: LayoutContext) throws {
        try parent.context.applyQueue.sync { try parent.addSubnode(child) }
        child.context = context
    }

    static func parkedApply(_ pass: LayoutPass, at node: Node, on queue: ApplyQueue) -> (release: () -> String?, slotSwitched: Bool) {
        let (gate, parked, done) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        Thread.detachNewThread {
            node.readPlacement { _ in
                parked.signal()
                gate.wait()
            }
        }
        parked.wait()
        let slot = node.placementSlots.current.load(ordering: .sequentiallyConsistent)
        let outcome = Locked<String?>("not run")
        queue.enqueue {
            let value: String?
            do throws(HierarchyError) { try pass.apply(); value = nil } catch { value = "\(error)" }
            outcome.withLock { $0 = value }
            done.signal()
        }
        let switched = waitUntil(timeout: 5) { node.placementSlots.current.load(ordering: .sequentiallyConsistent) != slot }
        return ({ gate.signal(); done.wait(); return outcome.withLock { $0 } }, switched)
    }

    /// A pass on another apply queue that needs a node a parked pass holds waits for it (the node is marked:
    /// 2), and once the first is done, works from what the first wrote. Here both put `a` into the shared `n`
    /// (a root on the second queue, a child of `r` on the first): both land, and `a` is in `n` once.
    @Test("A change waiting for another apply queue's claim works from what that one wrote")
    func waitingChangeSeesTheFirst() throws {
        let (first, second) = (LayoutContext(applyQueue: ApplyQueue(label: "test.snapshot.wait1")),
                               LayoutContext(applyQueue: ApplyQueue(label: "test.snapshot.wait2")))
        let a = CountingLeaf("a", size: Size(10, 10))
        let n = ComposedNode("n", managed: true) { _ in StackSpec.vertical(children: [a]) }
        let r = ComposedNode("r", managed: false) { _ in StackSpec.vertical(children: [n]) }
        a.context = second
        n.context = second
        r.context = first
        try Self.addByHand(n, to: r, keeping: second)
        let range = SizeRange(min: .zero, max: Size(100, 100))
        let (outer, inner) = (try LayoutPass.compute(root: r, range: range), try LayoutPass.compute(root: n, range: range))
        let (release, switched) = Self.parkedApply(outer, at: r, on: first.applyQueue)
        #expect(switched)
        let innerResult = Locked<String?>("not run")
        let innerDone = DispatchSemaphore(value: 0)
        second.applyQueue.enqueue {
            let value: String?
            do throws(HierarchyError) { try inner.apply(); value = nil } catch { value = "\(error)" }
            innerResult.withLock { $0 = value }
            innerDone.signal()
        }
        #expect(waitUntil(timeout: 5) { n.placing.load(ordering: .sequentiallyConsistent) == 2 })
        #expect(release() == nil)
        innerDone.wait()
        #expect(innerResult.withLock { $0 } == nil)
        #expect(a.supernode === n && n.subnodes.map(ObjectIdentifier.init) == [ObjectIdentifier(a)])
        #expect([a, n, r].allSatisfy { $0.placing.load(ordering: .relaxed) == 0 })
    }

    /// The review's case: a pass on the first queue read `p` holding `x` and is parked before its write of `p`;
    /// the second queue drops `x` from `p` (for `y`) and puts it into `q`. Before every applied node was claimed,
    /// the first pass then wrote `p`'s subnodes from its old reading: `p` and `q` both listed `x`. Now the second
    /// queue waits, and works from what the first wrote: each node is listed by its supernode, and only there.
    @Test("A pass never writes a node's placement from a reading another apply queue changed since")
    func staleReadingNeverWritten() throws {
        let (first, second) = (LayoutContext(applyQueue: ApplyQueue(label: "test.snapshot.stale1")),
                               LayoutContext(applyQueue: ApplyQueue(label: "test.snapshot.stale2")))
        let (x, y) = (CountingLeaf("x", size: Size(10, 10)), CountingLeaf("y", size: Size(10, 10)))
        let p = ComposedNode("p", managed: true) { range in StackSpec.vertical(children: [range.max.width > 50 ? x : y]) }
        let q = ComposedNode("q", managed: true) { _ in StackSpec.vertical(children: [x]) }
        let r = ComposedNode("r", managed: false) { _ in StackSpec.vertical(children: [p]) }
        for node in [x, y, p, q] as [Node] { node.context = second }
        r.context = first
        try Self.addByHand(p, to: r, keeping: second)
        let (wide, narrow) = (SizeRange(min: .zero, max: Size(100, 100)), SizeRange(min: .zero, max: Size(40, 100)))
        _ = try second.applyQueue.sync { () throws(HierarchyError) in try LayoutPass.compute(root: p, range: wide).apply() }
        #expect(x.supernode === p)
        let keep = try LayoutPass.compute(root: r, range: wide)
        let (drop, move) = (try LayoutPass.compute(root: p, range: narrow), try LayoutPass.compute(root: q, range: wide))
        let (release, switched) = Self.parkedApply(keep, at: r, on: first.applyQueue)
        #expect(switched)
        let results = Locked<[String?]>([])
        let secondDone = DispatchSemaphore(value: 0)
        second.applyQueue.enqueue {
            for pass in [drop, move] {
                let value: String?
                do throws(HierarchyError) { try pass.apply(); value = nil } catch { value = "\(error)" }
                results.withLock { $0.append(value) }
            }
            secondDone.signal()
        }
        #expect(waitUntil(timeout: 5) { p.placing.load(ordering: .sequentiallyConsistent) == 2 })
        #expect(release() == nil)
        secondDone.wait()
        #expect(results.withLock { $0 } == [nil, nil])
        #expect(names(p.subnodes) == ["y"] && names(q.subnodes) == ["x"])
        #expect(x.supernode === q && y.supernode === p)
    }

    /// A style holding a NaN (bad input, reported when the node is laid out) is not equal to itself: updateStyle,
    /// which stores its change only over the style it was computed from, compares a count of style changes, not
    /// styles (it used to loop forever).
    @Test("updateStyle returns on a style that holds a NaN")
    func updateStyleWithNaN() {
        let node = Node()
        node.style.width = .points(.nan)
        node.updateStyle { $0.flexGrow = 1 }
        #expect(node.style.flexGrow == 1)
        #expect(throws: LayoutError.self) { _ = try node.layoutThatFits(SizeRange(min: .zero, max: Size(10, 10))) }
    }
}
