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
/// - An infinite inset on an axis whose max is also infinite, or too large to be a size (``Size/isValid``,
///   such as `CGFLOAT_MAX`), would give an invalid size and a position out of range: that is refused with an
///   error naming the inset (Texture asserts there and uses a zero size in release builds).
public final class InsetSpec: LayoutSpec, @unchecked Sendable {
    public let insets: EdgeInsets
    public let child: any LayoutElement

    public init(insets: EdgeInsets, child: any LayoutElement, style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.insets = insets
        self.child = child
        super.init(style: style, identifier: identifier)
    }

    public override var kindName: String { "inset" }
    public override var childElements: [any LayoutElement] { [child] }
    public override func placeOfSublayout(_ index: Int) -> String { "child" }

    public override func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        try style.validate()
        try validateInsets()
        if !Size.isValid(range.max.width),
           let side = insets.left.isInfinite ? "left" : insets.right.isInfinite ? "right" : nil {
            throw LayoutError(
                "an infinite inset needs a finite max width (below FLT_MAX / 2), but the range is \(range)",
                path: "insets.\(side)")
        }
        if !Size.isValid(range.max.height),
           let side = insets.top.isInfinite ? "top" : insets.bottom.isInfinite ? "bottom" : nil {
            throw LayoutError(
                "an infinite inset needs a finite max height (below FLT_MAX / 2), but the range is \(range)",
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
        let ref = try layoutChild(child, childRange, parentSize: childParent, in: &builder, place: "child")
        let childSize = builder.size(of: ref)

        let size = range.clamp(Size(
            width: finite(childSize.width + insets.left + insets.right, else: range.max.width),
            height: finite(childSize.height + insets.top + insets.bottom, else: range.max.height)))
        let grid = builder.grid
        let x = finite(insets.left, else: range.max.width
            - (finite(insets.right, else: grid.round((range.max.width - childSize.width) / 2)) + childSize.width))
        let y = finite(insets.top, else: range.max.height
            - (finite(insets.bottom, else: grid.round((range.max.height - childSize.height) / 2)) + childSize.height))
        builder.setPosition(ref, Point(x: x, y: y))
        return builder.layout(self, size: size, sublayout: ref)
    }

    private func validateInsets() throws(LayoutError) {
        func bad(_ value: Double) -> Bool { value.isNaN || value == -.infinity }
        guard bad(insets.top) || bad(insets.left) || bad(insets.bottom) || bad(insets.right) else { return }
        for (name, value) in [("top", insets.top), ("left", insets.left), ("bottom", insets.bottom), ("right", insets.right)]
        where bad(value) {
            throw LayoutError("expected a number or inf, got \(formatPoints(value))", path: "insets.\(name)")
        }
    }
}

@inlinable
func finite(_ value: Double, else substitute: Double) -> Double {
    value.isInfinite ? substitute : value
}

@inlinable
func finiteOrZero(_ value: Double) -> Double {
    value.isInfinite ? 0 : value
}
