import Dispatch
import WeftLayout

/// How a layout transition ended.
public enum TransitionOutcome: Sendable, Equatable {
    /// The new layout was applied and the transition completed (`didComplete` as the animation reported).
    case completed(didComplete: Bool)
    /// A newer transition started before this one finished measuring; its layout was never applied.
    case cancelled
    /// The new layout could not be computed or applied; the previous one stays.
    case failed(HierarchyError)
}

extension Node {
    /// Transitions to a new layout for the node's ``constrainedRange`` (or the range of its applied layout).
    ///
    /// The node's layout is invalidated, measured (on a background queue when `measureAsync`, else on the
    /// calling thread) and applied on the apply queue: inserted subnodes are added, ``animateLayoutTransition(_:)``
    /// runs, and on completion ``didCompleteLayoutTransition(_:)`` removes the dropped subnodes. A newer
    /// transition that starts while this one is still measuring supersedes it: this one ends `.cancelled` and
    /// only the newest layout is applied. MAY be called from any thread.
    public func transitionLayout(
        animated: Bool = true, measureAsync: Bool = true, duration: Double = 0.2,
        completion: (@Sendable (TransitionOutcome) -> Void)? = nil
    ) {
        let range = withState { $0.constrainedRange }
            ?? appliedLayout.map { SizeRange(exactly: $0.size) }
        guard let range else {
            completion?(.failed(.layoutFailed(LayoutError("the node has no constrainedRange and no applied layout to transition from"))))
            return
        }
        transitionLayout(to: range, animated: animated, measureAsync: measureAsync, duration: duration, completion: completion)
    }

    /// Transitions to a new layout for `range`. Same rules as ``transitionLayout(animated:measureAsync:duration:completion:)``.
    public func transitionLayout(
        to range: SizeRange, animated: Bool = true, measureAsync: Bool = true, duration: Double = 0.2,
        completion: (@Sendable (TransitionOutcome) -> Void)? = nil
    ) {
        // (The dropped layouts are released after the lock: they may hold a node's last reference.)
        let (id, context, _) = withState { state -> (UInt64, LayoutContext, LayoutCache) in
            state.transition &+= 1
            state.version &+= 1
            return (state.transition, state.context, state.cache.takeAll())
        }
        let queue = context.applyQueue
        queue.beginWork()
        let measure: @Sendable () -> Void = {
            defer { queue.endWork() }
            guard self.withState({ $0.transition }) == id else {
                completion?(.cancelled)
                return
            }
            let pass: LayoutPass
            do throws(HierarchyError) {
                pass = try LayoutPass.compute(root: self, range: range)
            } catch {
                queue.enqueue { completion?(.failed(error)) }
                return
            }
            queue.enqueue {
                self.startTransition(pass, id: id, animated: animated, duration: duration, completion: completion)
            }
        }
        if measureAsync {
            context.layoutQueue.async(execute: measure)
        } else {
            measure()
        }
    }

    private func startTransition(
        _ pass: LayoutPass, id: UInt64, animated: Bool, duration: Double,
        completion: (@Sendable (TransitionOutcome) -> Void)?
    ) {
        guard withState({ $0.transition }) == id else {
            completion?(.cancelled)
            return
        }
        let from = appliedLayout
        let diff = pass.diffs.first { $0.node === self }?.diff ?? HierarchyDiff(from: subnodes, to: subnodes)
        let result: LayoutPass.Result
        do {
            result = try pass.apply(deferringRemovalsFor: self)
        } catch {
            didFailLayout(error)
            completion?(.failed(error))
            return
        }
        let context = TransitionContext(
            node: self, fromLayout: from, toLayout: pass.rootLayout, diff: lastAppliedDiff ?? diff,
            isAnimated: animated, duration: duration
        ) { context, didComplete in
            context.node.didCompleteLayoutTransition(context)
            // A part found outdated is laid out again once the transition is over (a pass meanwhile would
            // take the subnodes the transition keeps until then): by the node's scheduled pass, or by another
            // transition, unanimated, to the same range when it has no constrained range.
            if result.needsAnotherPass {
                let node = context.node
                node.invalidateOutdated(after: result)
                if node.constrainedRange != nil {
                    node.setNeedsLayout()
                } else {
                    node.transitionLayout(to: pass.range, animated: false)
                }
            }
            completion?(.completed(didComplete: didComplete))
        }
        animateLayoutTransition(context)
    }

    /// Takes the subnodes a transition dropped out of the hierarchy (what the default
    /// ``didCompleteLayoutTransition(_:)`` does). MUST run on the apply queue; elsewhere it throws
    /// ``HierarchyError/offApplyQueue(operation:node:)`` and changes nothing.
    public func finishTransitionRemovals(_ context: TransitionContext) throws(HierarchyError) {
        try requireApplyQueue("finishTransitionRemovals")
        // Only those the layout applied since has not brought back: a later transition or pass that places one of
        // them again keeps it (removed by this older transition's completion, it was gone from the hierarchy while
        // the applied layout still placed it, and nothing put it back).
        let placed: Set<ObjectIdentifier> = withState { state in
            guard let layout = state.appliedLayout else { return [] }
            var placed = Set<ObjectIdentifier>()
            for k in 0..<layout.sublayoutCount {
                if let object = layout.unretainedSublayoutObject(k) { placed.insert(ObjectIdentifier(object.takeUnretainedValue())) }
            }
            return placed
        }
        let leaving = context.removedSubnodes.filter { !placed.contains(ObjectIdentifier($0)) }
        let removed = Set(leaving.map(ObjectIdentifier.init))
        changePlacement { $0.subnodes.removeAll { removed.contains(ObjectIdentifier($0)) } }
        for node in leaving { node.leave(self) }
    }
}
