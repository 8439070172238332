/// What a stack knows about one child while it lays it out: the child's style, copied once (as Texture's
/// `ASStackLayoutSpecChild` does), and its current layout.
struct StackItem {
    var ref: LayoutRef
    /// The child's put-off layout (``StackPass/layOut``) in the builder's deferred layouts, -1 for none, or
    /// ``unlaid`` while the child is optimized flexing's placeholder, not laid out. (Beside `ref`, in what was its
    /// padding.)
    var deferral: Int32 = -1
    var size: Size
    let flexGrow: Double
    let flexShrink: Double
    let flexBasis: Dimension
    let alignment: AlignItems
    let spacingBefore: Double
    let spacingAfter: Double
    /// The child's own cross minimum when stretched, 0 when it has none (then the line's size applies).
    let stretchCrossMin: Double
    /// The child's own cross maximum when stretched, infinity when it has none.
    let stretchCrossMax: Double
    var ascender: Double
    var descender: Double

    var isFlexibleBothWays: Bool { flexGrow > 0 && flexShrink > 0 }

    var isBaselineAligned: Bool { alignment == .baselineFirst || alignment == .baselineLast }

    /// ``deferral`` of a child that optimized flexing left a zero-size placeholder and that is not laid out yet.
    static let unlaid: Int32 = -2
}

/// A child's layout put off by its stack (``StackPass/layOut``): the range it was asked to fit, which fixes its
/// main size (and its cross size, unless `crossIsOpen`), to lay it out in once the stack knows it keeps it.
struct StackDeferral {
    /// The item, among its stack's.
    let item: Int32
    /// Whether its cross size is still to be found (it is laid out before the lines' cross sizes).
    let crossIsOpen: Bool
    let range: SizeRange
}

/// One line of a stack: a run of consecutive items.
struct StackLine {
    var start: Int
    var end: Int
    var crossSize: Double = 0
    var baseline: Double = 0
    var mainSum: Double = 0
}

/// One computation of one stack: its options, range and children, with items and lines kept in the
/// builder's scratch space from `itemBase` and `lineBase` (released with ``release(_:)``). The phases that
/// lay children out are handed the stack's arena: kept here, it was retained by the pass and by every copy
/// of it, and released as often.
struct StackPass {
    /// Violations smaller than this are ignored, as in Texture (`kViolationEpsilon`).
    static let violationEpsilon = 0.01

    let options: StackOptions
    let direction: StackDirection
    /// The stack's first child in the arena's children (the record itself, with its kind, is not kept: the pass
    /// is copied whole for each non-mutating call, so it stays small).
    let childStart: Int32
    let childCount: Int
    let range: SizeRange
    /// The size children resolve percentages against: the stack's size where the range fixes it.
    let childParent: Size
    let itemBase: Int
    let lineBase: Int
    let deferralBase: Int
    var lineCount = 0
    /// Texture's `useOptimizedFlexing`: one child flexible both ways and an exact main size.
    var optimizedFlexing = false
    var mainSum: Double = 0
    var crossSum: Double = 0

    /// A pass over the children of `record`, without their items yet (``makeItems(_:_:_:)``). (Not throwing:
    /// the pass made by a throwing initializer was built in a temporary and copied whole into its variable.)
    init(options: StackOptions, record: SpecRecord, range: SizeRange, builder: inout LayoutBuilder) {
        self.options = options
        self.direction = options.direction
        self.childStart = record.childStart
        self.childCount = Int(record.childCount)
        self.range = range
        self.childParent = Size(
            width: range.min.width == range.max.width ? range.min.width : .nan,
            height: range.min.height == range.max.height ? range.min.height : .nan)
        itemBase = builder.stackItems.count
        lineBase = builder.stackLines.count
        deferralBase = builder.stackDeferrals.count
    }

    /// Step 1: each child's item (its style, read once), in the builder's items from `itemBase`.
    mutating func makeItems(_ arena: SpecArena, _ record: SpecRecord, _ builder: inout LayoutBuilder) throws(LayoutError) {
        let (alignItems, direction, range) = (options.alignItems, options.direction, self.range)
        var flexibleBothWays = 0
        for i in 0..<Int(record.childCount) {
            let child = arena.child(record, i)
            if arena.hasDefaultStyle(child) {
                // Texture's defaults: no flex, no spacing, the stack's alignment, no own cross bounds.
                let alignment = options.alignItems
                let baselined = alignment == .baselineFirst || alignment == .baselineLast
                let baselines = baselined ? arena.baselines(of: child) : (0, 0)
                builder.stackItems.append(StackItem(
                    ref: LayoutRef(0), size: .zero, flexGrow: 0, flexShrink: 0, flexBasis: .auto, alignment: alignment,
                    spacingBefore: 0, spacingAfter: 0, stretchCrossMin: 0, stretchCrossMax: .infinity,
                    ascender: baselines.0, descender: baselines.1))
                continue
            }
            // The style read in place (a spec's in its arena, with the range resolved when it was added; a node's
            // in its snapshot), only for what the item keeps of it.
            var item: StackItem
            do {
                if child.isSpec {
                    // (What `arena.withCheckedStyle` does for a spec, inlined here: that closure needs `item` made
                    // first and assigned inside. Pinned by the cold spec-tree and node-tree rows, Benchmarks 1.)
                    let record = arena.records[Int(child.specIndex)]
                    try arena.validateStyle(of: record)
                    let fixed = arena.fixedRanges[Int(record.style)]
                    item = arena.styles.withUnsafeBufferPointer { styles in
                        Self.item(styles.baseAddress.unsafelyUnwrapped + Int(record.style), fixed: fixed, alignItems: alignItems,
                                  direction: direction)
                    }
                } else {
                    item = StackItem(
                        ref: LayoutRef(0), size: .zero, flexGrow: 0, flexShrink: 0, flexBasis: .auto, alignment: alignItems,
                        spacingBefore: 0, spacingAfter: 0, stretchCrossMin: 0, stretchCrossMax: .infinity, ascender: 0,
                        descender: 0)
                    try arena.withCheckedStyle(of: child) { style, fixed in
                        item = Self.item(style, fixed: fixed, alignItems: alignItems, direction: direction)
                    }
                }
            } catch {
                builder.stackItems.truncate(to: itemBase)
                throw error.within("children[\(i)]")
            }
            // Only baseline-aligned children need their baselines (a vertical stack finds its own by asking
            // its first or last child, so asking every child would make deep nesting quadratic).
            if item.isBaselineAligned {
                (item.ascender, item.descender) = arena.baselines(of: child)
            }
            if item.isFlexibleBothWays { flexibleBothWays += 1 }
            builder.stackItems.append(item)
        }
        optimizedFlexing = flexibleBothWays == 1 && range.min.main(direction) == range.max.main(direction)
    }

    /// The item for a child of `style` (checked), whose own range where the parent's size does not matter is
    /// `fixed` if known. (The style by pointer, its fields read in place: passed borrowed from where its holder
    /// keeps it, it was copied whole first, through memcpy.)
    @inline(__always)
    static func item(_ style: UnsafePointer<LayoutStyle>, fixed: SizeRange?, alignItems: AlignItems, direction: StackDirection) -> StackItem {
        let alignment = Self.alignment(style.pointee.alignSelf, alignItems)
        var stretchMin = 0.0
        var stretchMax = Double.infinity
        if alignment == .stretch, !style.pointee.hasAutoSize {
            // Resolved against an undefined parent: a fixed range, where the style has one, is that range.
            let own: SizeRange
            if let fixed { own = fixed } else { own = style.pointee.resolvedRange(parentSize: Size(width: .nan, height: .nan)) }
            stretchMin = own.min.cross(direction)
            stretchMax = own.max.cross(direction)
        }
        return StackItem(
            ref: LayoutRef(0), size: .zero, flexGrow: style.pointee.flexGrow, flexShrink: style.pointee.flexShrink,
            flexBasis: style.pointee.flexBasis, alignment: alignment,
            spacingBefore: style.pointee.spacingBefore, spacingAfter: style.pointee.spacingAfter,
            stretchCrossMin: stretchMin, stretchCrossMax: stretchMax, ascender: 0, descender: 0)
    }

    /// Child `i` of the stack, in the stack's `arena`.
    @inline(__always)
    mutating func child(_ i: Int, in arena: SpecArena) -> SpecChild {
        arena.children[Int(childStart) + i]
    }

    // (The phases and the helpers they call are `mutating` although most change nothing: called on the `var`
    // pass, or from a mutating phase, a non-mutating one was handed a copy of the whole pass, a 200-byte memcpy
    // per call.)
    mutating func release(_ builder: inout LayoutBuilder) {
        builder.stackItems.truncate(to: itemBase)
        builder.stackLines.truncate(to: lineBase)
        builder.stackDeferrals.truncate(to: deferralBase)
    }

    static func alignment(_ alignSelf: AlignSelf, _ alignItems: AlignItems) -> AlignItems {
        switch alignSelf {
        case .auto: return alignItems
        case .start: return .start
        case .end: return .end
        case .center: return .center
        case .stretch: return .stretch
        }
    }

    // MARK: Shared steps

    /// Lays child `i` out between the given main and cross sizes (Texture's `crossChildLayout`): a stretched
    /// child's cross range is its own where it has one, the given one otherwise; others start from zero.
    /// `mayDefer`: the layout may be put off where the range fixes the child's main size (its basis layout,
    /// which flexing or stretching may replace).
    mutating func layOut(
        _ i: Int, mainMin: Double, mainMax: Double, crossMin: Double, crossMax: Double, mayDefer: Bool = false,
        _ arena: SpecArena, _ builder: inout LayoutBuilder
    ) throws(LayoutError) {
        // (Three fields read in place: the whole item copied out was 120 bytes.)
        let item = items(&builder) + i
        let stretched = item.pointee.alignment == .stretch
        let (stretchMin, stretchMax) = (item.pointee.stretchCrossMin, item.pointee.stretchCrossMax)
        let childCrossMin = stretched ? (stretchMin != 0 ? stretchMin : crossMin) : 0
        let childCrossMax = stretched ? (stretchMax == .infinity ? crossMax : stretchMax) : crossMax
        let childRange = SizeRange(direction, mainMin: mainMin, mainMax: mainMax, crossMin: childCrossMin, crossMax: childCrossMax)
        let child = child(i, in: arena)
        if mayDefer, mainMin == mainMax, child.isSpec || child.isObject, deferred(i, child, childRange, arena, &builder) { return }
        let ref = try builder.layoutChild(arena, child, childRange, parentSize: childParent, place: "children[\(i)]")
        builder.stackItems[itemBase + i].ref = ref
        builder.stackItems[itemBase + i].size = builder.size(of: ref)
        builder.stackItems[itemBase + i].deferral = -1
    }

    /// Puts child `i`'s layout in `range` off, where the range fixes the child's main size; false where it does
    /// not (the child is then laid out now). Its main size is known without laying it out, and flexing needs no
    /// more: a stack lays a child out again when it flexes or stretches it, and a nested container laid out only
    /// for its size would lay out its own children for nothing (twice per level of nesting, 2^depth in all). It
    /// is laid out once its stack knows it keeps this layout (``layOutDeferred(crossIsOpen:_:_:)``): before the
    /// lines' cross sizes where its cross size is still open, after stretching where that is known too. A spec
    /// child's range is found from its kind (``LayoutBuilder/clampingRange(_:_:_:parentSize:)``), an object's
    /// (a node's) from the object (``LayoutObject/clampingRange(_:parentSize:in:)``).
    @inline(never)
    mutating func deferred(_ i: Int, _ child: SpecChild, _ range: SizeRange, _ arena: SpecArena, _ builder: inout LayoutBuilder) -> Bool {
        guard let clamped = builder.clampingRange(of: child, in: arena, range, parentSize: childParent),
              clamped.min.main(direction) == clamped.max.main(direction) else { return false }
        let crossIsOpen = clamped.min.cross(direction) != clamped.max.cross(direction)
        let size = builder.sanitizedSize(Size(
            direction, main: clamped.min.main(direction), cross: crossIsOpen ? 0 : clamped.min.cross(direction)))
        builder.stackItems[itemBase + i].ref = child.isSpec ? builder.leafSpec(arena, child.specIndex, size: size)
            : builder.leaf(object: arena.object(child), size: size)
        builder.stackItems[itemBase + i].size = size
        builder.stackItems[itemBase + i].deferral = Int32(truncatingIfNeeded: builder.stackDeferrals.count)
        builder.stackDeferrals.append(StackDeferral(item: Int32(truncatingIfNeeded: i), crossIsOpen: crossIsOpen, range: range))
        return true
    }

    /// Steps 4b and 6b: the children whose layout was put off (``StackDeferral``) and is still current laid out in
    /// the range they were last given: after flexing those whose cross size is open (`crossIsOpen`), after
    /// stretching the rest, whose size it does not change.
    @inline(__always)
    mutating func layOutDeferred(crossIsOpen: Bool, _ arena: SpecArena, _ builder: inout LayoutBuilder) throws(LayoutError) {
        if builder.stackDeferrals.count > deferralBase { try layOutEachDeferred(crossIsOpen: crossIsOpen, arena, &builder) }
    }

    @inline(never)
    mutating func layOutEachDeferred(crossIsOpen: Bool, _ arena: SpecArena, _ builder: inout LayoutBuilder) throws(LayoutError) {
        // (Each child laid out here may put off and release layouts of its own, after these.)
        var d = deferralBase
        while d < builder.stackDeferrals.count {
            let deferral = builder.stackDeferrals[d]
            let i = Int(deferral.item)
            if builder.stackItems[itemBase + i].deferral == Int32(truncatingIfNeeded: d) && (!crossIsOpen || deferral.crossIsOpen) {
                let ref = try builder.layoutChild(arena, child(i, in: arena), deferral.range, parentSize: childParent, place: "children[\(i)]")
                builder.stackItems[itemBase + i].ref = ref
                builder.stackItems[itemBase + i].size = builder.size(of: ref)
                builder.stackItems[itemBase + i].deferral = -1
            }
            d += 1
        }
    }

    /// ``layOut(_:mainMin:mainMax:crossMin:crossMax:_:_:)`` for a child laid out once already (flexed or
    /// stretched), counted against the builder's ``LayoutBuilder/relayoutLimit``.
    mutating func relayOut(
        _ i: Int, mainMin: Double, mainMax: Double, crossMin: Double, crossMax: Double, _ arena: SpecArena,
        _ builder: inout LayoutBuilder
    ) throws(LayoutError) {
        builder.relayouts += 1
        if _slowPath(builder.relayouts > builder.relayoutLimit || builder.relayouts == builder.memoAfter) {
            try Self.countedPastThreshold(i, &builder)
        }
        if builder.relayoutDepth == 0 { builder.relayoutStart = builder.recordsMade }
        if _slowPath(builder.recordsMadeAgain &+ builder.recordsMade &- builder.relayoutStart > builder.againLimit) {
            try Self.checkWorkAgain(i, &builder)
        }
        builder.relayoutDepth += 1
        defer {
            builder.relayoutDepth -= 1
            if builder.relayoutDepth == 0 { builder.recordsMadeAgain += builder.recordsMade - builder.relayoutStart }
        }
        try layOut(i, mainMin: mainMin, mainMax: mainMax, crossMin: crossMin, crossMax: crossMax, arena, &builder)
    }

    /// Refuses the computation where laying children out again made more layouts than the builder allows
    /// (``LayoutBuilder/againLimit`` beyond ``LayoutBuilder/againPerLayout`` per layout made otherwise).
    @inline(never)
    static func checkWorkAgain(_ i: Int, _ builder: inout LayoutBuilder) throws(LayoutError) {
        let again = builder.recordsMadeAgain + builder.recordsMade - builder.relayoutStart
        let once = builder.recordsMade - again
        let allowed = builder.againLimit.addingReportingOverflow(LayoutBuilder.againPerLayout.multipliedReportingOverflow(by: once).partialValue)
        guard again > allowed.partialValue, !allowed.overflow else { return }
        throw LayoutError(
            "laying children out again made \(again) layouts, more than the limit of \(builder.againLimit) + \(LayoutBuilder.againPerLayout) for each of the \(once) made once: stacks nested in flexible stacks are asked for new sizes at every level",
            path: "children[\(i)]", kind: .limit)
    }

    /// Where the children laid out again reach one of the builder's thresholds: the memo of spec layouts starts
    /// (``LayoutBuilder/memoAfterRelayouts``), or the computation is refused past the limit.
    @inline(never)
    static func countedPastThreshold(_ i: Int, _ builder: inout LayoutBuilder) throws(LayoutError) {
        if builder.relayouts == builder.memoAfter && builder.specMemo == nil { builder.specMemo = [:] }
        if builder.relayouts > builder.relayoutLimit {
            throw LayoutError(
                "more than \(builder.relayoutLimit) children laid out again in one layout (the limit): a flexible child is laid out twice, so each level of stacks nested in flexible stacks doubles the work",
                path: "children[\(i)]", kind: .limit)
        }
    }

    /// Items `start..<end`: their main sizes plus all spacing between and around them.
    mutating func mainSum(_ start: Int, _ end: Int, _ builder: inout LayoutBuilder) -> Double {
        guard end > start else { return 0 }
        var sum = options.spacing * Double(end - start - 1)
        let items = items(&builder)
        for i in start..<end {
            sum += items[i].spacingBefore + items[i].spacingAfter + items[i].size.main(direction)
        }
        return sum
    }

    /// The stack's items in place (`items[i]` is child i's), valid until the builder's items change (a child's
    /// layout may add items of its own): for the loops that only read them, where each `stackItems[k]` was a
    /// bounds check and, read whole, a copy of the 120-byte item.
    @inline(__always)
    func items(_ builder: inout LayoutBuilder) -> UnsafePointer<StackItem> {
        builder.stackItems.unsafeElements.baseAddress.unsafelyUnwrapped + itemBase
    }

    /// What must be added to `sum` to bring it into the main range: positive below it, negative above it.
    @inline(__always)
    mutating func mainViolation(_ sum: Double) -> Double {
        let lower = range.min.main(direction)
        let upper = range.max.main(direction)
        if sum < lower { return lower - sum }
        if sum > upper { return upper - sum }
        return 0
    }

    /// What must be added to `sum` to bring it into the cross range.
    @inline(__always)
    mutating func crossViolation(_ sum: Double) -> Double {
        let lower = range.min.cross(direction)
        let upper = range.max.cross(direction)
        if sum < lower { return lower - sum }
        if sum > upper { return upper - sum }
        return 0
    }

    /// The distance from an item's cross start to the baseline it is aligned on.
    @inline(__always)
    mutating func baseline(of item: StackItem) -> Double {
        switch item.alignment {
        case .baselineFirst: return item.ascender
        case .baselineLast: return item.size.cross(direction) + item.descender
        default: return 0
        }
    }

    @inline(__always)
    mutating func line(_ index: Int, _ builder: inout LayoutBuilder) -> StackLine {
        builder.stackLines[lineBase + index]
    }
}
