/// Lays its child out inside insets (Texture's `ASInsetLayoutSpec`).
///
/// - The child's range is the spec's range shrunk by the finite insets on each axis (never below zero); its
///   parent size is the parent size shrunk the same way.
/// - An infinite inset lets the child take its intrinsic size on that axis: the child's minimum there is
///   zero. With an infinite inset on one side the child is pushed against the other side; with both sides
///   infinite it is centered in the range's max (rounded to the pixel grid).
/// - The spec's size is the child's size plus the insets, clamped into the range; on an axis with an
///   infinite inset it is the range's max.
/// - Like Texture, the spec's own style sizes are not applied to its range.
/// - An infinite inset on an axis whose max is also infinite, or too large to be a size (``Size/isValid``:
///   1e7 or more), would give an invalid size and a position out of range: that is refused with an
///   error naming the inset (Texture asserts there and uses a zero size in release builds).
public struct InsetSpec: ValueSpec {
    public let insets: EdgeInsets
    public let child: any LayoutElement
    public let style: LayoutStyle
    public let identifier: String?

    public init(insets: EdgeInsets, child: any LayoutElement, style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.insets = insets
        self.child = child
        self.style = style
        self.identifier = identifier
    }

    public var kindName: String { "inset" }
    public var childElements: [any LayoutElement] { [child] }
    public func placeOfSublayout(_ index: Int) -> String { "child" }

    public func specChild(in arena: SpecArena) -> SpecChild {
        if let refused = arena.refusingDeepNesting(self) { return refused }
        return SpecChild(spec: arena.append(.inset(insets), style: style, identifier: identifier, child: child))
    }
}

extension LayoutBuilder {
    mutating func layoutInset(
        _ arena: SpecArena, _ index: Int32, _ record: SpecRecord, _ insets: EdgeInsets, _ range: SizeRange, parentSize: Size
    ) throws(LayoutError) -> LayoutRef {
        try arena.validateStyle(of: record)
        try Self.validate(insets)
        if !Size.isValid(range.max.width),
           let side = insets.left.isInfinite ? "left" : insets.right.isInfinite ? "right" : nil {
            throw LayoutError(
                "an infinite inset needs a finite max width (below 1e7), but the range is \(range)",
                path: "insets.\(side)")
        }
        if !Size.isValid(range.max.height),
           let side = insets.top.isInfinite ? "top" : insets.bottom.isInfinite ? "bottom" : nil {
            throw LayoutError(
                "an infinite inset needs a finite max height (below 1e7), but the range is \(range)",
                path: "insets.\(side)")
        }
        let insetsX = finiteOrZero(insets.left) + finiteOrZero(insets.right)
        let insetsY = finiteOrZero(insets.top) + finiteOrZero(insets.bottom)
        let minWidth = insets.left.isInfinite || insets.right.isInfinite ? 0 : range.min.width
        let minHeight = insets.top.isInfinite || insets.bottom.isInfinite ? 0 : range.min.height
        let childRange = SizeRange(
            min: Size(width: max(0, minWidth - insetsX), height: max(0, minHeight - insetsY)),
            max: Size(width: max(0, range.max.width - insetsX), height: max(0, range.max.height - insetsY)))
        let childParent = Size(width: max(0, parentSize.width - insetsX), height: max(0, parentSize.height - insetsY))
        let ref = try layoutChild(arena, arena.child(record, 0), childRange, parentSize: childParent, place: "child")
        let childSize = size(of: ref)

        let size = range.clamp(Size(
            width: finite(childSize.width + insets.left + insets.right, else: range.max.width),
            height: finite(childSize.height + insets.top + insets.bottom, else: range.max.height)))
        let x = finite(insets.left, else: range.max.width
            - (finite(insets.right, else: grid.round((range.max.width - childSize.width) / 2)) + childSize.width))
        let y = finite(insets.top, else: range.max.height
            - (finite(insets.bottom, else: grid.round((range.max.height - childSize.height) / 2)) + childSize.height))
        setPosition(ref, Point(x: x, y: y))
        return spec(arena, index, size: size, sublayout: ref)
    }

    /// Insets must be numbers or +infinity.
    static func validate(_ insets: EdgeInsets) throws(LayoutError) {
        func bad(_ value: Double) -> Bool { value.isNaN || value == -.infinity }
        guard bad(insets.top) || bad(insets.left) || bad(insets.bottom) || bad(insets.right) else { return }
        for (name, value) in [("top", insets.top), ("left", insets.left), ("bottom", insets.bottom), ("right", insets.right)]
        where bad(value) {
            throw LayoutError("expected a number or inf, got \(formatPoints(value))", path: "insets.\(name)")
        }
    }
}

func finite(_ value: Double, else substitute: Double) -> Double {
    value.isInfinite ? substitute : value
}

func finiteOrZero(_ value: Double) -> Double {
    value.isInfinite ? 0 : value
}
