import WeftLayout
import WeftNodes

extension FeedNode {
    /// Scrolls so that the viewport starts at `offset` in the content; cells entering and leaving the visible,
    /// display and preload ranges are told, and a batch fetch starts if content ahead runs short. MUST run on
    /// the apply queue.
    public func scroll(to offset: Double) throws(HierarchyError) {
        try requireApplyQueue("scroll")
        guard offset.isFinite else { return }
        live.direction = offset > live.scrollOffset ? .down : offset < live.scrollOffset ? .up : live.direction
        live.scrollOffset = offset
        updateRangesAndFetch()
    }

    /// Changes the viewport's height (one screenful). MUST run on the apply queue.
    public func setViewportHeight(_ height: Double) throws(HierarchyError) {
        try requireApplyQueue("setViewportHeight")
        guard height.isFinite && height >= 0 else { return }
        settings.withLock { $0.viewportHeight = height }
        updateRangesAndFetch()
    }

    /// The index paths of the cells in each range now, in order, for tests and tools. On the apply queue.
    /// Costs what is in the ranges (O(r log n)), not the feed.
    public func itemPaths(in state: InterfaceState) -> [ItemPath] {
        applyQueue.sync {
            live.states.compactMap { slot, entry -> ItemPath? in
                guard entry.isSuperset(of: state) else { return nil }
                return live.structure.path(ofFlat: live.structure.items.index(ofSlot: slot))
            }.sorted()
        }
    }

    /// Recomputes every cell's range membership, then checks batch fetching.
    func updateRangesAndFetch() {
        updateRanges()
        checkBatchFetch()
    }

    /// The content interval a range covers: the viewport grown by the tuning's screenfuls, the leading ones in
    /// the scrolling direction (as Texture does, "not moving down" counts the leading ones upward).
    func interval(_ tuning: RangeTuning?, viewport: Double) -> (top: Double, bottom: Double) {
        let top = live.scrollOffset
        let bottom = top + viewport
        guard let tuning else { return (top, bottom) }
        let down = live.direction == .down
        let below = (down ? tuning.leadingScreenfuls : tuning.trailingScreenfuls) * viewport
        let above = (down ? tuning.trailingScreenfuls : tuning.leadingScreenfuls) * viewport
        return (top - above, bottom + below)
    }

    private func updateRanges() {
        let (viewport, mode, tunings) = settings.withLock { ($0.viewportHeight, $0.rangeMode, $0.tunings) }
        let visible = interval(nil, viewport: viewport)
        let display = interval(tunings.display(mode), viewport: viewport)
        let preload = interval(tunings.preload(mode), viewport: viewport)
        var next: [ItemSequence.Slot: InterfaceState] = [:]
        swap(&next, &live.spareStates)
        next.removeAll(keepingCapacity: true)
        // Cells intersecting the preload range (which holds the others), found from the first one in O(log n).
        let items = live.structure.items
        var top = 0.0
        var first = true
        var visits = 0
        items.forEachSlot(from: items.firstIndex(endingAfter: preload.top)) { slot in
            if first {
                top = items.offset(ofSlot: slot)
                first = false
            }
            guard top < preload.bottom else { return false }
            visits += 1
            let bottom = top + items.weight(ofSlot: slot)
            var state: InterfaceState = []
            func intersects(_ range: (top: Double, bottom: Double)) -> Bool { top < range.bottom && bottom > range.top }
            if intersects(preload) { state.insert(.preload) }
            if intersects(display) { state.insert(.display) }
            if intersects(visible) { state.insert(.visible) }
            if !state.isEmpty { next[slot] = state }
            top = bottom
            return true
        }
        // Only cells whose state changes are told (on the apply queue, where the cells' context is the feed's: a
        // state change is not refused). Cells that leave every range first.
        for (slot, _) in live.states where next[slot] == nil {
            try? live.cellBySlot[Int(slot)]?.setInterfaceState([])
        }
        for (slot, state) in next where live.states[slot] != state {
            try? live.cellBySlot[Int(slot)]?.setInterfaceState(state)
        }
        live.spareStates = live.states
        live.states = next
        feedStatistics.withLock { $0.rangeVisits += visits }
    }

    /// Starts a batch fetch when the content ahead of the viewport is shorter than `leadingScreensForBatching`
    /// screens (Texture's `ASDisplayShouldFetchBatchForContext`): never while one is in flight, always when the
    /// content does not fill the viewport, never while scrolling up.
    private func checkBatchFetch() {
        guard !live.fetching, let delegate else { return }
        let (viewport, leading) = settings.withLock { ($0.viewportHeight, $0.leadingScreensForBatching) }
        guard leading > 0, viewport > 0 else { return }
        let smallContent = live.contentHeight < viewport
        if !smallContent {
            if live.direction == .up { return }
            let remaining = live.contentHeight - viewport - live.scrollOffset
            if remaining > viewport * leading { return }
        }
        guard delegate.shouldBatchFetch(for: self) else { return }
        live.fetching = true
        feedStatistics.withLock { $0.batchFetches += 1 }
        delegate.feed(self, willBeginBatchFetchWith: BatchFetchContext(feed: self))
    }

    /// A batch fetch ended: the feed may ask for more at the next scroll or commit (as in Texture; asking at
    /// once would loop forever at the end of the content).
    func batchFetchDidComplete(_ didComplete: Bool) {
        applyQueue.enqueue {
            self.live.fetching = false
        }
    }

    /// Whether a batch fetch is in flight.
    public var isFetchingBatch: Bool { applyQueue.sync { live.fetching } }
}
