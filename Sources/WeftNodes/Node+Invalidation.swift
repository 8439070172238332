import Dispatch
import WeftLayout

extension Node {
    /// The size range this node is laid out in when it is the root of a hierarchy (a root node's bounds, a
    /// cell's width and unbounded height). Setting it (from any thread) schedules a layout pass.
    public var constrainedRange: SizeRange? {
        get { withState { $0.constrainedRange } }
        set {
            withState { $0.constrainedRange = newValue }
            setNeedsLayout()
        }
    }

    /// Sets the range without scheduling a pass (for owners such as a feed that run the pass themselves).
    ///
    /// A different range bumps the node's version, like ``setNeedsLayout()`` without the pass: a pass computed
    /// for the old range (one the node scheduled itself, still in flight) is then never applied over a newer
    /// one computed for this range.
    public func setConstrainedRangeQuietly(_ range: SizeRange?) {
        // (The dropped layouts are released after the lock: they may hold a node's last reference.)
        _ = withState { state -> LayoutCache? in
            guard state.constrainedRange != range else { return nil }
            state.constrainedRange = range
            state.version &+= 1
            return state.cache.takeAll()
        }
    }

    /// Marks the node's layout as outdated: bumps the version of the node and of each ancestor (their cached
    /// layouts no longer answer), then schedules a layout pass of the root on a background queue, applied on
    /// the apply queue. MAY be called from any thread; calls that come before the pass starts share it.
    ///
    /// The pass runs only for a root that has a ``constrainedRange``. Layouts computed before this call are
    /// never applied over the newer one.
    public func setNeedsLayout() {
        invalidateUpward(toBelow: nil).scheduleLayoutPass()
    }

    /// Invalidates this node and each ancestor, stopping below `end` (nil: up to the root); returns the last
    /// node invalidated.
    @discardableResult
    func invalidateUpward(toBelow end: Node?) -> Node {
        var last = self
        var current: Node? = self
        while let node = current, node !== end {
            current = node.invalidateLayout()
            last = node
        }
        return last
    }

    /// Bumps the version and drops cached layouts; returns the supernode, read in the same section (one lock
    /// per node walked up).
    @discardableResult
    func invalidateLayout() -> Node? {
        // (The dropped layouts are released after the lock: they may hold a node's last reference.)
        withState { state in
            state.version &+= 1
            return (state.supernode, state.cache.takeAll())
        }.0
    }

    /// Schedules a background layout pass of this node as a root on its context's layout queue, unless one is
    /// already scheduled and not yet started.
    func scheduleLayoutPass() {
        let scheduled = withState { state -> LayoutContext? in
            guard state.constrainedRange != nil, !state.relayoutScheduled else { return nil }
            state.relayoutScheduled = true
            return state.context
        }
        guard let context = scheduled else { return }
        let queue = context.applyQueue
        queue.beginWork()
        context.layoutQueue.async {
            // From here on, a new setNeedsLayout schedules another pass.
            let range = self.withState { state -> SizeRange? in
                state.relayoutScheduled = false
                return state.constrainedRange
            }
            if let range {
                do {
                    let pass = try LayoutPass.compute(root: self, range: range)
                    queue.enqueue { self.applyPass(pass) }
                } catch {
                    queue.enqueue { self.didFailLayout(error) }
                }
            }
            queue.endWork()
        }
    }

    /// Applies a pass computed for this node as a root, reporting failure to ``didFailLayout(_:)`` and a size
    /// change to a cell's owner. MUST run on the apply queue.
    func applyPass(_ pass: LayoutPass) {
        do {
            let result = try pass.apply()
            if let change = result.rootSizeChange {
                didChangeSize(from: change.old, to: change.new)
            }
            if result.needsAnotherPass { requestAnotherPass(after: result) }
        } catch {
            didFailLayout(error)
        }
    }

    /// Computes and applies a pending layout pass now, on the apply queue: when this node's hierarchy root has
    /// a ``constrainedRange`` and its applied layout is older than its version. MUST run on the apply queue.
    public func layoutIfNeeded() throws(HierarchyError) {
        try requireApplyQueue("layoutIfNeeded")
        var root = self
        while let parent = root.supernode { root = parent }
        let (range, needed) = root.withState { ($0.constrainedRange, $0.appliedVersion != $0.version) }
        guard let range, needed else { return }
        let pass = try LayoutPass.compute(root: root, range: range)
        let result = try pass.apply()
        if let change = result.rootSizeChange {
            root.didChangeSize(from: change.old, to: change.new)
        }
        if result.needsAnotherPass { root.requestAnotherPass(after: result) }
    }

    /// After applying a pass of this node as a root that found outdated parts: invalidates each outdated node
    /// and its ancestors now (it may have joined its parent in this pass, after it changed: its change did not
    /// reach the ancestors whose cached layouts place it at its old size), then schedules the root's pass.
    /// MAY be called from any thread.
    public func requestAnotherPass(after result: LayoutPass.Result) {
        invalidateOutdated(after: result)
        setNeedsLayout()
    }

    /// Invalidates each node `result` found outdated and its ancestors up to this node (the root of the pass).
    func invalidateOutdated(after result: LayoutPass.Result) {
        for node in result.outdated { node.invalidateUpward(toBelow: self) }
    }
}
