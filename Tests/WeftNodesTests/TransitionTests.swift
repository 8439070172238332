import Dispatch
import Foundation
import Testing
import WeftLayout
@testable import WeftNodes
import WeftSync

/// A node that keeps its transition contexts and completes them only when told.
final class ManualTransitionNode: Node, @unchecked Sendable {
    private let contexts = Locked<[TransitionContext]>([])
    private let showB = Locked(false)
    let a = CountingLeaf("a", size: Size(10, 10))
    let b = CountingLeaf("b", size: Size(20, 10))
    let completesAtOnce: Bool

    init(completesAtOnce: Bool) {
        self.completesAtOnce = completesAtOnce
        super.init()
        identifier = "transitioning"
        automaticallyManagesSubnodes = true
    }

    func show(b: Bool) { showB.withLock { $0 = b } }

    var pending: [TransitionContext] { contexts.withLock { $0 } }

    override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
        StackSpec.horizontal(children: showB.withLock { $0 } ? [b] : [a])
    }

    override func animateLayoutTransition(_ context: TransitionContext) {
        if completesAtOnce {
            super.animateLayoutTransition(context)
        } else {
            contexts.withLock { $0.append(context) }
        }
    }

    /// A completed transition is no longer pending (its context holds this node: keeping it would keep both).
    override func didCompleteLayoutTransition(_ context: TransitionContext) {
        contexts.withLock { $0.removeAll { $0 === context } }
        super.didCompleteLayoutTransition(context)
    }
}

/// Collects a transition's outcome.
final class Outcomes: @unchecked Sendable {
    private let values = Locked<[TransitionOutcome]>([])
    let done = DispatchSemaphore(value: 0)

    func record(_ outcome: TransitionOutcome) {
        values.withLock { $0.append(outcome) }
        done.signal()
    }

    var all: [TransitionOutcome] { values.withLock { $0 } }
}

@Suite("Layout transitions")
struct TransitionTests {
    func makeNode(completesAtOnce: Bool) throws -> ManualTransitionNode {
        let node = ManualTransitionNode(completesAtOnce: completesAtOnce)
        node.setConstrainedRangeQuietly(SizeRange(min: .zero, max: Size(100, 100)))
        try onApplyQueue { try node.layoutIfNeeded() }
        #expect(names(node.subnodes) == ["a"])
        return node
    }

    @Test("The default animation records final frames, completes, and removals happen at completion")
    func defaultTransition() throws {
        let node = try makeNode(completesAtOnce: true)
        node.show(b: true)
        let outcomes = Outcomes()
        node.transitionLayout(animated: true, measureAsync: true) { outcomes.record($0) }
        #expect(outcomes.done.wait(timeout: .now() + 10) == .success)
        #expect(outcomes.all == [.completed(didComplete: true)])
        try settle()
        #expect(names(node.subnodes) == ["b"])
        #expect(node.a.supernode == nil)
        #expect(node.b.frame == Rect(x: 0, y: 0, width: 20, height: 10))
    }

    @Test("The context holds both layouts, inserted and removed subnodes, frames and the duration")
    func context() throws {
        let node = try makeNode(completesAtOnce: false)
        node.show(b: true)
        let outcomes = Outcomes()
        node.transitionLayout(animated: true, measureAsync: false) { outcomes.record($0) }
        try settle()
        let context = try #require(node.pending.first)
        #expect(context.duration == 0.2)
        #expect(context.isAnimated)
        #expect(context.insertedSubnodes.map { $0.identifier } == ["b"])
        #expect(context.removedSubnodes.map { $0.identifier } == ["a"])
        #expect(context.initialFrame(for: node.a) == Rect(x: 0, y: 0, width: 10, height: 10))
        #expect(context.finalFrame(for: node.a) == nil)
        #expect(context.finalFrame(for: node.b) == Rect(x: 0, y: 0, width: 20, height: 10))
        #expect(context.fromLayout?.size == Size(10, 10))
        #expect(context.toLayout.size == Size(20, 10))
        // During the animation the inserted node is in and the removed one not yet out.
        #expect(Set(names(node.subnodes)) == ["a", "b"])
        onApplyQueue { context.completeTransition(true) }
        #expect(outcomes.done.wait(timeout: .now() + 10) == .success)
        #expect(outcomes.all == [.completed(didComplete: true)])
        #expect(names(node.subnodes) == ["b"])
    }

    @Test("A newer transition supersedes one still measuring: exactly one layout wins")
    func supersede() throws {
        let gate = DispatchSemaphore(value: 0)
        let leafA = CountingLeaf("first", size: Size(10, 10))
        let leafB = CountingLeaf("second", size: Size(30, 10))
        let choice = Locked("first")
        let node = ComposedNode("node") { _ in
            WrapperSpec(choice.withLock { $0 } == "first" ? leafA : leafB)
        }
        node.setConstrainedRangeQuietly(SizeRange(min: .zero, max: Size(100, 100)))
        try onApplyQueue { try node.layoutIfNeeded() }
        // The first transition's measurement blocks in layoutSpecThatFits until released.
        node.setGate(gate)
        let first = Outcomes()
        node.transitionLayout(animated: false, measureAsync: true) { first.record($0) }
        // The first transition is measuring once its spec call (the second, after the initial layout) started.
        guard waitUntil({ node.specCalls >= 2 }) else {
            gate.signal()
            Issue.record("the first transition never started measuring")
            return
        }
        choice.withLock { $0 = "second" }
        let second = Outcomes()
        node.transitionLayout(animated: false, measureAsync: true) { second.record($0) }
        #expect(second.done.wait(timeout: .now() + 10) == .success)
        gate.signal()
        #expect(first.done.wait(timeout: .now() + 10) == .success)
        try settle()
        #expect(first.all == [.cancelled])
        #expect(second.all == [.completed(didComplete: true)])
        #expect(names(node.subnodes) == ["second"])
        #expect(leafA.supernode == nil)
    }
}
