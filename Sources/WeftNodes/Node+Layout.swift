import WeftLayout

extension Node {
    /// Lays the node out as an element of a parent's spec: the node's range is narrowed by its style, its
    /// layout is taken from its cache or computed (its spec laid out, or the leaf measured), and the parent
    /// gets one layout of the node's size. MAY run on any thread.
    public func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        let entry = try cachedOrComputedLayout(range, parentSize: parentSize, in: &builder)
        return builder.leaf(self, size: entry.size)
    }

    /// The node's own layout for `range`: the node at the root and, as its sublayouts, the nodes of its
    /// flattened spec in the node's coordinates (Texture's calculated layout; specs are not kept). A leaf's
    /// layout has no sublayouts. Computed at most once per size range and version: later calls hit the cache.
    /// MAY run on any thread.
    public func layoutThatFits(_ range: SizeRange) throws(LayoutError) -> Layout {
        let entry = try rootEntry(range)
        if let layout = entry.layout { return layout }
        var builder = BuilderPool.take(scale: entry.scale)
        let layout = builder.finish(builder.leaf(self, size: entry.size))
        BuilderPool.give(builder)
        return layout
    }

    /// The cache entry for `range` as a root (the parent size is the range's max), computed if missing.
    func rootEntry(_ range: SizeRange) throws(LayoutError) -> LayoutCache.Entry {
        let scale = Node.screenScale
        if let hit = cachedEntry(range, parentSize: range.max, scale: scale) {
            NodeStatistics.shared.bump(.cacheHits)
            return hit
        }
        if let problem = range.problem { throw LayoutError(problem, path: "sizeRange") }
        var builder = BuilderPool.take(scale: scale)
        let result: Result<LayoutCache.Entry, LayoutError>
        do {
            result = .success(try computeLayout(range, parentSize: range.max, in: &builder))
        } catch {
            result = .failure(error.within("root"))
        }
        BuilderPool.give(builder)
        return try result.get()
    }

    /// The cache entry a parent placed at `size` used: the cached one of that size for the current version
    /// if there is one, otherwise one computed for exactly that size (as Texture does).
    ///
    /// `wasCached` is false when the cache had no layout of that size for the current version: then the node
    /// changed after its parent laid it out (or the entry was evicted), and the parent's layout may be stale.
    func entryForApplying(size: Size) throws(LayoutError) -> (entry: LayoutCache.Entry, wasCached: Bool) {
        let scale = Node.screenScale
        if let entry = withState({ $0.cache.lookup(size: size, scale: scale, version: $0.version) }) {
            return (entry, true)
        }
        return (try rootEntry(SizeRange(exactly: size)), false)
    }

    /// The cached entry for `range` under `parentSize`, if any (no validation: an invalid style misses).
    @inline(__always)
    func cachedEntry(_ range: SizeRange, parentSize: Size, scale: Double) -> LayoutCache.Entry? {
        withState { state in
            let resolved = state.style.hasAutoSize
                ? range : range.intersection(state.style.resolvedRange(parentSize: parentSize))
            return state.cache.lookup(resolved, scale: scale, version: state.version)
        }
    }

    func cachedOrComputedLayout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutCache.Entry {
        if let hit = cachedEntry(range, parentSize: parentSize, scale: builder.grid.scale) {
            NodeStatistics.shared.bump(.cacheHits)
            return hit
        }
        return try computeLayout(range, parentSize: parentSize, in: &builder)
    }

    /// Computes the layout (the cache missed) and stores it.
    func computeLayout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutCache.Entry {
        let statistics = NodeStatistics.shared
        statistics.bump(.cacheMisses)
        let scale = builder.grid.scale
        let (style, version) = withState { ($0.style, $0.version) }
        let resolved = try builder.resolve(style, range: range, parentSize: parentSize)
        let entry: LayoutCache.Entry
        statistics.bump(.specCalls)
        if let spec = layoutSpecThatFits(resolved) {
            try builder.enter(self)
            defer { builder.leave(self) }
            let mark = builder.mark
            let specRef: LayoutRef
            do {
                specRef = try spec.layout(resolved, parentSize: resolved.max, in: &builder)
            } catch {
                throw error.within("layoutSpec")
            }
            let size = builder.size(of: specRef)
            // Cache what Texture caches: the node and its flattened subnodes, not the spec (which can go now).
            let layout = builder.finishFlattened(builder.layout(self, size: size, sublayout: specRef))
            builder.rewind(to: mark)
            entry = LayoutCache.Entry(range: resolved, scale: scale, version: version, size: layout.size, layout: layout)
        } else {
            statistics.bump(.measurements)
            let measured = calculateSizeThatFits(resolved.max)
            let size = builder.sanitizedSize(resolved.clamp(measured))
            entry = LayoutCache.Entry(range: resolved, scale: scale, version: version, size: size, layout: nil)
        }
        withState { state in
            // A newer version may exist by now; the entry is then simply never looked up.
            state.cache.store(entry)
        }
        return entry
    }

    /// The node's full layout for `range` (already narrowed by its style): the node at the root and its spec's
    /// whole layout below, laid out afresh (not cached). For error messages and debugging.
    func specLayout(_ range: SizeRange) -> Layout? {
        guard let spec = layoutSpecThatFits(range) else { return nil }
        var builder = LayoutBuilder(scale: Node.screenScale)
        guard let specRef = try? spec.layout(range, parentSize: range.max, in: &builder) else { return nil }
        return builder.finish(builder.layout(self, size: builder.size(of: specRef), sublayout: specRef))
    }
}
