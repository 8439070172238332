import WeftLayout

extension Node {
    /// The range the node's size falls in when laid out in `range` in a parent of `parentSize`, found from its
    /// layout spec without laying it out: a node's size is its spec's layout size, which a spec of most kinds
    /// clamps into a range known from the spec alone (``LayoutBuilder/clampingRange(_:_:_:parentSize:)``). Nil
    /// for a leaf, a spec whose size only its layout tells, a style that cannot be laid out (the layout then
    /// reports it), and a node that has an entry for the range already (its layout is then a cache hit).
    ///
    /// A stack asks it for a node child laid out at its basis (``LayoutObject/clampingRange(_:parentSize:in:)``):
    /// a chain of nodes, each a flexible stack around the next, then lays each node out once instead of at its
    /// basis and again flexed, 2^depth layouts in all. It costs one call of ``layoutSpecThatFits(_:in:)``,
    /// counted as a spec call; the spec is dropped after.
    public func clampingRange(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) -> SizeRange? {
        // The version first (see `lookup`).
        let version = currentVersion.load(ordering: .acquiring)
        let (narrowed, problem) = readInputs { inputs in (Snapshot.narrowed(inputs, range, parentSize: parentSize), inputs.pointee.styleProblem) }
        guard problem == nil else { return nil }
        if hasEntry(narrowed, scale: builder.grid.scale, version: version) { return nil }
        // Entered as a layout is (a spec whose content is the node itself asks it again: a cycle, which its layout
        // then reports).
        do { try builder.enter(self) } catch { return nil }
        defer { builder.leave(self) }
        builder.counters.specCalls += 1
        return builder.unretainedScratchSpecs()._withUnsafeGuaranteedRef { arena in
            specClampingRange(narrowed, arena: arena, in: &builder)
        }
    }

    /// Whether the cache holds an entry for `narrowed` at `scale` and `version`.
    private func hasEntry(_ narrowed: SizeRange, scale: Double, version: UInt64) -> Bool {
        if storedVersion.load(ordering: .acquiring) != version { return false }
        let state = guarded.lockedPointer()
        defer { guarded.unlock() }
        return state.pointee.cache.lookup(narrowed, scale: scale, version: version) != nil
    }

    /// The clamping range of the node's spec for `resolved` (the range narrowed by the node's style), built on
    /// top of `arena` (the builder's, borrowed) and dropped after, as ``computeLayout`` builds it.
    private func specClampingRange(_ resolved: SizeRange, arena: SpecArena, in builder: inout LayoutBuilder) -> SizeRange? {
        let specMark = arena.mark
        defer { arena.rewind(to: specMark) }
        let (part, ownArena) = buildSpec(resolved, arena: arena, in: &builder)
        guard let spec = part else { return nil }
        let specArena = ownArena ?? arena
        return builder.clampingRange(of: spec.specChild(in: specArena), in: specArena, resolved, parentSize: resolved.max)
    }
}
