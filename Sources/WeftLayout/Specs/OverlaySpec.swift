/// Lays an overlay on top of a child, exactly as large as the child (Texture's `ASOverlayLayoutSpec`).
///
/// - The child is laid out in the spec's range and parent size; the spec takes the child's size.
/// - The overlay is laid out in exactly the child's size, with the child's size as its parent size.
/// - Both sit at the origin; the overlay comes after the child, so it is above it.
/// - Like Texture, the spec's own style sizes are not applied to its range.
public struct OverlaySpec: ValueSpec {
    public let child: any LayoutElement
    public let overlay: any LayoutElement
    public let style: LayoutStyle
    public let identifier: String?

    public init(child: any LayoutElement, overlay: any LayoutElement, style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.child = child
        self.overlay = overlay
        self.style = style
        self.identifier = identifier
    }

    public var kindName: String { "overlay" }
    public var childElements: [any LayoutElement] { [child, overlay] }
    public func placeOfSublayout(_ index: Int) -> String { index == 0 ? "child" : "overlay" }

    public func specChild(in arena: SpecArena) -> SpecChild {
        if let refused = arena.refusingDeepNesting(self) { return refused }
        return SpecChild(spec: arena.append(.overlay, style: style, identifier: identifier, first: child, second: overlay))
    }
}

/// Lays a background behind a child, exactly as large as the child (Texture's `ASBackgroundLayoutSpec`).
///
/// - The child is laid out in the spec's range and parent size; the spec takes the child's size.
/// - The background is laid out in exactly the child's size, with the spec's parent size as its parent size
///   (Texture's choice, unlike the overlay's).
/// - Both sit at the origin; the background comes first, so it is below the child.
/// - Like Texture, the spec's own style sizes are not applied to its range.
public struct BackgroundSpec: ValueSpec {
    public let child: any LayoutElement
    public let background: any LayoutElement
    public let style: LayoutStyle
    public let identifier: String?

    public init(child: any LayoutElement, background: any LayoutElement, style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.child = child
        self.background = background
        self.style = style
        self.identifier = identifier
    }

    public var kindName: String { "background" }
    public var childElements: [any LayoutElement] { [background, child] }
    public func placeOfSublayout(_ index: Int) -> String { index == 0 ? "background" : "child" }

    public func specChild(in arena: SpecArena) -> SpecChild {
        if let refused = arena.refusingDeepNesting(self) { return refused }
        return SpecChild(spec: arena.append(.background, style: style, identifier: identifier, first: background, second: child))
    }
}

extension LayoutBuilder {
    /// Children in the arena: the child, then the overlay.
    mutating func layoutOverlay(
        _ arena: SpecArena, _ index: Int32, _ record: SpecRecord, _ range: SizeRange, parentSize: Size
    ) throws(LayoutError) -> LayoutRef {
        try arena.validateStyle(of: record)
        let content = try layoutChild(arena, arena.child(record, 0), range, parentSize: parentSize, place: "child")
        let size = size(of: content)
        let top = try layoutChild(arena, arena.child(record, 1), SizeRange(exactly: size), parentSize: size, place: "overlay")
        return spec(arena, index, size: size, sublayouts: content, top)
    }

    /// Children in the arena: the background, then the child (the order of their layouts).
    mutating func layoutBackground(
        _ arena: SpecArena, _ index: Int32, _ record: SpecRecord, _ range: SizeRange, parentSize: Size
    ) throws(LayoutError) -> LayoutRef {
        try arena.validateStyle(of: record)
        let content = try layoutChild(arena, arena.child(record, 1), range, parentSize: parentSize, place: "child")
        let size = size(of: content)
        let back = try layoutChild(
            arena, arena.child(record, 0), SizeRange(exactly: size), parentSize: parentSize, place: "background")
        return spec(arena, index, size: size, sublayouts: back, content)
    }
}
