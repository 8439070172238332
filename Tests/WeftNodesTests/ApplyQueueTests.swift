import Dispatch
import Foundation
import Testing
import WeftLayout
@testable import WeftNodes
import WeftSync

@Suite("The apply queue")
struct ApplyQueueTests {
    /// Blocks `queue` with a batch that runs until the returned semaphore is signalled; returns once it runs.
    func block(_ queue: ApplyQueue) -> DispatchSemaphore {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        queue.enqueue {
            started.signal()
            gate.wait()
        }
        started.wait()
        return gate
    }

    @Test("Without a budget, everything queued before a turn runs in that turn, in order")
    func batching() throws {
        let queue = ApplyQueue(label: "test.batching")
        queue.turnBudget = .infinity
        let log = Locked<[Int]>([])
        // Block the queue with a first batch, queue five more while it runs, then release it.
        let gate = block(queue)
        let before = queue.statistics.turns
        for i in 0..<5 { queue.enqueue { log.withLock { $0.append(i) } } }
        #expect(queue.pendingBatches == 5)
        gate.signal()
        #expect(try queue.settle(timeout: 10))
        #expect(log.withLock { $0 } == [0, 1, 2, 3, 4])
        let stats = queue.statistics
        #expect(stats.turns - before == 2, "the blocked turn (still running when read), then one turn for all five")
        #expect(stats.batches == 6)
        #expect(stats.longest >= stats.median)
        #expect(queue.pendingBatches == 0)
    }

    @Test("A turn stops at its budget between batches; the rest go first in the next turn")
    func budget() throws {
        let queue = ApplyQueue(label: "test.budget")
        #expect(queue.turnBudget == 0.004)
        queue.turnBudget = 0  // one batch per turn
        let log = Locked<[Int]>([])
        let turnOf = Locked<[Int: Int]>([:])
        let gate = block(queue)
        let before = queue.statistics.turns
        for i in 0..<5 {
            queue.enqueue {
                log.withLock { $0.append(i) }
                turnOf.withLock { $0[i] = queue.statistics.turns }
                // Queued during a turn: after the batches left over from before it.
                if i == 1 { queue.enqueue { log.withLock { $0.append(99) } } }
            }
        }
        gate.signal()
        #expect(try queue.settle(timeout: 10))
        #expect(log.withLock { $0 } == [0, 1, 2, 3, 4, 99])
        #expect(queue.statistics.turns - before == 7, "the blocked turn, one per batch, then the one queued during a turn")
        #expect(Set(turnOf.withLock { $0.values }).count == 5, "each batch in a turn of its own")
        queue.turnBudget = -1
        #expect(queue.turnBudget == 0)
        queue.turnBudget = .nan
        #expect(queue.turnBudget == 0)
    }

    @Test("isCurrent tells whether the caller runs on the queue; settle refuses to run there")
    func current() throws {
        let queue = ApplyQueue(label: "test.current")
        #expect(!queue.isCurrent)
        let inside = queue.sync { queue.isCurrent }
        #expect(inside)
        let refused = queue.sync { () -> Bool in
            do throws(HierarchyError) {
                _ = try queue.settle(timeout: 1)
                return false
            } catch {
                return error == .onApplyQueue(operation: "settle")
            }
        }
        #expect(refused)
    }
}

@Suite("setNeedsLayout from any thread")
struct ScheduledLayoutTests {
    @Test("Calls from many threads coalesce into passes that end in the newest layout")
    func coalescing() throws {
        // A serial layout queue of its own, held busy while the calls are made: no pass can start in between,
        // so all 51 calls share one (on the shared global queue, whether any call came before a pass started
        // was up to the scheduler: two cores once ran every call after the pass before it had started).
        let layoutQueue = DispatchQueue(label: "coalescing")
        let context = LayoutContext(applyQueue: .main, layoutQueue: layoutQueue)
        let leaf = CountingLeaf("leaf", size: Size(10, 10))
        let root = ComposedNode("root") { _ in WrapperSpec(leaf) }
        leaf.context = context
        root.context = context
        root.constrainedRange = SizeRange(min: .zero, max: Size(200, 200))
        try settle()
        #expect(root.frame.size == Size(10, 10))
        let callsBefore = root.specCalls
        let before = context.statistics.snapshot
        let held = DispatchSemaphore(value: 0)
        layoutQueue.async { held.wait() }
        DispatchQueue.concurrentPerform(iterations: 50) { i in
            leaf.size = Size(Double(10 + i % 7), 10)
            leaf.setNeedsLayout()
        }
        leaf.size = Size(77, 10)
        leaf.setNeedsLayout()
        held.signal()
        try settle()
        #expect(root.frame.size == Size(77, 10))
        #expect(leaf.frame == Rect(x: 0, y: 0, width: 77, height: 10))
        #expect(root.lastLayoutError == nil)
        // One pass, one spec call: the 51 calls made before a pass could start shared it.
        #expect(context.statistics.snapshot.subtracting(before).appliedPasses == 1)
        #expect(root.specCalls - callsBefore == 1)
    }

    @Test("A failing relayout keeps the previous layout and reports the error")
    func failureKeepsState() throws {
        let leaf = CountingLeaf("leaf", size: Size(10, 10))
        let root = ComposedNode("root") { _ in WrapperSpec(leaf) }
        root.constrainedRange = SizeRange(min: .zero, max: Size(100, 100))
        try settle()
        #expect(names(root.subnodes) == ["leaf"])
        root.setBuild { _ in RatioSpec(ratio: -1, child: Box()) }
        root.setNeedsLayout()
        try settle()
        #expect(names(root.subnodes) == ["leaf"], "the earlier hierarchy stays")
        #expect(root.frame.size == Size(10, 10))
        let error = root.lastLayoutError as? HierarchyError
        #expect(error == .layoutFailed(LayoutError("expected a ratio > 0, got -1", path: "root.layoutSpec.ratio")))
    }
}
