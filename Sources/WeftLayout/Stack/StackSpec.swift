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
