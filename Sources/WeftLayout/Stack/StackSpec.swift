/// Lays its children out in a row or a column, flexing them to fill or fit (Texture's `ASStackLayoutSpec`).
///
/// The rules, Texture's in every detail (see `Stack+Unpositioned.swift` and `Stack+Positioned.swift`):
///
/// 1. The range is first narrowed by the spec's style. An empty stack takes the range's minimum.
/// 2. Each child is laid out with its flexBasis (or 0 up to infinity) along the main axis and the stack's
///    cross range across it; a stretched child gets at least the stack's cross minimum (or its own minimum).
///    If exactly one child can both grow and shrink and the main size is exact, that child is skipped here
///    and only sized by flexing.
/// 3. With `flexWrap: .wrap`, children go into lines, a new line starting where the next child (with spacing)
///    would pass the main maximum.
/// 4. Flexing, per line. The violation is what must be added to the children's total (spacing included) to
///    reach the range: positive below the minimum, negative above the maximum, ignored under 0.01.
///    Growing gives each child `floor(violation x grow / total grow)` points and the remainder to the first
///    growing child. Shrinking takes from each child in proportion to its size times its flexShrink.
///    Flexed children are laid out again at exactly their new main size.
/// 5. A line's cross size is its largest child (baseline-aligned children counted from their baselines);
///    a single line is clamped into the cross range, or is exactly the cross size when that is fixed.
///    With `alignContent: .stretch` several lines share a positive cross violation.
/// 6. Stretching happens after flexing: a stretched child smaller than its line is laid out again at exactly
///    its line's cross size (keeping its main size).
/// 7. Positioning: `justifyContent` spreads the main-axis free space (negative when children overflow);
///    `spaceBetween` falls back to `start`, and `spaceAround` to `center`, when there is no free space or one
///    child. `spacing`, and each child's spacingBefore and spacingAfter, separate children. `alignItems` (or a
///    child's alignSelf) places each child across its line; centering rounds down to the pixel grid
///    (``PixelGrid/floor(_:)``, which adds FLT_EPSILON first as Texture does).
///    `alignContent` and `lineSpacing` place the lines.
/// 8. The stack's size is the longest line and the sum of the line cross sizes, clamped into the range.
///
/// A vertical stack reports its first child's ascender and its last child's descender for baseline alignment,
/// as Texture's does once laid out; the child that optimized flexing (rule 2) skips and flexing then leaves
/// unsized is never laid out, and is aligned on its own style's ascender and descender.
public struct StackSpec: ValueSpec {
    /// The options after the alignment conveniences were applied.
    public let options: StackOptions
    public let horizontalAlignment: HorizontalAlignment
    public let verticalAlignment: VerticalAlignment
    public let children: [any LayoutElement]
    public let style: LayoutStyle
    public let identifier: String?

    public init(
        _ options: StackOptions = StackOptions(),
        horizontalAlignment: HorizontalAlignment = .none, verticalAlignment: VerticalAlignment = .none,
        children: [any LayoutElement], style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) {
        self.options = options.aligned(horizontal: horizontalAlignment, vertical: verticalAlignment)
        self.horizontalAlignment = horizontalAlignment
        self.verticalAlignment = verticalAlignment
        self.children = children
        self.style = style
        self.identifier = identifier
    }

    /// A vertical stack.
    public static func vertical(
        spacing: Double = 0, justifyContent: JustifyContent = .start, alignItems: AlignItems = .stretch,
        children: [any LayoutElement], style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> StackSpec {
        StackSpec(
            StackOptions(direction: .vertical, spacing: spacing, justifyContent: justifyContent, alignItems: alignItems),
            children: children, style: style, identifier: identifier)
    }

    /// A horizontal stack.
    public static func horizontal(
        spacing: Double = 0, justifyContent: JustifyContent = .start, alignItems: AlignItems = .stretch,
        children: [any LayoutElement], style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) -> StackSpec {
        StackSpec(
            StackOptions(direction: .horizontal, spacing: spacing, justifyContent: justifyContent, alignItems: alignItems),
            children: children, style: style, identifier: identifier)
    }

    public var kindName: String { "stack" }
    public var childElements: [any LayoutElement] { children }

    public var baselineAscender: Double {
        if options.direction == .vertical, let first = children.first { return first.baselineAscender }
        return style.ascender
    }

    public var baselineDescender: Double {
        if options.direction == .vertical, let last = children.last { return last.baselineDescender }
        return style.descender
    }

    public func specChild(in arena: SpecArena) -> SpecChild {
        if let refused = arena.refusingDeepNesting(self) { return refused }
        // The options are stored as given: the arena's stack applies the conveniences again (idempotent).
        return SpecChild(spec: arena.append(
            .stack(options, horizontalAlignment, verticalAlignment), style: style, identifier: identifier, elements: children))
    }
}

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
