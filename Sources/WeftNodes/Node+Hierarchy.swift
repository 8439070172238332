import Synchronization
import WeftLayout

extension Node {
    /// The node's subnodes, back to front (later subnodes are drawn above earlier ones). MAY be read anywhere.
    public var subnodes: [Node] { readPlacement { $0.pointee.subnodes } }

    /// The node this node is a subnode of. MAY be read anywhere.
    public var supernode: Node? { withState { $0.supernode } }

    /// The node's frame in its supernode's coordinates, as last applied.
    public var frame: Rect { withState { $0.frame } }

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
        // Claimed before the checks read its supernode, until it is written: another apply queue placing the node
        // meanwhile is refused, or refuses this.
        guard node.claimPlacing() else {
            throw .nodeInTwoPlaces(node: node.displayName, first: Self.placedElsewhere, second: "the subnodes of \(displayName)")
        }
        defer { node.releasePlacing() }
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
        let count = subnodes.count - (node.supernode === self ? 1 : 0)
        guard index >= 0 && index <= count else {
            throw .indexOutOfRange(index: index, count: count, node: displayName)
        }
        if let old = node.supernode {
            old.changePlacement { $0.subnodes.removeAll { $0 === node } }
        }
        // The node's supernode first, then this node's subnodes: a reader that finds it among the subnodes finds
        // its supernode set (and its setNeedsLayout, which walks supernodes, reaches this node).
        let context = self.context
        node.withState { state in
            state.setSupernode(self, publishingIn: node.placementSlots)
            state.context = context
        }
        changePlacement { $0.subnodes.insert(node, at: index) }
    }

    /// How an error names the other place of a node that another hierarchy change is placing at the same time.
    static let placedElsewhere = "a parent another apply queue is placing it in at the same time"

    /// Removes the node from its supernode. MUST run on the apply queue; refused when the supernode manages
    /// its subnodes automatically (its layout decides).
    public func removeFromSupernode() throws(HierarchyError) {
        try requireApplyQueue("removeFromSupernode")
        guard let parent = supernode else { return }
        if parent.automaticallyManagesSubnodes {
            throw .automaticallyManaged(operation: "removeFromSupernode", node: "\(displayName) (a subnode of \(parent.displayName))")
        }
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
            if state.supernode === parent { state.setSupernode(nil, publishingIn: placementSlots) }
        }
    }

    /// Claims the node for placing it in a parent (see `placing`): false if another hierarchy change holds it.
    /// The claimant reads the node's supernode after this, and releases it after writing it.
    func claimPlacing() -> Bool {
        placing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    /// Ends a claim of ``claimPlacing()``.
    func releasePlacing() {
        placing.store(false, ordering: .releasing)
    }

    /// Refuses `operation` unless it runs on the apply queue of the node's context.
    package func requireApplyQueue(_ operation: String) throws(HierarchyError) {
        try WeftNodes.requireApplyQueue(context, operation, self)
    }

    /// The nodes of the subtree below this node (not including it), depth first.
    public var allSubnodes: [Node] {
        subnodes.flatMap { [$0] + $0.allSubnodes }
    }
}

/// Refuses `operation` on `node` unless it runs on `context`'s apply queue.
func requireApplyQueue(_ context: LayoutContext, _ operation: String, _ node: Node) throws(HierarchyError) {
    guard context.applyQueue.isCurrent else {
        throw .offApplyQueue(operation: operation, node: node.displayName)
    }
}
