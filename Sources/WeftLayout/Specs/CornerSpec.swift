/// Puts a corner element over one corner of a child, such as a badge (Texture's `ASCornerLayoutSpec`).
///
/// - The range is first narrowed by the spec's style; child and corner are both laid out in it, with the
///   range's max (where it is a valid size, see ``Size/isValid``) as the parent size.
/// - The corner's center sits on the chosen corner of the child, moved by `offset`.
/// - Without `wrapsCorner` the spec is the child's size and the corner may stick out. With it, the spec is
///   the union of both frames clamped into the range, and both are shifted so that the union starts at the
///   origin.
public final class CornerSpec: LayoutSpec, @unchecked Sendable {
    /// Which corner of the child the corner element sits on.
    public enum Location: String, Hashable, Sendable, CaseIterable {
        case topLeft, topRight, bottomLeft, bottomRight
    }

    public let child: any LayoutElement
    public let corner: any LayoutElement
    public let location: Location
    public let offset: Point
    public let wrapsCorner: Bool

    public init(
        child: any LayoutElement, corner: any LayoutElement, location: Location,
        offset: Point = .zero, wrapsCorner: Bool = false, style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) {
        self.child = child
        self.corner = corner
        self.location = location
        self.offset = offset
        self.wrapsCorner = wrapsCorner
        super.init(style: style, identifier: identifier)
    }

    public override var kindName: String { "corner" }
    public override var childElements: [any LayoutElement] { [child, corner] }
    public override func placeOfSublayout(_ index: Int) -> String { index == 0 ? "child" : "corner" }

    public override func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        guard offset.x.isFinite && offset.y.isFinite else {
            throw LayoutError("expected finite numbers, got \(offset)", path: "offset")
        }
        let range = try builder.resolve(style, range: range, parentSize: parentSize)
        let ownSize = range.max.definedParentSize
        let childRef = try layoutChild(child, range, parentSize: ownSize, in: &builder, place: "child")
        let cornerRef = try layoutChild(corner, range, parentSize: ownSize, in: &builder, place: "corner")
        var childFrame = Rect(origin: .zero, size: builder.size(of: childRef))
        let cornerSize = builder.size(of: cornerRef)
        var cornerFrame = Rect(origin: cornerOrigin(in: childFrame.size, cornerSize: cornerSize), size: cornerSize)

        var frame = childFrame
        if wrapsCorner {
            frame = childFrame.union(cornerFrame)
            frame.size = range.clamp(frame.size)
        }
        childFrame.origin.x -= frame.origin.x
        cornerFrame.origin.x -= frame.origin.x
        childFrame.origin.y -= frame.origin.y
        cornerFrame.origin.y -= frame.origin.y
        builder.setPosition(childRef, childFrame.origin)
        builder.setPosition(cornerRef, cornerFrame.origin)
        return builder.layout(self, size: frame.size, sublayouts: childRef, cornerRef)
    }

    private func cornerOrigin(in base: Size, cornerSize: Size) -> Point {
        let x: Double
        let y: Double
        switch location {
        case .topLeft:
            x = -cornerSize.width / 2
            y = -cornerSize.height / 2
        case .topRight:
            x = base.width - cornerSize.width / 2
            y = -cornerSize.height / 2
        case .bottomLeft:
            x = -cornerSize.width / 2
            y = base.height - cornerSize.height / 2
        case .bottomRight:
            x = base.width - cornerSize.width / 2
            y = base.height - cornerSize.height / 2
        }
        return Point(x: x + offset.x, y: y + offset.y)
    }
}
