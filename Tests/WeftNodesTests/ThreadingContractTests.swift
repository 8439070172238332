import Dispatch
import Foundation
import Synchronization
import Testing
import WeftLayout
@testable import WeftNodes
import WeftSync

/// A context of its own, so that a test's queues and counters are not shared with tests running beside it.
func isolatedContext(_ name: String, scale: Double = 2, layoutQueue: DispatchQueue = .global(qos: .userInitiated)) -> LayoutContext {
    LayoutContext(scale: scale, applyQueue: ApplyQueue(label: "test.\(name)"), layoutQueue: layoutQueue)
}

@Suite("The threading contract")
struct ThreadingContractTests {
    /// Eight threads each set their own style field 2,000 times (in place, or with updateStyle): every last
    /// write is there at the end. Each change used to read the whole style and write it back, losing the others'.
    /// Two more threads read the style meanwhile, from the published snapshot with no lock: each field only
    /// grows (every snapshot is a state some write left, published whole).
    @Test("Concurrent style changes of different fields all land")
    func concurrentSetters() {
        let node = Node()
        let regressions = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 10) { thread in
            if thread >= 8 {
                var last = LayoutStyle()
                for _ in 0..<4_000 {
                    let style = node.style
                    if style.flexGrow < last.flexGrow || style.flexShrink < last.flexShrink
                        || style.ascender < last.ascender || style.descender > last.descender {
                        regressions.add(1, ordering: .relaxed)
                    }
                    last = style
                }
                return
            }
            for i in 1...2_000 {
                let value = Double(i)
                switch thread {
                case 0: node.style.flexGrow = value
                case 1: node.style.flexShrink = value
                case 2: node.style.spacingBefore = value
                case 3: node.style.spacingAfter = value
                case 4: node.updateStyle { $0.ascender = value }
                case 5: node.updateStyle { $0.descender = -value }
                case 6: node.style.width = .points(value)
                default: node.updateStyle { $0.height = .points(value) }
                }
            }
        }
        let style = node.style
        #expect(style.flexGrow == 2_000 && style.flexShrink == 2_000)
        #expect(style.spacingBefore == 2_000 && style.spacingAfter == 2_000)
        #expect(style.ascender == 2_000 && style.descender == -2_000)
        #expect(style.width == .points(2_000) && style.height == .points(2_000))
        #expect(regressions.load(ordering: .relaxed) == 0)
    }

    /// The flag decides which subnodes a pass gives the node, so a pass computed before it changed is outdated:
    /// the change bumps the version (as setNeedsLayout does), and applying the old pass drops the node's part.
    @Test("Changing automaticallyManagesSubnodes outdates a pass computed before it")
    func managedFlagOutdatesPass() throws {
        let context = isolatedContext("managed flag")
        let leaf = CountingLeaf("leaf", size: Size(10, 10))
        let node = ComposedNode("node", managed: true) { _ in StackSpec.vertical(children: [leaf]) }
        node.context = context
        leaf.context = context
        let range = SizeRange(min: .zero, max: Size(100, 100))
        let old = try LayoutPass.compute(root: node, range: range)
        let version = node.layoutVersion
        node.automaticallyManagesSubnodes = true
        #expect(node.layoutVersion == version)
        node.automaticallyManagesSubnodes = false
        #expect(node.layoutVersion == version + 1)
        let stale = try context.applyQueue.sync { try old.apply() }
        #expect(stale.staleNodes == 2)
        #expect(node.subnodes.isEmpty)
        node.automaticallyManagesSubnodes = true
        let next = try LayoutPass.compute(root: node, range: range)
        _ = try context.applyQueue.sync { try next.apply() }
        #expect(names(node.subnodes) == ["leaf"])
    }

    /// Interface state belongs to the apply queue: elsewhere it is refused (it used to do nothing, silently).
    @Test("setInterfaceState off the apply queue throws and changes nothing")
    func interfaceStateOffQueue() throws {
        let context = isolatedContext("interface")
        let node = Node()
        node.context = context
        #expect(throws: HierarchyError.offApplyQueue(operation: "setInterfaceState", node: "Node")) {
            try node.setInterfaceState([.preload, .display])
        }
        #expect(node.interfaceState == [])
        try context.applyQueue.sync { try node.setInterfaceState([.preload]) }
        #expect(node.interfaceState == [.preload])
    }

    /// An animation that ends on a timer thread completes the transition: the completion hops onto the apply
    /// queue (it used to be ignored there, so the transition never finished).
    @Test("completeTransition from another thread completes the transition")
    func completeFromTimer() throws {
        let context = isolatedContext("transition")
        let node = ManualTransitionNode(completesAtOnce: false)
        node.context = context
        node.setConstrainedRangeQuietly(SizeRange(min: .zero, max: Size(100, 100)))
        try context.applyQueue.sync { try node.layoutIfNeeded() }
        node.show(b: true)
        let outcomes = Outcomes()
        node.transitionLayout(animated: true, measureAsync: false) { outcomes.record($0) }
        #expect(try context.applyQueue.settle(timeout: 10))
        let transition = try #require(node.pending.first)
        // A timer thread, not the apply queue.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { transition.completeTransition(true) }
        #expect(outcomes.done.wait(timeout: .now() + 10) == .success)
        #expect(outcomes.all == [.completed(didComplete: true)])
        #expect(try context.applyQueue.settle(timeout: 10))
        #expect(names(node.subnodes) == ["b"])
        // The removals of a transition belong to the apply queue too.
        #expect(throws: HierarchyError.offApplyQueue(operation: "finishTransitionRemovals", node: "ManualTransitionNode \"transitioning\"")) {
            try node.finishTransitionRemovals(transition)
        }
    }

    /// Calls to setNeedsLayout made before the scheduled pass starts share it: with the context's layout queue
    /// held, 50 calls from many threads make exactly one pass (one spec call), whose layout is the newest.
    @Test("setNeedsLayout calls before a pass starts share it")
    func coalescing() throws {
        let layoutQueue = DispatchQueue(label: "test.coalescing.layout")
        let context = isolatedContext("coalescing", layoutQueue: layoutQueue)
        let leaf = CountingLeaf("leaf", size: Size(10, 10))
        let root = ComposedNode("root") { _ in WrapperSpec(leaf) }
        root.context = context
        root.constrainedRange = SizeRange(min: .zero, max: Size(200, 200))
        #expect(try context.applyQueue.settle(timeout: 10))
        let before = root.specCalls
        #expect(before == 1)
        layoutQueue.suspend()
        DispatchQueue.concurrentPerform(iterations: 50) { i in
            leaf.size = Size(Double(10 + i % 7), 10)
            leaf.setNeedsLayout()
        }
        leaf.size = Size(77, 10)
        leaf.setNeedsLayout()
        layoutQueue.resume()
        #expect(try context.applyQueue.settle(timeout: 10))
        #expect(root.specCalls - before == 1, "51 calls while the pass waited to start: one pass")
        #expect(root.frame.size == Size(77, 10))
        #expect(leaf.frame == Rect(x: 0, y: 0, width: 77, height: 10))
    }

    /// Two trees in two contexts, laid out side by side on many threads: each at its own scale, applied on its
    /// own queue, counted in its own statistics.
    @Test("Two contexts with different scales and apply queues work side by side")
    func twoContexts() throws {
        let contexts = [isolatedContext("twoX", scale: 2), isolatedContext("threeX", scale: 3)]
        // 10.1 points: 10.5 at 2x (21 pixels, rounded up) and 10.333... at 3x (31 pixels).
        let roots = contexts.map { context -> ComposedNode in
            let leaf = CountingLeaf("leaf", size: Size(10.1, 10.1))
            let root = ComposedNode("root") { _ in WrapperSpec(leaf) }
            root.context = context
            return root
        }
        let bounds = SizeRange(min: .zero, max: Size(100, 100))
        for root in roots { _ = try root.layoutThatFits(bounds) }   // computes the root and its leaf
        DispatchQueue.concurrentPerform(iterations: 38) { i in
            _ = try? roots[i % 2].layoutThatFits(bounds)              // 19 cache hits per root
        }
        for (root, context) in zip(roots, contexts) {
            root.constrainedRange = SizeRange(min: .zero, max: Size(100, 100))
            #expect(try context.applyQueue.settle(timeout: 10))
        }
        #expect(roots[0].frame.size == Size(10.5, 10.5))
        #expect(abs(roots[1].frame.size.width - 31.0 / 3) < 1e-9)
        #expect(roots[0].subnodes[0].context === contexts[0], "an inserted subnode joins its parent's context")
        #expect(roots[1].subnodes[0].context === contexts[1])
        for context in contexts {
            // The first layout computes root and leaf; setting the range invalidates the root, so the pass
            // computes it again, while the leaf's layout is still cached. Nothing is counted in another context.
            let counts = context.statistics.snapshot
            #expect(counts.cacheMisses == 3, "root and leaf, then the root again in the pass")
            #expect(counts.cacheHits == 20, "19 layouts of the unchanged root, and the leaf in the pass")
            #expect(counts.appliedPasses == 1)
        }
        // Each queue is its own: one context's queue is not the other's, nor the default one.
        let onFirst = contexts[0].applyQueue.sync { (contexts[0].applyQueue.isCurrent, contexts[1].applyQueue.isCurrent) }
        #expect(onFirst == (true, false))
    }
    /// A leaf of a preferred width laid out again and again for one range: the repeats are answered from the
    /// published record (counted as hits, no measurement), and every change of an input that a layout depends on
    /// (the style, the context's scale, setNeedsLayout) is seen by the very next call.
    @Test("Repeated layouts for one range are hits that still see every change")
    func repeatedLayoutsSeeChanges() throws {
        let context = isolatedContext("repeat", scale: 2)
        let leaf = CountingLeaf("leaf", size: Size(1, 1))
        leaf.context = context
        leaf.style = LayoutStyle(preferredSize: Size(10.1, 4))
        let range = SizeRange(min: .zero, max: Size(100, 100))
        // 10.1 points at 2x: 21 pixels (rounded up), 10.5 points; at 1x: 11 points.
        for _ in 0..<5 { #expect(try leaf.layoutThatFits(range).size == Size(10.5, 4)) }
        #expect(context.statistics.snapshot.cacheHits == 4 && context.statistics.snapshot.cacheMisses == 1)
        leaf.style.width = .points(20)
        #expect(try leaf.layoutThatFits(range).size == Size(20, 4), "a style change is seen at once")
        leaf.updateStyle { $0.height = .points(6) }
        #expect(try leaf.layoutThatFits(range).size == Size(20, 6))
        leaf.style.width = .points(10.1)
        leaf.context = LayoutContext(scale: 1, applyQueue: context.applyQueue, statistics: context.statistics)
        #expect(try leaf.layoutThatFits(range).size == Size(11, 6), "a new scale is seen at once")
        // Sized by its content: a new content size counts only after setNeedsLayout (Texture's rule).
        leaf.style = LayoutStyle()
        #expect(try leaf.layoutThatFits(range).size == Size(1, 1))
        leaf.size = Size(7, 3)
        #expect(try leaf.layoutThatFits(range).size == Size(1, 1))
        leaf.setNeedsLayout()
        #expect(try leaf.layoutThatFits(range).size == Size(7, 3))
        #expect(try leaf.layoutThatFits(SizeRange(min: .zero, max: Size(5, 5))).size == Size(5, 3), "another range")
        #expect(try leaf.layoutThatFits(range).size == Size(7, 3))
        #expect(leaf.measurements == 7, "measured once per new input or range, never for a repeat")
    }

    /// One thread changes a node's width and lays it out after each change, while three threads lay the same
    /// node out as fast as they can, replacing and reading its published layout all the time. The writer always
    /// sees its own last change, and readers only ever see a width that was set.
    @Test("Lock-free repeated layouts racing style changes see only real states")
    func repeatedLayoutsRacingChanges() throws {
        let node = CountingLeaf("raced", size: .zero)
        node.style.height = .points(1)
        node.style.width = .points(1)
        let range = SizeRange(min: .zero, max: Size(10_000, 10_000))
        let done = Atomic<Bool>(false)
        let bad = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            if thread == 0 {
                defer { done.store(true, ordering: .releasing) }
                for width in 1...2_000 {
                    node.style.width = .points(Double(width))
                    for _ in 0..<3 where (try? node.layoutThatFits(range).size.width) != Double(width) {
                        bad.add(1, ordering: .relaxed)
                    }
                }
            } else {
                while !done.load(ordering: .acquiring) {
                    let width = (try? node.layoutThatFits(range).size.width) ?? -1
                    if !(1...2_000).contains(width) || width != width.rounded() { bad.add(1, ordering: .relaxed) }
                }
            }
        }
        #expect(bad.load(ordering: .relaxed) == 0)
        #expect(try node.layoutThatFits(range).size == Size(2_000, 1))
    }
    /// Readers borrow the published object while a writer replaces it 20,000 times: no reader ever sees a
    /// freed or half-made object (under the address or thread sanitizer, a release before the readers are out
    /// is reported as a use after free or a race).
    @Test("A published object is never freed while a reader borrows it")
    func publishedReferenceReclamation() {
        let reference = PublishedReference<CheckedBox>()
        let done = Atomic<Bool>(false)
        let bad = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            if thread == 0 {
                for value in 0..<20_000 { reference.publish(CheckedBox(value)) }
                done.store(true, ordering: .releasing)
            } else {
                while !done.load(ordering: .acquiring) {
                    reference.withCurrent { box in
                        guard let box else { return }
                        if box.check != ~box.value { bad.add(1, ordering: .relaxed) }
                    }
                }
            }
        }
        #expect(bad.load(ordering: .relaxed) == 0)
        #expect(reference.withCurrent { $0?.value } == 19_999)
        reference.publish(nil)
        #expect(reference.withCurrent { $0 == nil })
    }
}

extension ThreadingContractTests {
    /// A writer that replaces an object a reader is still borrowing waits until the reader is out: here the reader
    /// holds its borrow for 100 ms on purpose (real readers hold it for a few loads) and the writer must not have
    /// returned meanwhile, nor the object have changed under the reader.
    @Test("A writer waits for the readers inside before it releases what they borrow")
    func publishWaitsForReaders() {
        let holder = ReferenceHolder()
        holder.reference.publish(CheckedBox(1))
        let published = Atomic<Bool>(false)
        let inside = DispatchSemaphore(value: 0)
        let writerDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            inside.wait()
            holder.reference.publish(CheckedBox(2))
            published.store(true, ordering: .releasing)
            writerDone.signal()
        }
        let (intact, returnedEarly) = holder.reference.withCurrent { box -> (Bool, Bool) in
            inside.signal()
            usleep(100_000)
            return (box.map { $0.value == 1 && $0.check == ~1 } ?? false, published.load(ordering: .acquiring))
        }
        writerDone.wait()
        #expect(intact)
        #expect(!returnedEarly, "the writer returned (and released the old object) while a reader held it")
        #expect(holder.reference.withCurrent { $0?.value } == 2)
    }
}

final class ReferenceHolder: Sendable {
    let reference = PublishedReference<CheckedBox>()
}

/// An immutable value with a check word, to tell a live object from freed or reused memory.
final class CheckedBox: Sendable {
    let value: Int
    let check: Int

    init(_ value: Int) {
        self.value = value
        check = ~value
    }
}

extension ThreadingContractTests {
    /// A value with a reference in it and a check of its number, as a node's snapshot holds its context.
    struct CheckedSlotValue {
        let box: CheckedBox
        let value: Int
        let check: Int
    }

    /// Readers read the current slot while two writers (serialized by a lock, as a node's lock serializes its
    /// setters) write 10,000 values each: a reader never sees a half-written value or a released reference (the
    /// thread sanitizer reports a write into a slot a reader is in as a race), and the last value written is
    /// the current one.
    @Test("A value published in a slot pair is never written while a reader is in its slot")
    func slotPairReaders() {
        let holder = SlotPairHolder()
        let bad = Atomic<Int>(0)
        let reads = Atomic<Int>(0)
        // Writers and readers alternate (even, odd), so that the first two threads running are one of each.
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            if thread % 2 == 0 {
                for _ in 0..<10_000 {
                    holder.slots.withLock { slots in
                        slots.count += 1
                        let value = CheckedSlotValue(box: CheckedBox(slots.count), value: slots.count, check: ~slots.count)
                        let next = holder.pair.slotToWrite
                        if next == 0 { slots.values.0 = value } else { slots.values.1 = value }
                        holder.pair.publish(next)
                    }
                }
            } else {
                for _ in 0..<20_000 {
                    holder.read { value in
                        if value.check != ~value.value || value.box.value != value.value || value.box.check != ~value.value {
                            bad.add(1, ordering: .relaxed)
                        }
                        reads.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        #expect(bad.load(ordering: .relaxed) == 0)
        #expect(reads.load(ordering: .relaxed) == 40_000)
        #expect(holder.read { $0.value } == 20_000)
    }
}

/// Two slots and a count behind a lock (the writers' side), read through a slot pair with no lock, as a node's
/// state holds its input snapshots.
final class SlotPairHolder: Sendable {
    struct Slots {
        var count = 0
        var values = (ThreadingContractTests.CheckedSlotValue(box: CheckedBox(0), value: 0, check: ~0), ThreadingContractTests.CheckedSlotValue(box: CheckedBox(0), value: 0, check: ~0))
    }

    let slots = Locked(Slots())
    let pair = SlotPair()

    func read<T>(_ body: (ThreadingContractTests.CheckedSlotValue) -> T) -> T {
        let state = slots.valueAddress()
        return pair.read { slot in body(slot == 0 ? state.pointee.values.0 : state.pointee.values.1) }
    }
}
