import Dispatch
import Synchronization
import WeftLayout
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Node {
    /// The node's subnodes, back to front (later subnodes are drawn above earlier ones). MAY be read anywhere.
    /// (A node that manages its subnodes keeps them as its applied layout: each read makes the array.)
    public var subnodes: [Node] { readPlacement { $0.pointee.subnodes }.array }

    /// The node this node is a subnode of. MAY be read anywhere.
    public var supernode: Node? { withState { $0.supernode } }

    /// The node's frame in its supernode's coordinates, as last applied.
    public var frame: Rect { withState { $0.frame } }

    /// The size of the layout last applied (the frame's size), read from the published placement with no lock.
    package var appliedSize: Size { readPlacement { $0.pointee.appliedSize } }

    /// The node's own layout as last applied on the apply queue.
    public var appliedLayout: Layout? { withState { $0.appliedLayout }?.attaching(self) }

    /// The hierarchy diff applied to this node's subnodes by the last layout pass that changed them
    /// (automatically managed nodes only).
    public var lastAppliedDiff: HierarchyDiff? { withState { $0.lastDiff } }

    /// Adds `node` as the frontmost subnode. MUST run on the apply queue; refused for automatically managed
    /// nodes, for a node that would become its own ancestor, and for a node managed by another parent's layout.
    public func addSubnode(_ node: Node) throws(HierarchyError) {
        try insertSubnode(node, at: subnodes.count, operation: "addSubnode")
    }

    /// Inserts `node` among the subnodes at `index` (0 is the back). Same rules as ``addSubnode(_:)``. A node
    /// that already has a supernode is moved here.
    public func insertSubnode(_ node: Node, at index: Int) throws(HierarchyError) {
        try insertSubnode(node, at: index, operation: "insertSubnode")
    }

    private func insertSubnode(_ node: Node, at index: Int, operation: String) throws(HierarchyError) {
        try requireApplyQueue(operation)
        if automaticallyManagesSubnodes {
            throw .automaticallyManaged(operation: operation, node: displayName)
        }
        // Both claimed (see `placing`) before the checks read them, until they are written: another apply queue
        // changing either meanwhile waits, or is refused, or refuses this.
        guard claimPlacing(with: node) else {
            throw .nodeInTwoPlaces(node: node.displayName, first: Self.placedElsewhere, second: "the subnodes of \(displayName)")
        }
        defer { releasePlacing(with: node) }
        var ancestor: Node? = self
        while let current = ancestor {
            if current === node { throw .cycle(node: node.displayName, into: displayName) }
            ancestor = current.supernode
        }
        if let old = node.supernode, old !== self, old.automaticallyManagesSubnodes {
            throw .nodeInTwoPlaces(
                node: node.displayName, first: "a subnode of \(old.displayName) (managed by its layout)",
                second: "the subnodes of \(displayName)")
        }
        // The old supernode is claimed too before it changes: it may belong to another apply queue, whose own
        // changes check its subnodes, then write them (unclaimed, a removal here between another queue's index
        // check and its insert made that insert trap).
        let old = node.supernode
        let otherParent = old.flatMap { $0 === self ? nil : $0 }
        if let otherParent, !otherParent.claimPlacing() {
            throw .nodeInTwoPlaces(node: node.displayName, first: Self.placedElsewhere, second: "the subnodes of \(displayName)")
        }
        defer { otherParent?.releasePlacing() }
        let count = subnodes.count - (old === self ? 1 : 0)
        guard index >= 0 && index <= count else {
            throw .indexOutOfRange(index: index, count: count, node: displayName)
        }
        if let old {
            old.changePlacement { $0.subnodes.removeAll { $0 === node } }
        }
        // The node's supernode first, then this node's subnodes: a reader that finds it among the subnodes finds
        // its supernode set (and its setNeedsLayout, which walks supernodes, reaches this node).
        let context = self.context
        let contextChanged = node.withState { state -> Bool in
            state.setSupernode(self, publishingIn: node.placementSlots)
            guard state.context !== context else { return false }
            state.context = context
            return true
        }
        changePlacement { $0.subnodes.insert(node, at: index) }
        // Its subnodes too: a subtree built under one context and added under another lays out, and takes
        // hierarchy changes, in the new one throughout.
        if contextChanged { node.passContextDown(context, outdating: false) }
    }

    /// Gives `context` to every node below this one (``allSubnodes``, linear in the subtree) that has another.
    /// `outdating`: each node changed has its version bumped too, as the public ``context`` setter does for the
    /// node it is set on (a pass computed in the old context is then never applied); without, as for a node
    /// entering a hierarchy, its fresh cache entries stay (they are keyed by scale).
    func passContextDown(_ context: LayoutContext, outdating: Bool) {
        for node in allSubnodes {
            node.withState { state in
                guard state.context !== context else { return }
                state.context = context
                if outdating { state.version &+= 1 }
            }
        }
    }

    /// How an error names the other place of a node that another hierarchy change is placing at the same time.
    static let placedElsewhere = "a hierarchy change on another apply queue, which held it for longer than a change waits"

    /// Removes the node from its supernode. MUST run on the apply queue; refused when the supernode manages
    /// its subnodes automatically (its layout decides).
    public func removeFromSupernode() throws(HierarchyError) {
        try requireApplyQueue("removeFromSupernode")
        guard let parent = supernode else { return }
        if parent.automaticallyManagesSubnodes {
            throw .automaticallyManaged(operation: "removeFromSupernode", node: "\(displayName) (a subnode of \(parent.displayName))")
        }
        // Both claimed, as by `insertSubnode`: the parent may belong to another apply queue that is changing it.
        guard claimPlacing(with: parent) else {
            throw .nodeInTwoPlaces(node: displayName, first: Self.placedElsewhere, second: "removed from \(parent.displayName)")
        }
        defer { releasePlacing(with: parent) }
        guard supernode === parent else { return }
        parent.changePlacement { $0.subnodes.removeAll { $0 === self } }
        leave(parent)
    }

    /// Changes the node's placement in the hierarchy (under its lock, published for readers without one).
    func changePlacement(_ change: (inout Placement) -> Void) {
        withState { $0.changePlacement(publishingIn: placementSlots, change) }
    }

    /// Sets the node's supernode to nil if it is `parent`.
    func leave(_ parent: Node) {
        withState { state in
            if state.isSupernode(parent) { state.setSupernode(nil, publishingIn: placementSlots) }
        }
    }

    /// How long a claim waits for another's on the same node to end before it gives up, in nanoseconds. A claim
    /// lasts from a check to a write (microseconds; no user code runs while one is held), so only a conflict that
    /// waits on itself (two passes on two apply queues, each holding a node the other needs) or a stalled apply
    /// waits this long, and is then refused.
    static let claimPatience: UInt64 = 250_000_000

    /// Claims the node (see `placing`) for a hierarchy change: its subnodes or its supernode are read after this
    /// and written before ``releasePlacing()``. Waits up to ``claimPatience`` for another apply queue's claim to
    /// end; false if it did not.
    @inline(__always)
    func claimPlacing() -> Bool {
        placing.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged || claimPlacingPatiently()
    }

    /// Claims the node and `other` (in address order, so that two changes claiming the same two never hold one
    /// each); false, holding neither, if either stays held.
    func claimPlacing(with other: Node) -> Bool {
        if other === self { return claimPlacing() }
        let (first, second) = ObjectIdentifier(self) < ObjectIdentifier(other) ? (self, other) : (other, self)
        guard first.claimPlacing() else { return false }
        guard second.claimPlacing() else {
            first.releasePlacing()
            return false
        }
        return true
    }

    @inline(never)
    private func claimPlacingPatiently() -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ Self.claimPatience
        repeat {
            _ = placing.compareExchange(expected: 1, desired: 2, ordering: .relaxed)  // (marked: a change waits)
            sched_yield()
            if placing.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged {
                return true
            }
        } while DispatchTime.now().uptimeNanoseconds < deadline
        return false
    }

    /// Ends a claim of ``claimPlacing(with:)``.
    func releasePlacing(with other: Node) {
        other.releasePlacing()
        if other !== self { releasePlacing() }
    }

    /// Ends a claim of ``claimPlacing()``.
    func releasePlacing() {
        placing.store(0, ordering: .releasing)
    }

    /// Refuses `operation` unless it runs on the apply queue of the node's context.
    package func requireApplyQueue(_ operation: String) throws(HierarchyError) {
        try WeftNodes.requireApplyQueue(context, operation, self)
    }

    /// The nodes of the subtree below this node (not including it), depth first, each before its subnodes. Walked
    /// with a stack of its own, linear in the subtree (it recursed, copying each subtree's list into its
    /// parent's: quadratic in the depth, and a chain of some 30,000 nodes ran off an 8 MB stack).
    public var allSubnodes: [Node] {
        var result: [Node] = []
        var pending = Array(subnodes.reversed())
        while let node = pending.popLast() {
            result.append(node)
            pending.append(contentsOf: node.subnodes.reversed())
        }
        return result
    }
}

/// Refuses `operation` on `node` unless it runs on `context`'s apply queue.
func requireApplyQueue(_ context: LayoutContext, _ operation: String, _ node: Node) throws(HierarchyError) {
    guard context.applyQueue.isCurrent else {
        throw .offApplyQueue(operation: operation, node: node.displayName)
    }
}
