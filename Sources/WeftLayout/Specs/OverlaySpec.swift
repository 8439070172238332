/// Lays an overlay on top of a child, exactly as large as the child (Texture's `ASOverlayLayoutSpec`).
///
/// - The child is laid out in the spec's range and parent size; the spec takes the child's size.
/// - The overlay is laid out in exactly the child's size, with the child's size as its parent size.
/// - Both sit at the origin; the overlay comes after the child, so it is above it.
/// - Like Texture, the spec's own style sizes are not applied to its range.
public final class OverlaySpec: LayoutSpec, @unchecked Sendable {
    public let child: any LayoutElement
    public let overlay: any LayoutElement

    public init(child: any LayoutElement, overlay: any LayoutElement, style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.child = child
        self.overlay = overlay
        super.init(style: style, identifier: identifier)
    }

    public override var kindName: String { "overlay" }
    public override var childElements: [any LayoutElement] { [child, overlay] }
    public override func placeOfSublayout(_ index: Int) -> String { index == 0 ? "child" : "overlay" }

    public override func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        try style.validate()
        let content = try layoutChild(child, range, parentSize: parentSize, in: &builder, place: "child")
        let size = builder.size(of: content)
        let top = try layoutChild(overlay, SizeRange(exactly: size), parentSize: size, in: &builder, place: "overlay")
        return builder.layout(self, size: size, sublayouts: content, top)
    }
}

/// Lays a background behind a child, exactly as large as the child (Texture's `ASBackgroundLayoutSpec`).
///
/// - The child is laid out in the spec's range and parent size; the spec takes the child's size.
/// - The background is laid out in exactly the child's size, with the spec's parent size as its parent size
///   (Texture's choice, unlike the overlay's).
/// - Both sit at the origin; the background comes first, so it is below the child.
/// - Like Texture, the spec's own style sizes are not applied to its range.
public final class BackgroundSpec: LayoutSpec, @unchecked Sendable {
    public let child: any LayoutElement
    public let background: any LayoutElement

    public init(child: any LayoutElement, background: any LayoutElement, style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.child = child
        self.background = background
        super.init(style: style, identifier: identifier)
    }

    public override var kindName: String { "background" }
    public override var childElements: [any LayoutElement] { [background, child] }
    public override func placeOfSublayout(_ index: Int) -> String { index == 0 ? "background" : "child" }

    public override func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        try style.validate()
        let content = try layoutChild(child, range, parentSize: parentSize, in: &builder, place: "child")
        let size = builder.size(of: content)
        let back = try layoutChild(background, SizeRange(exactly: size), parentSize: parentSize, in: &builder, place: "background")
        return builder.layout(self, size: size, sublayouts: back, content)
    }
}
