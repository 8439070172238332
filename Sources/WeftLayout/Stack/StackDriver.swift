// The stack driver: a stack spec laid out through the builder, and the memo that answers repeats.
extension LayoutBuilder {
    /// Lays the stack out, or answers it from the builder's memo when that is on (``memoAfterRelayouts``): the
    /// layout of the same stack for the same range and parent size made earlier in this computation, as a copy of
    /// its record (its own position, the same size, element and sublayouts); a stack laid out while the memo is on
    /// is remembered. (The memo is looked up and written by helpers that return before the layout goes deeper, so
    /// a nested stack costs one frame with the memo on or off: a wrapper around the layout was a second frame per
    /// level, which halved the deepest tree a thread could lay out once the memo was on.)
    mutating func layoutStack(
        _ arena: SpecArena, _ index: Int32, _ record: SpecRecord, _ options: StackOptions, _ range: SizeRange,
        parentSize: Size
    ) throws(LayoutError) -> LayoutRef {
        // The count of node records made before this layout, to remember it by; -1: the memo is off.
        var nodeRecordsBefore = -1
        if _slowPath(specMemo != nil) {
            if let known = rememberedStack(arena, index, range, parentSize: parentSize) { return known }
            nodeRecordsBefore = nodeRecords
        }
        try arena.validateStyle(of: record)
        let narrowed = arena.narrowed(record, range, parentSize: parentSize)
        guard options.spacing.isFinite else {
            throw LayoutError("expected a finite number, got \(formatPoints(options.spacing))", path: "spacing")
        }
        guard options.lineSpacing.isFinite else {
            throw LayoutError("expected a finite number, got \(formatPoints(options.lineSpacing))", path: "lineSpacing")
        }
        let ref: LayoutRef
        if record.childCount == 0 {
            ref = leafSpec(arena, index, size: narrowed.min)
        } else {
            var pass = StackPass(options: options, record: record, range: narrowed, builder: &self)
            defer { pass.release(&self) }
            try pass.makeItems(arena, record, &self)
            try pass.layOutUnconstrained(arena, &self)
            pass.collectLines(&self)
            try pass.flexLines(arena, &self)
            try pass.layOutDeferred(crossIsOpen: true, arena, &self)
            pass.computeLineCrossSizes(&self)
            try pass.stretchLines(arena, &self)
            try pass.layOutDeferred(crossIsOpen: false, arena, &self)
            let size = pass.position(&self)
            // The children's layouts are the stack's edges, in child order (appended straight from the items:
            // through the scratch stack, each was pushed and popped).
            let edgeStart = Int32(truncatingIfNeeded: edges.count)
            let items = pass.items(&self)
            for i in 0..<Int(record.childCount) { edges.append(items[i].ref.index) }
            ref = self.record(.spec(Unmanaged.passUnretained(arena), index), isNode: false, size: size,
                              edgeStart: edgeStart, edgeCount: record.childCount)
        }
        if _slowPath(nodeRecordsBefore >= 0) {
            remember(ref, arena, index, range, parentSize: parentSize, placesNodes: nodeRecords != nodeRecordsBefore)
        }
        return ref
    }

    /// The memo's answer for the stack, as a copy of its remembered record, or nil. (In a layout pass, not one
    /// that places nodes: see ``memoAfterRelayouts``.)
    @inline(never)
    mutating func rememberedStack(_ arena: SpecArena, _ index: Int32, _ range: SizeRange, parentSize: Size) -> LayoutRef? {
        guard let known = specMemo?[SpecMemoKey(arena, index, range, parentSize)], !(known.placesNodes && passNotes != nil) else {
            return nil
        }
        // (A stack's record: never a node's, so the count of node records stays as it is.)
        let original = records[Int(known.ref.index)]
        records.append(Record(source: original.source, size: original.size, edgeStart: original.edgeStart,
                              edgeCount: original.edgeCount, isNode: original.isNode))
        return LayoutRef(records.count - 1)
    }

    /// Remembers the stack's layout `ref`, unless the memo was dropped meanwhile (or is full: then it is dropped).
    /// `placesNodes`: whether any node record was made while it was laid out (its garbage too: at worst a stack
    /// is laid out again).
    @inline(never)
    mutating func remember(
        _ ref: LayoutRef, _ arena: SpecArena, _ index: Int32, _ range: SizeRange, parentSize: Size, placesNodes: Bool
    ) {
        guard let count = specMemo?.count else { return }
        guard count < Self.memoCapacity else {
            specMemo = nil
            return
        }
        specMemo?[SpecMemoKey(arena, index, range, parentSize)] = SpecMemoEntry(ref: ref, placesNodes: placesNodes)
    }
}
