/// Puts a corner element over one corner of a child, such as a badge (Texture's `ASCornerLayoutSpec`).
///
/// - The range is first narrowed by the spec's style; child and corner are both laid out in it, with the
///   range's max (where it is a valid size, see ``Size/isValid``) as the parent size.
/// - The corner's center sits on the chosen corner of the child, moved by `offset`.
/// - Without `wrapsCorner` the spec is the child's size and the corner may stick out. With it, the spec is
///   the union of both frames clamped into the range, and both are shifted so that the union starts at the
///   origin.
public struct CornerSpec: ValueSpec {
    /// Which corner of the child the corner element sits on.
    public enum Location: String, Hashable, Sendable, CaseIterable {
        case topLeft, topRight, bottomLeft, bottomRight
    }

    public let child: any LayoutElement
    public let corner: any LayoutElement
    public let location: Location
    public let offset: Point
    public let wrapsCorner: Bool
    public let style: LayoutStyle
    public let identifier: String?

    public init(
        child: any LayoutElement, corner: any LayoutElement, location: Location,
        offset: Point = .zero, wrapsCorner: Bool = false, style: LayoutStyle = LayoutStyle(), identifier: String? = nil
    ) {
        self.child = child
        self.corner = corner
        self.location = location
        self.offset = offset
        self.wrapsCorner = wrapsCorner
        self.style = style
        self.identifier = identifier
    }

    public var kindName: String { "corner" }
    public var childElements: [any LayoutElement] { [child, corner] }
    public func placeOfSublayout(_ index: Int) -> String { index == 0 ? "child" : "corner" }

    public func specChild(in arena: SpecArena) -> SpecChild {
        if let refused = arena.refusingDeepNesting(self) { return refused }
        return SpecChild(spec: arena.append(
            .corner(location, offset, wrapsCorner), style: style, identifier: identifier, first: child, second: corner))
    }
}

extension LayoutBuilder {
    mutating func layoutCorner(
        _ arena: SpecArena, _ index: Int32, _ record: SpecRecord, _ location: CornerSpec.Location, _ offset: Point,
        _ wrapsCorner: Bool, _ range: SizeRange, parentSize: Size
    ) throws(LayoutError) -> LayoutRef {
        guard offset.x.isFinite && offset.y.isFinite else {
            throw LayoutError("expected finite numbers, got \(offset)", path: "offset")
        }
        try arena.validateStyle(of: record)
        let range = arena.narrowed(record, range, parentSize: parentSize)
        let ownSize = range.max.definedParentSize
        let childRef = try layoutChild(arena, arena.child(record, 0), range, parentSize: ownSize, place: "child")
        let cornerRef = try layoutChild(arena, arena.child(record, 1), range, parentSize: ownSize, place: "corner")
        var childFrame = Rect(origin: .zero, size: size(of: childRef))
        let cornerSize = size(of: cornerRef)
        var cornerFrame = Rect(
            origin: Self.cornerOrigin(location, offset, in: childFrame.size, cornerSize: cornerSize), size: cornerSize)

        var frame = childFrame
        if wrapsCorner {
            frame = childFrame.union(cornerFrame)
            frame.size = range.clamp(frame.size)
        }
        childFrame.origin.x -= frame.origin.x
        cornerFrame.origin.x -= frame.origin.x
        childFrame.origin.y -= frame.origin.y
        cornerFrame.origin.y -= frame.origin.y
        setPosition(childRef, childFrame.origin)
        setPosition(cornerRef, cornerFrame.origin)
        return spec(arena, index, size: frame.size, sublayouts: childRef, cornerRef)
    }

    static func cornerOrigin(_ location: CornerSpec.Location, _ offset: Point, in base: Size, cornerSize: Size) -> Point {
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
