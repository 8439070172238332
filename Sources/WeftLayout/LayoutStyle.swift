/// How an element asks to be sized and placed by its parent: Texture's `ASLayoutElementStyle` as a plain value.
///
/// Defaults are Texture's: every size `auto`, flexGrow 0, flexShrink 0, flexBasis `auto`, alignSelf `auto`,
/// no spacing, ascender and descender 0, layoutPosition at the origin.
///
/// - `width`/`height` request an exact size, `minWidth`... bound it. When resolved against a parent size they
///   follow CSS: min overrides max, and max overrides the exact size (``resolvedRange(parentSize:)``).
/// - `flexGrow`, `flexShrink`, `flexBasis`, `alignSelf`, `spacingBefore`, `spacingAfter`, `ascender` and
///   `descender` are read by a stack that holds the element.
/// - `layoutPosition` is read by an absolute spec that holds the element.
public struct LayoutStyle: Hashable, Sendable {
    public var width: Dimension
    public var height: Dimension
    public var minWidth: Dimension
    public var maxWidth: Dimension
    public var minHeight: Dimension
    public var maxHeight: Dimension
    public var flexGrow: Double
    public var flexShrink: Double
    public var flexBasis: Dimension
    public var alignSelf: AlignSelf
    public var spacingBefore: Double
    public var spacingAfter: Double
    public var ascender: Double
    public var descender: Double
    public var layoutPosition: Point

    @inlinable
    public init(
        width: Dimension = .auto, height: Dimension = .auto,
        minWidth: Dimension = .auto, maxWidth: Dimension = .auto,
        minHeight: Dimension = .auto, maxHeight: Dimension = .auto,
        flexGrow: Double = 0, flexShrink: Double = 0, flexBasis: Dimension = .auto,
        alignSelf: AlignSelf = .auto,
        spacingBefore: Double = 0, spacingAfter: Double = 0,
        ascender: Double = 0, descender: Double = 0,
        layoutPosition: Point = .zero
    ) {
        self.width = width
        self.height = height
        self.minWidth = minWidth
        self.maxWidth = maxWidth
        self.minHeight = minHeight
        self.maxHeight = maxHeight
        self.flexGrow = flexGrow
        self.flexShrink = flexShrink
        self.flexBasis = flexBasis
        self.alignSelf = alignSelf
        self.spacingBefore = spacingBefore
        self.spacingAfter = spacingAfter
        self.ascender = ascender
        self.descender = descender
        self.layoutPosition = layoutPosition
    }

    /// A style with `width` and `height` set in points: Texture's `preferredSize`.
    public init(preferredSize: Size) {
        self.init(width: .points(preferredSize.width), height: .points(preferredSize.height))
    }

    /// The exact size in points, when both `width` and `height` are in points; setting it sets both.
    public var preferredSize: Size? {
        get {
            guard case .points(let w) = width, case .points(let h) = height else { return nil }
            return Size(width: w, height: h)
        }
        set {
            if let size = newValue {
                width = .points(size.width)
                height = .points(size.height)
            } else {
                width = .auto
                height = .auto
            }
        }
    }

    /// The default style (every property at Texture's default).
    public static let `default` = LayoutStyle()

    /// Whether this is the default style (checked field by field, the likeliest differences first).
    @inlinable
    public var isDefault: Bool {
        // (Cases matched, not compared with `==`: a synthesized `==` is not inlined into other modules, and a
        // spec built there with a literal style then tested it at run time instead of at compile time.)
        guard hasAutoSize, flexGrow == 0, flexShrink == 0, flexBasis.isAuto, case .auto = alignSelf else { return false }
        return spacingBefore == 0 && spacingAfter == 0 && ascender == 0 && descender == 0
            && layoutPosition.x == 0 && layoutPosition.y == 0
    }

    /// Whether this style changes nothing about sizing: all six size dimensions are `auto`.
    @inlinable
    public var hasAutoSize: Bool {
        width.isAuto && height.isAuto && minWidth.isAuto && maxWidth.isAuto && minHeight.isAuto && maxHeight.isAuto
    }

    /// The size range this style allows, given the parent's size (NaN where the parent's size is undefined).
    ///
    /// Texture's `ASLayoutElementSizeResolveAutoSize`, for every style, all-`auto` ones included: `auto`
    /// minimums and maximums come from `auto`, the exact size is clamped between them, and where max <= min
    /// the minimum wins (so an inverted `auto` range, such as an absolute child placed past its parent's max,
    /// comes back as its minimum). The exact size resolves with ``Dimension/resolveExact(parent:)``: a
    /// percentage of an unbounded parent is infinity there, which a finite maximum clamps.
    @inlinable
    public func resolvedRange(parentSize: Size, auto: SizeRange = .unconstrained) -> SizeRange {
        let w = Self.constrain(
            min: minWidth.resolve(parent: parentSize.width, auto: auto.min.width),
            exact: width.resolveExact(parent: parentSize.width),
            max: maxWidth.resolve(parent: parentSize.width, auto: auto.max.width))
        let h = Self.constrain(
            min: minHeight.resolve(parent: parentSize.height, auto: auto.min.height),
            exact: height.resolveExact(parent: parentSize.height),
            max: maxHeight.resolve(parent: parentSize.height, auto: auto.max.height))
        return SizeRange(min: Size(width: w.0, height: h.0), max: Size(width: w.1, height: h.1))
    }

    /// The range this style allows whatever the parent's size, or nil when it depends on it (a percentage in
    /// one of the six size dimensions): what ``narrowed(_:parentSize:)`` intersects with, resolved once for
    /// the holders of a style that lay it out many times (a node's snapshot, an arena's styles).
    public var fixedRange: SizeRange? {
        // (All-auto, the common case, resolves to 0...infinity: no resolution needed.)
        if hasAutoSize { return .unconstrained }
        func isFraction(_ dimension: Dimension) -> Bool {
            if case .fraction = dimension { return true }
            return false
        }
        if isFraction(width) || isFraction(height) || isFraction(minWidth) || isFraction(maxWidth)
            || isFraction(minHeight) || isFraction(maxHeight) {
            return nil
        }
        return resolvedRange(parentSize: Size(width: .nan, height: .nan))
    }

    /// `range` narrowed by this style's sizes resolved against `parentSize` (Texture's default
    /// `layoutThatFits:parentSize:`): where they do not overlap, `range` wins. The style is not checked.
    ///
    /// As in Texture the intersection happens for every style, all-`auto` ones included: their range is
    /// 0...infinity, which leaves a proper range as it is but turns an inverted axis (max below min) into its
    /// minimum.
    @inlinable @inline(__always)
    public func narrowed(_ range: SizeRange, parentSize: Size) -> SizeRange {
        // An all-auto style always resolves to 0...infinity; skipping the resolution is only quicker.
        if hasAutoSize { return range.withinUnconstrained }
        return range.intersection(resolvedRange(parentSize: parentSize))
    }

    /// CSS precedence: min overrides max, which overrides the exact value (NaN: none).
    ///
    /// An infinite exact value under an infinite max (a percentage of an unbounded parent with nothing to
    /// clamp it) would be an infinite minimum, which Texture leaves undefined: it counts as none.
    @inlinable
    static func constrain(min: Double, exact: Double, max: Double) -> (Double, Double) {
        if max <= min { return (min, min) }
        if exact > max { return (max, max) }
        if exact < min { return (min, min) }
        if exact.isFinite { return (exact, exact) }
        return (min, max)
    }

    /// The first property that cannot be laid out, with the reason, or nil if every property is usable.
    ///
    /// Sizes must be finite and not negative, percentages within [0, 1], flex factors finite and not negative;
    /// spacing, ascender, descender and layoutPosition must be finite. A minimum above its maximum is usable:
    /// the minimum wins (``resolvedRange(parentSize:auto:)``).
    public var problem: (property: String, reason: String)? {
        let dimensions: [(String, Dimension)] = [
            ("width", width), ("height", height), ("minWidth", minWidth), ("maxWidth", maxWidth),
            ("minHeight", minHeight), ("maxHeight", maxHeight), ("flexBasis", flexBasis),
        ]
        for (name, dimension) in dimensions {
            if let reason = dimension.problem { return (name, reason) }
        }
        for (name, factor) in [("flexGrow", flexGrow), ("flexShrink", flexShrink)] {
            if !factor.isFinite || factor < 0 {
                return (name, "expected a number >= 0, got \(formatPoints(factor))")
            }
        }
        let finiteValues: [(String, Double)] = [
            ("spacingBefore", spacingBefore), ("spacingAfter", spacingAfter), ("ascender", ascender),
            ("descender", descender), ("layoutPosition", layoutPosition.x), ("layoutPosition", layoutPosition.y),
        ]
        for (name, value) in finiteValues where !value.isFinite {
            return (name, "expected a finite number, got \(formatPoints(value))")
        }
        return nil
    }
}

/// How a stack child overrides the stack's `alignItems` (Texture's `ASStackLayoutAlignSelf`).
public enum AlignSelf: String, Hashable, Sendable, CaseIterable {
    case auto, start, end, center, stretch
}

extension LayoutStyle {
    /// Throws, naming the property, if ``problem`` finds one. Cheap when the style is fine.
    @inlinable
    public func validate() throws(LayoutError) {
        if isPlausible { return }
        if let (property, reason) = problem {
            throw LayoutError(reason, path: "style.\(property)")
        }
    }

    @inlinable
    var isPlausible: Bool {
        flexGrow >= 0 && flexGrow < .infinity && flexShrink >= 0 && flexShrink < .infinity
            && spacingBefore.isFinite && spacingAfter.isFinite && ascender.isFinite && descender.isFinite
            && layoutPosition.x.isFinite && layoutPosition.y.isFinite && flexBasis.isUsable
            && (hasAutoSize || sizesAreUsable)
    }

    @inlinable
    var sizesAreUsable: Bool {
        width.isUsable && height.isUsable && minWidth.isUsable && maxWidth.isUsable && minHeight.isUsable
            && maxHeight.isUsable
    }
}

extension Dimension {
    @inlinable
    var isUsable: Bool {
        switch self {
        case .auto: return true
        case .points(let value): return value >= 0 && value < .infinity
        case .fraction(let value): return value >= 0 && value <= 1
        }
    }
}
