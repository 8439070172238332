import WeftLayout

extension Node {
    /// Lays the node out as an element of a parent's spec: the node's range is narrowed by its style, its
    /// layout is taken from its cache or computed (its spec laid out, or the leaf measured), and the parent
    /// gets one layout of the node's size. MAY run on any thread.
    public func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        let entry = try cachedOrComputedLayout(range, parentSize: parentSize, in: &builder)
        return builder.leaf(self, size: entry.size)
    }

    /// The node's own layout for `range`: the node at the root, its spec's layout below. Computed at most once
    /// per size range and version (later calls hit the cache). MAY run on any thread.
    public func layoutThatFits(_ range: SizeRange) throws(LayoutError) -> Layout {
        try layoutAndVersion(range).0
    }

    func cachedOrComputedLayout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutCache.Entry {
        let scale = builder.grid.scale
        let (style, version, cached) = withState { state in
            (state.style, state.version, state.cache.lookup(
                Self.resolvedRange(state.style, range, parentSize), scale: scale, version: state.version))
        }
        let statistics = NodeStatistics.shared
        if let cached {
            statistics.bump(statistics.cacheHits)
            return cached
        }
        statistics.bump(statistics.cacheMisses)
        let resolved = try builder.resolve(style, range: range, parentSize: parentSize)
        let entry: LayoutCache.Entry
        statistics.bump(statistics.specCalls)
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
            let layout = builder.finish(builder.layout(self, size: size, sublayout: specRef))
            builder.rewind(to: mark)
            entry = LayoutCache.Entry(range: resolved, scale: scale, version: version, size: layout.size, layout: layout)
        } else {
            statistics.bump(statistics.measurements)
            let measured = calculateSizeThatFits(resolved.max)
            entry = LayoutCache.Entry(range: resolved, scale: scale, version: version, size: resolved.clamp(measured), layout: nil)
        }
        withState { state in
            // A newer version may exist by now; the entry is then simply never looked up.
            state.cache.store(entry)
        }
        return entry
    }

    /// The style's range (no validation: invalid styles miss the cache and fail in `resolve`).
    static func resolvedRange(_ style: LayoutStyle, _ range: SizeRange, _ parentSize: Size) -> SizeRange {
        style.hasAutoSize ? range : range.intersection(style.resolvedRange(parentSize: parentSize))
    }
}
