import WeftLayout

/// Everything a layout transition knows: the layouts it goes between, the subnodes it inserts and removes,
/// and each subnode's frame before and after (Texture's `ASContextTransitioning`).
///
/// Created and used on the apply queue, except ``completeTransition(_:)``, which MAY be called from any thread
/// (an animation's timer): it hops onto the apply queue.
public final class TransitionContext: @unchecked Sendable {
    // @unchecked: its mutable state (`recorded`, `isComplete`) is confined to the apply queue; the one entry
    // point that may be called elsewhere only reads `applyQueue` (a constant) there and hops.

    /// The node whose layout changes.
    public let node: Node
    /// The layout applied before the transition (nil if the node had none).
    public let fromLayout: Layout?
    /// The layout the transition goes to.
    public let toLayout: Layout
    /// Subnodes the new layout adds (already subnodes while the transition runs).
    public let insertedSubnodes: [Node]
    /// Subnodes the new layout drops (still subnodes until the transition completes).
    public let removedSubnodes: [Node]
    /// Subnodes in both layouts.
    public let movedOrKeptSubnodes: [Node]
    /// Whether the transition was asked to animate.
    public let isAnimated: Bool
    /// How long the animation should take, in seconds (default 0.2, Texture's).
    public let duration: Double

    private let initialFrames: [ObjectIdentifier: Rect]
    private let finalFrames: [ObjectIdentifier: Rect]
    private var recorded: [ObjectIdentifier: Rect] = [:]
    private let onComplete: (TransitionContext, Bool) -> Void
    private let applyQueue: ApplyQueue
    private(set) public var isComplete = false

    init(
        node: Node, fromLayout: Layout?, toLayout: Layout, diff: HierarchyDiff, isAnimated: Bool, duration: Double,
        onComplete: @escaping (TransitionContext, Bool) -> Void
    ) {
        self.node = node
        self.fromLayout = fromLayout
        self.toLayout = toLayout
        insertedSubnodes = diff.insertions.map(\.node)
        removedSubnodes = diff.removals.map(\.node)
        let entering = Set(insertedSubnodes.map(ObjectIdentifier.init))
        movedOrKeptSubnodes = toLayout.flattened().compactMap { $0.element as? Node }
            .filter { !entering.contains(ObjectIdentifier($0)) }
        self.isAnimated = isAnimated
        self.duration = duration
        self.onComplete = onComplete
        applyQueue = node.context.applyQueue
        var initial: [ObjectIdentifier: Rect] = [:]
        for entry in fromLayout?.flattened() ?? [] {
            if let object = entry.element as? Node { initial[ObjectIdentifier(object)] = entry.frame }
        }
        var final: [ObjectIdentifier: Rect] = [:]
        for entry in toLayout.flattened() {
            if let object = entry.element as? Node { final[ObjectIdentifier(object)] = entry.frame }
        }
        initialFrames = initial
        finalFrames = final
    }

    /// The subnode's frame in the layout before the transition, or nil if it was not in it.
    public func initialFrame(for node: Node) -> Rect? { initialFrames[ObjectIdentifier(node)] }

    /// The subnode's frame in the layout after the transition, or nil if it is not in it.
    public func finalFrame(for node: Node) -> Rect? { finalFrames[ObjectIdentifier(node)] }

    /// Records a frame an animation gave a subnode (the default animation records the final frames).
    public func recordFrame(_ frame: Rect, for node: Node) {
        recorded[ObjectIdentifier(node)] = frame
    }

    /// The frame last recorded for a subnode, if any.
    public func recordedFrame(for node: Node) -> Rect? { recorded[ObjectIdentifier(node)] }

    /// Ends the transition: the node's `didCompleteLayoutTransition(_:)` runs (removing the dropped subnodes)
    /// and the transition's completion is told. Only the first call counts. MAY be called from any thread: off
    /// the apply queue, the completion is queued there (it runs in the queue's next turn).
    public func completeTransition(_ didComplete: Bool = true) {
        guard applyQueue.isCurrent else {
            applyQueue.enqueue { self.completeTransition(didComplete) }
            return
        }
        guard !isComplete else { return }
        isComplete = true
        onComplete(self, didComplete)
    }
}
