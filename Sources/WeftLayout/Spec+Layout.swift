internal import CWeftThread

/// Laying out specs from their arena: one function per kind (in the kind's file), chosen here.
extension LayoutBuilder {
    /// Lays out spec `index` of `arena` for `range`. The error's path leads from the spec to the culprit.
    public mutating func layoutSpec(_ arena: SpecArena, _ index: Int32, _ range: SizeRange, parentSize: Size) throws(LayoutError) -> LayoutRef {
        let record = arena.record(index)
        // (A leaf nests nothing further: only specs with children check the stack.)
        if record.childCount > 0, _slowPath(weft_thread_stack_is_low()) { throw Self.stackExhausted() }
        switch record.kind {
        case .stack(let options, _, _):
            return try layoutStack(arena, index, record, options, range, parentSize: parentSize)
        case .inset(let insets):
            return try layoutInset(arena, index, record, insets, range, parentSize: parentSize)
        case .overlay:
            return try layoutOverlay(arena, index, record, range, parentSize: parentSize)
        case .background:
            return try layoutBackground(arena, index, record, range, parentSize: parentSize)
        case .relative(let horizontal, let vertical, let sizing):
            return try layoutRelative(arena, index, record, horizontal, vertical, sizing, range, parentSize: parentSize)
        case .center(let centering, let sizing):
            return try layoutRelative(
                arena, index, record, centering.contains(.x) ? .center : .none, centering.contains(.y) ? .center : .none,
                sizing, range, parentSize: parentSize)
        case .ratio(let ratio):
            return try layoutRatio(arena, index, record, ratio, range, parentSize: parentSize)
        case .absolute(let sizing):
            return try layoutAbsolute(arena, index, record, sizing, range, parentSize: parentSize)
        case .wrapper:
            return try layoutWrapper(arena, index, record, range, parentSize: parentSize)
        case .corner(let location, let offset, let wraps):
            return try layoutCorner(arena, index, record, location, offset, wraps, range, parentSize: parentSize)
        case .box(let size):
            return try layoutBox(arena, index, record, size, range, parentSize: parentSize)
        case .spacer:
            try arena.validateStyle(of: record)
            let resolved = arena.narrowed(record, range, parentSize: parentSize)
            return leafSpec(arena, index, size: resolved.min)
        }
    }

    /// The error for a tree nested so deep that laying it out further would run off the end of the thread's
    /// stack (checked for each spec and each node entered: see ``enter(_:)``). Never inlined: the check's cold
    /// path stays one call in the functions it guards.
    @inline(never)
    static func stackExhausted() -> LayoutError {
        LayoutError(
            "nested too deep for this thread's stack: \(weft_thread_stack_left() / 1024) KiB of it left (lay deep trees out on a thread with a larger stack)",
            kind: .limit)
    }

    /// Lays child `child` of a spec out and names the child's place in any error it throws.
    mutating func layoutChild(
        _ arena: SpecArena, _ child: SpecChild, _ range: SizeRange, parentSize: Size, place: @autoclosure () -> String
    ) throws(LayoutError) -> LayoutRef {
        do {
            if _slowPath(recordsMade >= nextStopCheck) { try checkShouldStop() }
            if child.isSpec { return try layoutSpec(arena, child.specIndex, range, parentSize: parentSize) }
            if child.isObject { return try arena.object(child).layout(range, parentSize: parentSize, in: &self) }
            return try arena.element(child).layout(range, parentSize: parentSize, in: &self)
        } catch {
            throw error.within(place())
        }
    }

    /// Records the layout of a spec without sublayouts.
    mutating func leafSpec(_ arena: SpecArena, _ index: Int32, size: Size) -> LayoutRef {
        record(.spec(Unmanaged.passUnretained(arena), index), isNode: false, size: size,
               edgeStart: Int32(truncatingIfNeeded: edges.count), edgeCount: 0)
    }

    /// Lays a value spec out: it is added (with its subtree) to the builder's arena for value specs, then laid
    /// out from there.
    public mutating func layoutValue(_ spec: some SpecPart, _ range: SizeRange, parentSize: Size) throws(LayoutError) -> LayoutRef {
        let arena = valueArena()
        let child = spec.specChild(in: arena)
        return try layoutSpecChild(arena, child, range, parentSize: parentSize)
    }

    /// Lays out a reference of `arena`: a spec of it, or one of its elements.
    public mutating func layoutSpecChild(_ arena: SpecArena, _ child: SpecChild, _ range: SizeRange, parentSize: Size) throws(LayoutError) -> LayoutRef {
        if child.isSpec { return try layoutSpec(arena, child.specIndex, range, parentSize: parentSize) }
        if child.isObject { return try arena.object(child).layout(range, parentSize: parentSize, in: &self) }
        return try arena.element(child).layout(range, parentSize: parentSize, in: &self)
    }

    @usableFromInline
    mutating func valueArena() -> SpecArena {
        if let values { return values }
        let arena = SpecArena()
        values = arena
        return arena
    }
}

extension LayoutBuilder {
    /// The range spec `index` of `arena`, laid out in `range`, clamps its size into, where its kind makes that
    /// known before its layout; nil where only its layout can tell, and where its layout would fail (it is then
    /// laid out, and fails, as usual). Where that range is exact on an axis, so is the spec's size there. Each
    /// kind's rule follows from its layout:
    ///
    /// - A stack, a relative or center spec, an absolute spec, and a corner spec that wraps its corner clamp
    ///   their size into their range narrowed by their style.
    /// - An inset spec clamps into its range as given (its style is not applied).
    /// - An overlay or background spec takes its content's size, laid out in the same range; a corner spec that
    ///   does not wrap its corner, its child's in its narrowed range; a ratio spec whose narrowed range is exact,
    ///   its child's laid out in exactly that size: the child's range, where it is known (a child that is an
    ///   object, such as a node, is asked: ``LayoutObject/clampingRange(_:parentSize:in:)``).
    mutating func clampingRange(_ arena: SpecArena, _ index: Int32, _ range: SizeRange, parentSize: Size) -> SizeRange? {
        var (index, range, parentSize) = (index, range, parentSize)
        while true {
            let record = arena.record(index)
            guard record.childCount > 0 else { return nil }
            do { try arena.validateStyle(of: record) } catch { return nil }
            var content = 0
            switch record.kind {
            case .stack(let options, _, _):
                guard options.spacing.isFinite, options.lineSpacing.isFinite else { return nil }
                return arena.narrowed(record, range, parentSize: parentSize)
            case .relative, .center, .absolute:
                return arena.narrowed(record, range, parentSize: parentSize)
            case .inset(let insets):
                // (Where its layout would refuse an infinite inset against an invalid max.)
                if !Size.isValid(range.max.width), insets.left.isInfinite || insets.right.isInfinite { return nil }
                if !Size.isValid(range.max.height), insets.top.isInfinite || insets.bottom.isInfinite { return nil }
                do { try Self.validate(insets) } catch { return nil }
                return range
            case .overlay:
                break
            case .background:
                content = 1
            case .corner(_, let offset, let wrapsCorner):
                guard offset.x.isFinite, offset.y.isFinite else { return nil }
                range = arena.narrowed(record, range, parentSize: parentSize)
                if wrapsCorner { return range }
                parentSize = range.max.definedParentSize
            case .ratio(let ratio):
                guard ratio.isFinite, ratio > 0 else { return nil }
                range = arena.narrowed(record, range, parentSize: parentSize)
                guard range.min == range.max else { return nil }
                // Both candidates clamp to the range's one size; with no valid max, the child gets the range
                // with an undefined parent size.
                let valid = Size.isValid(range.max.width) || Size.isValid(range.max.height)
                parentSize = valid ? range.min : Size(width: .nan, height: .nan)
            default:
                return nil
            }
            let child = arena.child(record, content)
            guard child.isSpec else { return clampingRange(of: child, in: arena, range, parentSize: parentSize) }
            index = child.specIndex
        }
    }

    /// ``clampingRange(_:_:_:parentSize:)`` of any child of `arena`: a spec's from its kind, an object's (a node's)
    /// from the object (``LayoutObject/clampingRange(_:parentSize:in:)``); nil for other elements.
    package mutating func clampingRange(of child: SpecChild, in arena: SpecArena, _ range: SizeRange, parentSize: Size) -> SizeRange? {
        if child.isSpec { return clampingRange(arena, child.specIndex, range, parentSize: parentSize) }
        if child.isObject { return arena.object(child).clampingRange(range, parentSize: parentSize, in: &self) }
        return nil
    }

    /// A zero-size layout of a child that is not laid out (a stack's placeholder for a child sized by flexing
    /// alone).
    mutating func placeholder(_ arena: SpecArena, _ child: SpecChild) -> LayoutRef {
        if child.isSpec { return leafSpec(arena, child.specIndex, size: .zero) }
        if child.isObject { return leaf(object: arena.object(child), size: .zero) }
        let element = arena.element(child)
        if let object = element as? any LayoutObject { return leaf(object: object, size: .zero) }
        return leaf(element, size: .zero)
    }
}
